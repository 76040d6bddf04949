"""``workbench.rulecheck.scan``: existing files presented as writes; hits at file:line:column."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import NotFoundError
from workbench.rulecheck import scan_paths
from workbench.rules import Rule

UNWRAP = Rule("no-unwrap", "r/no-unwrap.md", "b", condition=["\\.unwrap\\(\\)"], scope=["tool:edit(*.rs)", "tool:write(*.rs)"])
EDIT_ONLY = Rule("edit-only", "r/edit-only.md", "b", condition=["TODO"], scope=["tool:edit(src/**)"])
AS_ANY = Rule("as-any", "r/as-any.md", "b", ast_condition=["$E as any"], scope=["tool:write(*.ts)"])
TEXT_ONLY = Rule("prose", "r/prose.md", "b", condition=["unwrap"], scope=["text"])
GLOBBED = Rule("py-only", "r/py.md", "b", condition=["print\\("], globs=["scripts/*.py"])


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/lib.rs").write_text("fn a() {\n    let x = y.unwrap();\n}\n// z.unwrap() again\n")
    (tmp_path / "src/ok.rs").write_text("fn a() -> R { y? }\n")
    (tmp_path / "src/a.ts").write_text("const é = 1;\nconst u = (req as any).user; // TODO\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/run.py").write_text("print('x')\n")
    (tmp_path / "other.py").write_text("print('y')\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2unwrap()")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden/x.rs").write_text("a.unwrap()")
    return tmp_path


def test_regex_hits_with_lines_and_columns(tree):
    report = scan_paths([str(tree)], [UNWRAP], cwd=str(tree))
    assert [(h.location(), h.via, h.tool) for h in report.hits] == [
        (".hidden/x.rs:1:2", "regex", "write"), ("src/lib.rs:2:14", "regex", "write"),
        ("src/lib.rs:4:5", "regex", "write")]
    assert report.hits[1].text == "    let x = y.unwrap();"
    assert (report.hits[1].end_line, report.hits[1].end_column) == (2, 23)  # end column is exclusive
    assert ("blob.bin", "binary") in report.skipped
    assert report.files == 6  # hidden folders are walked, as the agent's scan walks them


def test_ast_hit_counts_columns_in_characters(tree):
    report = scan_paths([str(tree / "src")], [AS_ANY], cwd=str(tree))
    assert [(h.location(), h.via) for h in report.hits] == [("src/a.ts:2:12", "ast")]


def test_edit_scoped_rule_sees_the_file_as_an_edit(tree):
    report = scan_paths([str(tree)], [EDIT_ONLY], cwd=str(tree))
    assert [(h.location(), h.tool) for h in report.hits] == [("src/a.ts:2:33", "edit")]


def test_rule_globs_use_path_candidates_relative_to_cwd(tree):
    assert [h.path for h in scan_paths([str(tree)], [GLOBBED], cwd=str(tree)).hits] == ["scripts/run.py"]
    # From another cwd the relative form is different and `scripts/*.py` no longer matches.
    assert scan_paths([str(tree)], [GLOBBED], cwd=str(tree.parent)).hits == ()


def test_rules_that_never_see_a_write_are_listed(tree):
    report = scan_paths([str(tree)], [TEXT_ONLY, Rule("doc", "d.md", "b", description="d")], cwd=str(tree))
    assert report.hits == ()
    assert report.not_applicable == (("prose", "scope watches no tool calls"), ("doc", "no condition or astCondition (not a TTSR rule)"))


def test_missing_path_is_an_error(tree):
    with pytest.raises(NotFoundError):
        scan_paths([str(tree / "nope")], [UNWRAP], cwd=str(tree))
