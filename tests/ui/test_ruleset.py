"""The app's rule set reads nothing above the served root that holds the project folder."""

from __future__ import annotations

from pathlib import Path

from workbench.ui.roots import ServedRoots
from workbench.ui.state import AppState


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_cline_rules_above_the_served_root_are_not_read(tmp_path):
    outside = tmp_path / "outside"
    served = outside / "served"
    project = served / "project"
    _write(project / ".omp" / "rules" / "local.md", "---\ndescription: d\n---\nlocal rule\n")
    _write(outside / ".clinerules" / "leak.md", "never read by the served app\n")
    state = AppState(ServedRoots.of([served]))
    assert state.rules_path() == project
    names = {r.name for r in state.rule_set().loaded().rules}
    assert "local" in names and "leak" not in names
    # a .clinerules inside the served root, above the project, is still in bounds
    _write(served / ".clinerules" / "inside.md", "inside the served root\n")
    state._ruleset = None
    names = {r.name for r in state.rule_set().loaded().rules}
    assert {"local", "inside"} <= names and "leak" not in names


def test_root_of_picks_the_outermost_served_folder(tmp_path):
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    roots = ServedRoots.of([inner, tmp_path / "a"])
    assert roots.root_of(inner / "x") == tmp_path / "a"
    assert roots.root_of(tmp_path / "elsewhere") is None
