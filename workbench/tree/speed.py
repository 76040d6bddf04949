"""The tree-speed figure used by ``benchmarks/``: each stage from a generated file to rendered `/tree` rows, timed once."""

from __future__ import annotations

import time

from workbench.sessions.loader import parse_session_text
from workbench.sessions.synthetic import generate_session_text
from workbench.sessions.tree import SessionTree
from workbench.tree.treelist import TreeList

__all__ = ["time_tree"]


def time_tree(n: int = 100_000, *, flavor: str = "omp") -> dict[str, float]:
    """Seconds for parse, tree build, TreeList flatten (default filter), a search and rendering all rows."""
    text = generate_session_text(n)
    out: dict[str, float] = {"entries": float(n)}
    t0 = time.perf_counter()
    session = parse_session_text(text, path="<synthetic>")
    t1 = time.perf_counter()
    tree = SessionTree(session)
    tree.get_tree()
    t2 = time.perf_counter()
    tl = TreeList(tree, flavor=flavor)  # type: ignore[arg-type]
    t3 = time.perf_counter()
    searched = tl.set_search("module42")
    t4 = time.perf_counter()
    rows = tl.rows()
    t5 = time.perf_counter()
    out.update(parse_s=t1 - t0, tree_s=t2 - t1, flatten_s=t3 - t2, search_s=t4 - t3, render_s=t5 - t4,
               visible=float(len(rows)), matches=float(len(searched.visible_ids)))
    return out
