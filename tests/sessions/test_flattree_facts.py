"""The flattened tree's shortcuts give the plain answers: on generated sessions with orphans, self-parents,
parent cycles, duplicate ids and reused tool-call ids, each fact ``FlatTree`` computes the quick way
equals the same fact computed the plain way (a walk, a scan in display order, the dataclass)."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from workbench.sessions.entries import Entry, make_entry
from workbench.sessions.flattree import TreeRow
from workbench.sessions.tree import SessionTree
from workbench.sessions.treelist import TreeList


def _session(rng: random.Random, n: int, *, duplicates: bool, loops: bool) -> list[dict]:
    recs: list[dict] = []
    ids: list[str] = []
    # An id reused by a later entry is never anyone's parent: the agent's getTree would place that
    # later node under its own descendants, a tree without end (the flattening would never stop).
    parents: set[str] = set()
    reused: set[str] = set()
    for i in range(n):
        free = [x for x in ids if x not in parents]
        eid = f"e{i}"
        if duplicates and free and rng.random() < 0.1:
            eid = rng.choice(free)
            reused.add(eid)
        usable = [x for x in ids if x not in reused]
        r = rng.random()
        if not usable or r < 0.05:
            parent = None
        elif r < 0.1:
            parent = f"gone{i}"  # an orphan
        elif r < 0.13 and eid not in reused:
            parent = eid  # its own parent
        elif loops and not duplicates and r < 0.2:
            parent = f"e{i + rng.randint(1, 3)}"  # a later entry: parent cycles
        else:
            parent = usable[-1] if rng.random() < 0.8 else rng.choice(usable)
        if parent is not None:
            parents.add(parent)
        kind = rng.random()
        if kind < 0.3:
            rec = {"type": "message", "message": {"role": "user", "content": f"u{i}"}}
        elif kind < 0.6:
            blocks = [{"type": "toolCall", "id": f"t{rng.randint(0, 8)}", "name": rng.choice(["read", "bash", "ls"]),
                       "arguments": {"path": f"/p/{i}", "command": f"c{i}"}} for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.5:
                blocks.insert(0, {"type": "text", "text": f"a{i}"})
            rec = {"type": "message", "message": {"role": "assistant", "content": blocks,
                                                  "stopReason": rng.choice(["toolUse", "stop", "error"])}}
        elif kind < 0.85:
            rec = {"type": "message", "message": {"role": "toolResult", "toolCallId": f"t{rng.randint(0, 8)}",
                                                  "toolName": "read", "content": "r"}}
        else:
            rec = {"type": "label", "targetId": rng.choice(ids) if ids else eid, "label": f"L{i}"}
        rec.update(id=eid, parentId=parent, timestamp=f"2026-01-01T00:{i // 60 % 60:02d}:{rng.randint(0, 59):02d}Z")
        recs.append(rec)
        ids.append(eid)
    return recs


def _flat(recs: list[dict], flavor: str, leaf: str | None):
    return TreeList(SessionTree(recs, leaf=leaf, flavor=flavor), flavor=flavor, leaf=leaf, search_index="off")._b


def _cases():
    for seed in range(40):
        rng = random.Random(f"facts-{seed}")
        recs = _session(rng, rng.randint(1, 80), duplicates=seed % 3 == 0, loops=seed % 2 == 0)
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
    from workbench.sessions.treelayout import layout_forest, pi_visible_forest

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
