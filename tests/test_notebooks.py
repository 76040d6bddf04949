"""The notebooks as users open them: each view shown once, a setup cell that finds the repository
from the installed package and loads the views' JavaScript inline when the CDN is out of reach."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _shown(source: str) -> str | None:
    """The object a cell displays: its last expression, through a trailing `.servable()`."""
    body = ast.parse(source).body
    if not body or not isinstance(body[-1], ast.Expr):
        return None
    value = body[-1].value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "servable":
        value = value.func.value
    if isinstance(value, ast.Name):
        return value.id
    return ast.unparse(value) if isinstance(value, ast.Call) else None


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


def test_the_notebooks_are_what_the_build_script_writes():
    # notebooks/build_notebooks.py is where they are edited: a hand edit of an .ipynb would be lost
    # on the next rebuild, a script edit never rebuilt would leave the notebook behind.
    spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "notebooks" / "build_notebooks.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert sorted(build.NOTEBOOKS) == [p.name for p in NOTEBOOKS]
    for name, cells in build.NOTEBOOKS.items():
        written = (ROOT / "notebooks" / name).read_text(encoding="utf-8")
        assert build.render(cells()) == written, f"{name}: run python notebooks/build_notebooks.py"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_view_object_is_displayed_twice(notebook):
    shown = [name for name in map(_shown, _code_cells(notebook)) if name]
    assert shown, "the notebook displays nothing: the check would pass vacuously"
    names = [name for name in shown if name.isidentifier()]
    assert len(names) == len(set(names)), f"{notebook.name} displays one object twice: {names}"
    for source in _code_cells(notebook):
        # A layout that wraps views shown before shows them a second time.
        tree = ast.parse(source)
        last = tree.body[-1] if tree.body else None
        if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
            wrapped = {a.id for call in ast.walk(last.value) if isinstance(call, ast.Call)
                       for a in call.args if isinstance(a, ast.Name)}
            assert not wrapped & set(names), f"{notebook.name}: {ast.unparse(last)} shows {wrapped & set(names)} again"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_needs_no_jupyter_cwd_and_no_cdn(notebook):
    setup = _code_cells(notebook)[0]
    assert "workbench.__file__" in setup
    assert "inline=not cdn_reachable()" in setup
