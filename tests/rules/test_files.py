"""Rule files named as files and folders (``workbench.rules.files``): the walker and the loaders."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import NotFoundError, RuleFileError
from workbench.rules import load_rule_file, load_rule_paths, resolve_rules, rule_files


def test_resolve_rules_reads_rule_folders_and_discovers_projects(tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "a.md").write_text("---\ncondition: a\n---\nA")
    (folder / "b.mdc").write_text("---\ncondition: b\n---\nB")
    project = tmp_path / "proj"
    (project / ".omp/rules").mkdir(parents=True)
    (project / ".omp/rules/c.md").write_text("---\ncondition: c\n---\nC")
    names = [r.name for r in resolve_rules([str(folder), str(project)], home=str(tmp_path / "nohome"))]
    assert names[:3] == ["a", "b", "c"]
    assert Path(resolve_rules([str(folder / "a.md")])[0].path).name == "a.md"


def test_rule_files_lists_named_files_and_rule_files_under_folders(tmp_path):
    (tmp_path / "sub").mkdir()
    for name in ("b.md", "a.mdc", "notes.txt", "sub/c.md"):
        (tmp_path / name).write_text("x")
    named = tmp_path / "notes.txt"
    found = rule_files([str(tmp_path), str(named), str(tmp_path / "b.md")])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.mdc", "b.md", "sub/c.md", "notes.txt"]
    with pytest.raises(NotFoundError, match="nope: no such file or directory"):
        rule_files([str(tmp_path / "nope")])


def test_first_rule_of_a_name_wins_and_the_second_is_a_warning(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "one/r.md").write_text("---\ncondition: a\n---\nA")
    (tmp_path / "two/r.md").write_text("---\ncondition: b\n---\nB")
    warnings: list[str] = []
    (rule,) = load_rule_paths([str(tmp_path / "one"), str(tmp_path / "two")], warnings)
    assert list(rule.condition) == ["a"]
    assert warnings == [f"{tmp_path / 'two/r.md'}: rule r already loaded from {tmp_path / 'one/r.md'}; skipped"]


def test_unreadable_rule_file_names_the_file(tmp_path):
    path = tmp_path / "bad.md"
    path.write_bytes(b"---\ncondition: \xff\n---\n")
    with pytest.raises(RuleFileError, match="not UTF-8 text") as info:
        load_rule_file(path)
    assert str(path) in str(info.value)
