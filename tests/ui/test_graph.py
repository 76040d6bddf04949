"""Lane layout of the branch graph."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.ui.graph import build_figure, layout


@dataclass
class Node:
    id: str
    children: list = field(default_factory=list)


def test_active_branch_keeps_lane_zero_and_branches_open_lanes():
    b1, b2 = Node("b1", [Node("b1x")]), Node("b2", [Node("b2x")])
    root = Node("r", [Node("a", [b1, b2])])
    lay = layout([root], active={"r", "a", "b2", "b2x"})
    pos = dict(zip(lay.ids, zip(lay.xs, lay.ys)))
    assert [pos[i][0] for i in ("r", "a", "b2", "b2x")] == [0, 0, 0, 0]
    assert pos["b1"][0] == pos["b1x"][0] == 1
    assert lay.ids.index("b2") < lay.ids.index("b1")  # the active child is drawn first
    assert [lay.ids[i] for i in lay.branch_points] == ["a"]
    assert lay.parents[lay.ids.index("b1x")] == lay.ids.index("b1")


def test_rows_follow_file_order_and_lanes_are_reused():
    # r -> a -> (b [active], c); c's branch and a later branch d off b's chain do not overlap in time
    c = Node("c", [Node("cx")])
    d = Node("d")
    b = Node("b", [Node("bx", [Node("by"), d])])
    root = Node("r", [Node("a", [b, c])])
    order = {"r": 0, "a": 1, "c": 2, "cx": 3, "b": 4, "bx": 5, "by": 6, "d": 7}
    lay = layout([root], active={"r", "a", "b", "bx", "by"}, order=order)
    pos = dict(zip(lay.ids, zip(lay.xs, lay.ys)))
    assert [pos[i][1] for i in ("r", "a", "c", "b")] == [0, -1, -2, -4]
    assert {pos[i][0] for i in ("r", "a", "b", "bx", "by")} == {0}
    assert pos["c"][0] == pos["cx"][0] == 1
    assert pos["d"][0] == 1  # rows 5..7 are free in lane 1 once c's branch ended at row 3


def test_deep_chain_does_not_recurse():
    root = cur = Node("n0")
    for i in range(1, 5000):
        nxt = Node(f"n{i}")
        cur.children.append(nxt)
        cur = nxt
    lay = layout([root], active={"n4999"})
    assert len(lay.ids) == 5000 and set(lay.xs) == {0.0}


def test_figure_hover_text_and_selection_callback():
    picked = []
    root = Node("r", [Node("c")])
    lay = layout([root], active={"r", "c"})
    fig, sel = build_figure(lay, {}, {"r", "c"}, {"c": "lab"}, lambda e: "", on_select=picked.append)
    nodes = next(r.data_source for r in fig.renderers if "id" in r.data_source.data)
    assert nodes.data["label"] == ["", "lab"]
    nodes.selected.indices = [1]
    assert picked == ["c"]


def test_marking_an_entry_moves_the_dots_own_selection_with_it():
    from bokeh.models import TapTool

    from workbench.ui.graph import mark_selected

    root = Node("r", [Node("c")])
    lay = layout([root], active={"r", "c"})
    fig, ring = build_figure(lay, {}, {"r", "c"}, {}, lambda e: "")
    nodes = next(r.data_source for r in fig.renderers if "id" in r.data_source.data)
    assert fig.select_one(TapTool).mode == "replace"  # a click on the selected dot keeps it selected
    nodes.selected.indices = [0]  # a click on r
    mark_selected(fig, ring, lay, "c")  # then c is picked in the list: a click on r must change the selection
    assert nodes.selected.indices == [1] and ring.data["y"] == [lay.ys[1]]
    mark_selected(fig, ring, lay, "elsewhere")  # outside this graph window
    assert nodes.selected.indices == [] and ring.data["x"] == []


def _layout_walking_subtrees(roots, active, order=None):
    """The layout with children ordered by a subtree walk per child, as it was first written (the oracle)."""
    def holds(node):
        return node.id in active or any(holds(c) for c in node.children)

    ids, parents, chains, chain_of = [], [], [], []
    stack = [(r, -1, -1) for r in reversed(sorted(roots, key=lambda n: 0 if holds(n) else 1))]
    while stack:
        node, parent, chain = stack.pop()
        if chain < 0:
            chain = len(chains)
            chains.append([])
        ids.append(node.id)
        parents.append(parent)
        chain_of.append(chain)
        kids = sorted(node.children, key=lambda n: 0 if holds(n) else 1)
        for k, child in reversed(list(enumerate(kids))):
            stack.append((child, len(ids) - 1, chain if k == 0 else -1))
    return ids, parents, chain_of


def test_children_order_equals_a_subtree_walk_per_child_on_random_forests():
    import random

    rng = random.Random(25)
    for _ in range(200):
        nodes = [Node(f"n{i % 40}") for i in range(rng.randint(1, 80))]  # ids may repeat
        roots = []
        for k, node in enumerate(nodes):
            if k == 0 or rng.random() < 0.15:
                roots.append(node)
            else:
                nodes[rng.randrange(k)].children.append(node)
        active = {f"n{rng.randrange(40)}" for _ in range(rng.randint(0, 4))}  # not closed under ancestors
        lay = layout(roots, active)
        ids, parents, _ = _layout_walking_subtrees(roots, active)
        assert lay.ids == ids and lay.parents == parents
