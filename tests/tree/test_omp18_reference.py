"""The omp18 `/tree` against pi-tui 18.2.9's own tree selector, step by step.

``fixtures/omp18_tree_reference.json`` holds sessions (the samples, and seeded random trees with every
entry type omp 18.3 writes, orphans, labels, branches and tool calls), a height, width, filter and a
key sequence, and what the reference selector printed and selected after each key (its ``meta`` says
how it was produced and what was stubbed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.sessions import load_session
from workbench.tree import TreeList

HERE = Path(__file__).parent
SAMPLES = HERE.parent.parent / "sample_sessions"
DOC = json.loads((HERE / "fixtures" / "omp18_tree_reference.json").read_text(encoding="utf-8"))


def _entries(case: dict) -> list:
    if "sample" in case:
        return list(load_session(SAMPLES / case["sample"]).entries)
    return case["entries"]


@pytest.mark.parametrize("index", range(len(DOC["cases"])), ids=lambda i: f"case{i}")
def test_omp18_tree_matches_the_reference_selector(index):
    case = DOC["cases"][index]
    kwargs = {"flavor": "omp18", "height": case["height"], "width": case["width"], "filter_mode": case["filter"],
              "home": case["home"]}
    if "leaf" in case:
        kwargs["leaf"] = case["leaf"]
    state = TreeList(_entries(case), **kwargs)
    steps = case["steps"]
    assert len(steps) == len(case["keys"]) + 1
    for i, step in enumerate(steps):
        if i:
            state = state.press(case["keys"][i - 1])
        where = f"after {case['keys'][:i]}"
        assert state.lines() == step["lines"], where
        assert state.selected_id == step["selected"], where
