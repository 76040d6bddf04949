"""The workbench's answers to the harness's ``tree`` cases: visible rows and the selected row."""

from __future__ import annotations

from typing import Any

from workbench.tree import flattree
from workbench.tree.treelist import TreeList

# The flavour that follows omp 18 / pi-tui 18.2.9.
FLAVOR: flattree.Flavor = "omp18"

HEADER = {"type": "session", "version": 3, "id": "reference-oracle", "timestamp": "2026-11-24T09:00:00.000Z",
          "cwd": "/proj"}


def run_tree(case: dict[str, Any]) -> dict[str, Any]:
    out = []
    for query in case["queries"]:
        tl = TreeList([HEADER, *case["entries"]], flavor=FLAVOR, filter_mode=query["filter"],
                      leaf=case["leaf"], height=100_000)
        # Typed one key at a time, as the harness types it: the selection a filter change keeps
        # depends on the rows of every intermediate query.
        for ch in query["search"]:
            tl = tl.type_text(ch)
        out.append({"rows": [[row.id, row.depth] for row in tl.rows()], "selected": tl.selected_id})
    return {"out": out}


def tree_differ(case: dict[str, Any], ref: dict[str, Any], ours: dict[str, Any]) -> str | None:
    for i, (query, a, b) in enumerate(zip(case["queries"], ref["out"], ours["out"])):
        if a != b:
            ids_a, ids_b = [r[0] for r in a["rows"]], [r[0] for r in b["rows"]]
            what = "depths" if ids_a == ids_b and a["rows"] != b["rows"] else "rows" if ids_a != ids_b else "selection"
            return (f"query {i} {query}: {what} differ; reference {a['rows']} selected {a['selected']}, "
                    f"workbench {b['rows']} selected {b['selected']}")
    return None
