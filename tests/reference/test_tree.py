"""The `/tree` list, differential: generated omp 18 sessions through pi-tui 18.2.9 and the workbench.

Per case a session of every entry type with branches and labels, a current leaf, and queries
(filter mode, search typed key by key); compared: the visible rows in order with their depth,
and the selected row. The reference side runs pi-tui's own TreeSelectorComponent and TreeView;
only the session index's small tree builder is the harness's (harness/oracle.ts sessionTree).
"""

from __future__ import annotations

import pytest

from tests.reference.differential import Suite
from tests.reference.generate_sessions import tree_case
from tests.reference.workbench_tree import run_tree, tree_differ

TREE_CASES = 300

TREE = Suite("tree", [tree_case(20_000 + seed) for seed in range(TREE_CASES)], run_tree, tree_differ)

@pytest.mark.parametrize("index", range(TREE_CASES))
def test_tree_case(oracle, index):
    TREE.check(oracle, index)


def test_tree_cases_cover_every_filter_and_search(oracle):
    """The cases exercise what they claim: every filter mode, searches that keep and drop rows."""
    refs = oracle.run(TREE.cases[:80])
    seen_modes = {q["filter"] for c in TREE.cases[:80] for q in c["queries"]}
    shown = [len(q["rows"]) for r in refs for q in r["out"]]
    entries = sum(len(c["entries"]) for c in TREE.cases[:80])
    searched = [len(a["rows"]) for c, r in zip(TREE.cases, refs) for q, a in zip(c["queries"], r["out"]) if q["search"]]
    assert seen_modes == {"default", "no-tools", "user-only", "labeled-only", "all"}
    assert 0 < sum(shown) < entries * 6  # some rows shown, not every entry under every query
    assert 0 in searched and any(n > 0 for n in searched)
