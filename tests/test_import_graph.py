"""The import graph of ``workbench/``, read from the source with ``ast``: no cycles, every import down.

Layers (docs/architecture.md), lowest first; a module may import its own layer's
packages (without a package-level cycle) and any layer below, never one above:

    errors  <  rules, edits, ttsr, sessions  <  tree  <  replay  <  store, backtest, rulecheck, export  <  ui, cli  <  __main__

A function-level import hides an edge from a reader and usually keeps a cycle alive, so one is allowed
only with a comment on the line above it or on the same line saying why (an optional dependency or a
measured start-up cost).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "workbench"
# Comments that silence a tool are not a reason.
_REASONLESS = re.compile(r"#\s*(type:\s*ignore\S*|noqa\S*)")

LAYERS: dict[str, int] = {
    "workbench": 0,  # the package's own __init__ (version, WorkbenchError)
    "errors": 0,
    "rules": 1,
    "edits": 1,
    "ttsr": 1,
    "sessions": 1,
    "tree": 2,  # the `/tree` selector over sessions
    "replay": 3,
    "store": 4,
    "backtest": 4,
    "rulecheck": 4,
    "export": 4,
    "ui": 5,
    "cli": 5,
    "__main__": 6,
}
# Inside a layer, the packages that may import one another (the direction is the one given).
SIDEWAYS = {("workbench", "errors"), ("ttsr", "rules"), ("edits", "rules"), ("backtest", "store"), ("cli", "ui")}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


MODULES = _modules()


def _resolve(name: str, imported: str | None = None) -> str | None:
    """The workbench module an import names: ``from pkg import sub`` is an edge to ``pkg.sub`` when
    ``sub`` is a module, else to ``pkg``."""
    if imported is not None and f"{name}.{imported}" in MODULES:
        return f"{name}.{imported}"
    return name if name in MODULES else None


def _type_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _edges(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """(target, line, at run time) for every workbench import in ``path``; an import under
    ``if TYPE_CHECKING:`` is an edge for the layering but not at run time."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, runtime: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                out.extend((t, child.lineno, runtime) for a in child.names if (t := _resolve(a.name)))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = module.split(".")[: len(module.split(".")) - child.level + (path.name == "__init__.py")]
                    base = ".".join([*package, *([child.module] if child.module else [])])
                if base.startswith("workbench"):
                    out.extend((t, child.lineno, runtime) for a in child.names if (t := _resolve(base, a.name)))
            visit(child, runtime and not _type_only(child))

    visit(tree, True)
    return out


GRAPH = {m: _edges(m, p) for m, p in MODULES.items()}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "workbench"


def test_every_module_has_a_layer():
    assert sorted({_package(m) for m in MODULES} - set(LAYERS)) == []


def test_no_loose_modules_at_the_top():
    loose = sorted(p.name for p in ROOT.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "errors.py"]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := dfs(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := dfs(node)):
            return found
    return None


def test_no_import_cycles_between_modules():
    # A submodule that imports its own package's __init__ closes a cycle with it (the package
    # imports the submodule), which is why the replay's modules import ``workbench.replay.engine``
    # rather than ``from workbench.replay import engine``.
    # Imports under ``if TYPE_CHECKING:`` count too: two modules that need each other's types are one
    # concept split in two (a mixin declaring its host's state); give the one a Protocol instead.
    graph = {m: {t for t, _line, _runtime in edges if t != m} for m, edges in GRAPH.items()}
    assert _cycle(graph) is None


def test_the_cycle_check_counts_type_checking_imports():
    # treelayout once named FlatTree under TYPE_CHECKING while flattree imported treelayout.
    GRAPH["workbench.tree.treelayout"].append(("workbench.tree.flattree", 1, False))
    try:
        graph = {m: {t for t, _line, _runtime in edges if t != m} for m, edges in GRAPH.items()}
        assert _cycle(graph) is not None
    finally:
        GRAPH["workbench.tree.treelayout"].pop()


def _private_imports(sources: dict[str, str]) -> list[str]:
    """``from x import _name`` where ``x`` is another workbench module (``__dunder__`` names aside)."""
    bad = []
    for module, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if not (base.startswith("workbench") or node.level):
                continue
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                    bad.append(f"{module}:{node.lineno} imports {name} from {base or '.'}")
    return bad


def test_no_module_imports_another_modules_private_name():
    sources = {m: p.read_text(encoding="utf-8") for m, p in MODULES.items()}
    assert _private_imports(sources) == []


def test_the_private_import_check_sees_one():
    found = _private_imports({"workbench.a": "from workbench.b import _helper, public\nfrom typing import _T\n"})
    assert found == ["workbench.a:1 imports _helper from workbench.b"]


def test_the_cycle_finder_finds_a_two_file_cycle():
    assert _cycle({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles_between_packages():
    graph: dict[str, set[str]] = {}
    for module, edges in GRAPH.items():
        graph.setdefault(_package(module), set()).update(
            _package(t) for t, _line, runtime in edges if runtime and _package(t) != _package(module)
        )
    assert _cycle(graph) is None


def _upward() -> list[str]:
    bad = []
    for module, edges in GRAPH.items():
        src = _package(module)
        for target, line, _runtime in edges:
            dst = _package(target)
            if dst == src:
                continue
            if LAYERS[dst] > LAYERS[src] or (LAYERS[dst] == LAYERS[src] and (src, dst) not in SIDEWAYS):
                bad.append(f"{module}:{line} imports {target}")
    return bad


def test_every_import_points_down():
    assert _upward() == []


def test_the_checker_sees_an_upward_import():
    # The rule above is only worth its name if an import from the UI inside the engine would fail it.
    GRAPH["workbench.ttsr.manager"].append(("workbench.ui.app", 1, True))
    try:
        assert _upward() == ["workbench.ttsr.manager:1 imports workbench.ui.app"]
    finally:
        GRAPH["workbench.ttsr.manager"].pop()


def test_only_the_seam_imports_the_engine_inside_replay():
    # replay/engine.py is the replay's one door into workbench.ttsr (its docstring says so).
    through = [
        f"{m}:{line}"
        for m, edges in GRAPH.items()
        if m.startswith("workbench.replay.") and m != "workbench.replay.engine"
        for target, line, _runtime in edges
        if _package(target) == "ttsr"
    ]
    assert through == []


def _function_imports_without_reason() -> list[str]:
    bad = []
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    here = _REASONLESS.sub("", lines[node.lineno - 1])
                    above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                    # A comment on the line, or a comment block right above (possibly over the
                    # other imports of the same group).
                    k = node.lineno - 2
                    while k >= 0 and (not lines[k].strip() or lines[k].strip().startswith(("import ", "from "))):
                        k -= 1
                    block_above = lines[k].strip() if k >= 0 else ""
                    if "#" not in here and not above.startswith("#") and not block_above.startswith("#"):
                        bad.append(f"{module}:{node.lineno}: {here.strip()}")
    return bad


def test_function_level_imports_say_why():
    assert _function_imports_without_reason() == []


@pytest.mark.parametrize("package", ["rules", "edits", "ttsr", "sessions", "tree", "replay", "store", "backtest", "rulecheck"])
def test_each_package_says_what_it_holds(package):
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 8, f"workbench/{package}/__init__.py needs a docstring saying its role"
