"""No view module imports another: views meet through the state (``AppState``, its replay model), and
what two views share lives in a module that is not a view (docs/architecture.md, "The app").

A view module is ``workbench/ui/*_view.py``; every import counts, under ``TYPE_CHECKING`` or inside a
function too. Read from the source with ``ast``, as ``tests/test_import_graph.py`` reads the graph.
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "workbench" / "ui"
VIEWS = {p.stem: p for p in sorted(UI.glob("*_view.py"))}


def _imported_modules(path: Path) -> set[str]:
    """Every ``workbench.ui`` module ``path`` imports, in any form and anywhere in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import inside workbench.ui
                base = ".".join(["workbench", "ui", *([base] if base else [])])
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        found.update(n.removeprefix("workbench.ui.") for n in names if n.startswith("workbench.ui."))
    return found


def _view_edges() -> set[tuple[str, str]]:
    return {(view, other) for view, path in VIEWS.items()
            for other in _imported_modules(path) if other in VIEWS and other != view}


def test_there_are_views_to_check():
    assert {"stepper_view", "rules_view", "timeline_view", "share_view", "drafts_view"} <= set(VIEWS)


def test_the_reader_sees_every_form_of_import(tmp_path):
    source = tmp_path / "a_view.py"
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from workbench.ui.b_view import B\n"
                      "def f():\n    import workbench.ui.c_view\n"
                      "from workbench.ui import d_view\nfrom . import e_view\n", encoding="utf-8")
    assert {"b_view", "c_view", "d_view", "e_view"} <= _imported_modules(source)


def test_no_view_imports_another_view():
    assert sorted(_view_edges()) == []
