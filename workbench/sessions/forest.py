"""The branch forest of a session's entries: nodes, children order, orphans and cycle breaks (docs/flavours.md, "The branch tree and labels").

``build_positions`` links every entry under its parent (a later duplicate id wins the lookup), makes
orphans and self-parents roots, cuts parent cycles where they close, and sorts children by timestamp
the way the agent's comparator does. It works on entry positions (integers), which is what the
flattened `/tree` list needs; ``build_forest`` dresses the same forest as ``TreeNode`` objects for
``SessionTree.get_tree()``. Iterative and linear: 100k-entry chains are normal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key

from workbench.sessions.entries import Entry, EntryLinks


@dataclass(slots=True, eq=False)
class TreeNode:
    """One node of ``get_tree()``: the entry, its children (timestamp order) and its resolved label."""

    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None

    @property
    def id(self) -> str:
        return self.entry.id


@dataclass(frozen=True, slots=True)
class Positions:
    """The forest over entry positions: node ``p`` is ``entries[p]``.

    ``roots``: file order, then the ``cut`` nodes where cycles were cut (their parent exists).
    ``children``: only nodes that have some, in timestamp order. ``node_at``: the position each id
    resolves to (a later duplicate wins); its values, in its order, are the forest's nodes. With
    duplicate ids a node is placed once for each entry holding its id, so it can be listed under two
    parents.
    """

    roots: list[int]
    children: dict[int, list[int]]
    node_at: Mapping[str, int]
    cut: int = 0
    parent: list[int] | None = None  # each position's parent (-1: a root), when each entry is one node


def _sort_children(children: list[int], entries: Sequence[Entry]) -> None:
    """The agent sorts children by ``Date.parse(timestamp)`` with a comparator (ties keep file order)."""
    keys = {c: entries[c].timestamp_ms for c in children}
    if None not in keys.values():
        children.sort(key=keys.__getitem__)  # type: ignore[arg-type]  # stable: ties keep file order
        return

    # Some Date.parse results are NaN: the JS comparator then answers 0 ("equal"), no total order.
    def cmp(a: int, b: int) -> int:
        ka, kb = keys[a], keys[b]
        if ka is None or kb is None or ka == kb:
            return 0
        return -1 if ka < kb else 1

    children.sort(key=cmp_to_key(cmp))


def build_positions(entries: Sequence[Entry], links: EntryLinks | None = None) -> Positions:
    """Roots in file order (children sorted by timestamp, stable) and the position each id resolves to.

    ``links``: what the loader found for these entries (each id's position, and each entry's parent
    position when it could tell); what it lacks is looked up here. Quirk kept (the agent's
    ``getTree``): nodes are looked up by id, so when two entries share an id the later entry's node is
    placed once for each of them (under each one's parent) and the earlier entry appears nowhere in
    the tree.
    """
    count = len(entries)
    if links is not None:
        node_at = links.position  # shared: nothing changes it
    else:
        node_at = dict(zip([e.id for e in entries], range(count)))  # in C; a later duplicate overwrites, like a Map
    placed: Sequence[int] = range(count) if len(node_at) == count else [node_at[e.id] for e in entries]
    parents = links.parents if links is not None else None
    if parents is None:
        # Each entry's parent as looked up, by a C-level map (None: no parent or a missing one). A
        # parent that resolves to the entry's own node is its own id: a self-parent, a root.
        found = map(node_at.get, [e.parent_id for e in entries])  # type: ignore[arg-type]
        parents = [-1 if p is None or p == node else p for p, node in zip(found, placed)]
    up = [-1] * count  # the forest's parent links, meaningful when each entry is one node
    roots: list[int] = []
    children: dict[int, list[int]] = {}
    kids_of = children.get
    # When every parent comes earlier in file order, chains only go back: no cycles, all reachable.
    backward = True
    for i, p in enumerate(parents):
        node = placed[i]
        if p < 0:
            roots.append(node)
            continue
        up[i] = p
        kids = kids_of(p)
        if kids is None:
            children[p] = [node]
        else:
            kids.append(node)
        if p > i:
            backward = False
    uncut = len(roots)
    if not backward:
        _break_cycles(list(node_at.values()), roots, children, lambda n: node_at[entries[n].parent_id])  # type: ignore[index]
    for kids in children.values():
        if len(kids) > 1:
            _sort_children(kids, entries)
    for r in roots[uncut:]:
        up[r] = -1  # cut where a cycle closed
    return Positions(roots, children, node_at, len(roots) - uncut, up if len(node_at) == count else None)


def build_forest(entries: Sequence[Entry], labels: Mapping[str, str],
                 positions: Positions | None = None) -> tuple[list[TreeNode], dict[str, TreeNode]]:
    """``build_positions`` as ``TreeNode`` objects: the roots and the node each id resolves to."""
    forest = positions if positions is not None else build_positions(entries)
    node_of = {p: TreeNode(entries[p], [], labels.get(entries[p].id)) for p in forest.node_at.values()}
    for p, kids in forest.children.items():
        node_of[p].children = [node_of[k] for k in kids]
    return [node_of[r] for r in forest.roots], {eid: node_of[p] for eid, p in forest.node_at.items()}


def _break_cycles(nodes: list[int], roots: list[int], children: dict[int, list[int]],
                  parent_of: Callable[[int], int]) -> None:
    """Parent cycles are unreachable from any root: cut each loop where it closes (file order).

    ``parent_of`` is only called on attached (non-root) nodes.
    """
    reached = _reach(roots, children)
    if len(reached) == len(nodes):
        return
    for node in nodes:
        if node in reached:
            continue
        walk: set[int] = set()
        cur = node
        while cur not in walk and cur not in reached:
            walk.add(cur)
            cur = parent_of(cur)
        if cur in reached:
            continue
        children[parent_of(cur)].remove(cur)
        roots.append(cur)
        reached |= _reach([cur], children)


def _reach(roots: list[int], children: dict[int, list[int]]) -> set[int]:
    """The nodes reachable from ``roots``."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(children.get(node, ()))
    return seen
