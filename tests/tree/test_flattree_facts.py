"""The flattened tree's shortcuts give the plain answers: on generated sessions with orphans, self-parents,
parent cycles, duplicate ids and reused tool-call ids, each fact ``FlatTree`` computes the quick way
equals the same fact computed the plain way (a walk, a scan in display order, the dataclass)."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from tests.sessions.generated import tangled_records
from workbench.sessions.entries import Entry, make_entry
from workbench.sessions.tree import SessionTree
from workbench.tree.flattree import TreeRow
from workbench.tree.treelist import TreeList


def _flat(recs: list[dict], flavor: str, leaf: str | None):
    return TreeList(SessionTree(recs, leaf=leaf, flavor=flavor), flavor=flavor, leaf=leaf, search_index="off")._b


def _cases():
    for seed in range(40):
        rng = random.Random(f"facts-{seed}")
        recs = tangled_records(rng, rng.randint(1, 80), duplicates=seed % 3 == 0, loops=seed % 2 == 0)
        flavor = ("omp", "omp18", "pi", "omp57")[seed % 4]
        leaf = rng.choice([r["id"] for r in recs] + ["nowhere", None])
        yield pytest.param(recs, flavor, leaf, id=f"{seed}-{flavor}")


@pytest.mark.parametrize(("recs", "flavor", "leaf"), _cases())
def test_active_rows_are_the_parent_walk(recs, flavor, leaf):
    flat = _flat(recs, flavor, leaf)
    walk = flat._walk_active_path()
    assert flat.active_nodes == {n for n, eid in enumerate(flat.ids) if eid in walk}


@pytest.mark.parametrize(("recs", "flavor", "leaf"), _cases())
def test_tool_calls_are_the_display_order_scan(recs, flavor, leaf):
    flat = _flat(recs, flavor, leaf)
    assistants = [n for n, role in enumerate(flat.roles) if role == "assistant"]
    assert flat.tool_calls == flat._ordered_tool_calls(assistants)


@pytest.mark.parametrize(("recs", "flavor", "leaf"), _cases())
def test_rows_made_by_a_factory_are_the_tree_rows(recs, flavor, leaf):
    tl = TreeList(SessionTree(recs, leaf=leaf, flavor=flavor), flavor=flavor, leaf=leaf, search_index="off")
    assert tl.rows(make=lambda *values: TreeRow(*values)) == tl.rows()
    assert tl.rows(make=lambda *values: values) == [tuple(getattr(r, f.name) for f in fields(TreeRow)) for r in tl.rows()]


def test_make_entry_is_the_dataclass():
    rng = random.Random("entries")
    values = ["a", "", None, 0, 3, {"k": 1}, {}, [1], "é\U0001f600"]
    for _ in range(300):
        args = [rng.choice(values) for _ in fields(Entry)]
        made, plain = make_entry(*args), Entry(*args)
        assert made == plain and type(made) is Entry
        assert [getattr(made, f.name) for f in fields(Entry)] == [getattr(plain, f.name) for f in fields(Entry)]
    with pytest.raises(AttributeError):
        made.id = "other"  # type: ignore[misc]  # still frozen


def _nearest_visible_walk(flat, visible):
    """pi's visible forest written plainly: each visible row's parent is its nearest visible ancestor."""
    shown = set(visible)
    vparent, roots = {}, []
    for n in visible:
        p = flat.parent[n]
        while p >= 0 and p not in shown:
            p = flat.parent[p]
        if p < 0:
            roots.append(n)
        else:
            vparent[n] = p
    return vparent, roots


@pytest.mark.parametrize(("recs", "flavor", "leaf"), _cases())
def test_pi_visible_forest_is_the_nearest_visible_ancestor_walk(recs, flavor, leaf):
    from workbench.tree.treelayout import layout_forest, pi_visible_forest

    flat = _flat(recs, "pi", leaf)
    rng = random.Random(len(recs))
    for _ in range(6):
        keep = rng.random()
        visible = [n for n in flat.order if rng.random() < keep]
        forest = pi_visible_forest(flat, visible, frozenset())
        vparent, roots = _nearest_visible_walk(flat, visible)
        assert (forest.vparent, forest.roots) == (vparent, roots)
        assert forest.vchildren == {p: [n for n in visible if vparent.get(n) == p] for p in set(vparent.values())}
        active = set()
        for n in visible:  # the leaf's rows and their visible ancestors
            cur = n if flat.ids[n] == leaf else None
            while cur is not None and cur not in active:
                active.add(cur)
                cur = vparent.get(cur)
        assert forest.layout == layout_forest(roots, forest.vchildren, active)


def _tool_calls_walked(recs, leaf, flavor):
    """omp 18's tool-call index written plainly from ``get_tree()``: its roots last to first, each
    subtree in preorder, a later call of an id winning; other flavours: the display order."""
    tree = SessionTree(recs, leaf=leaf, flavor=flavor)
    flat = _flat(recs, flavor, leaf)
    if flavor == "omp18":
        order, stack = [], list(tree.get_tree())  # popping from the end: the last root first
        while stack:
            node = stack.pop()
            order.append(node.entry)
            stack.extend(reversed(node.children))
    else:
        order = [flat.entries[n] for n in flat.order]
    calls = {}
    for entry in order:
        msg = entry.obj.get("message")
        if entry.type == "message" and isinstance(msg, dict) and msg.get("role") == "assistant" \
                and isinstance(msg.get("content"), list):
            for block in msg["content"]:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    calls[block.get("id")] = (block.get("name"), block.get("arguments"))
    return calls


@pytest.mark.parametrize(("recs", "flavor", "leaf"), _cases())
@pytest.mark.parametrize("as_flavor", ["omp18", "omp"])
def test_tool_calls_follow_the_agents_walk(recs, flavor, leaf, as_flavor):
    assert _flat(recs, as_flavor, leaf).tool_calls == _tool_calls_walked(recs, leaf, as_flavor)
