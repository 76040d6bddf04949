"""The branch forest of a session's entries: nodes, children order, orphans and cycle breaks (spec §4).

``build_forest`` links every entry under its parent (a later duplicate id wins the lookup), makes
orphans and self-parents roots, cuts parent cycles where they close, and sorts children by timestamp
the way the agent's comparator does. Iterative and linear: 100k-entry chains are normal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cmp_to_key

from workbench.sessions.entries import Entry


@dataclass(slots=True, eq=False)
class TreeNode:
    """One node of ``get_tree()``: the entry, its children (timestamp order) and its resolved label."""

    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None

    @property
    def id(self) -> str:
        return self.entry.id


def _sort_children(children: list[TreeNode]) -> None:
    """The agent sorts children by ``Date.parse(timestamp)`` with a comparator (ties keep file order)."""
    if len(children) < 2:
        return
    keys = [c.entry.timestamp_ms for c in children]
    if all(k is not None for k in keys):
        children.sort(key=lambda c: c.entry.timestamp_ms)  # type: ignore[arg-type, return-value]  # stable: ties keep file order
        return

    # Some Date.parse results are NaN: the JS comparator then answers 0 ("equal"), no total order.
    def cmp(a: TreeNode, b: TreeNode) -> int:
        ka, kb = a.entry.timestamp_ms, b.entry.timestamp_ms
        if ka is None or kb is None or ka == kb:
            return 0
        return -1 if ka < kb else 1

    children.sort(key=cmp_to_key(cmp))


def build_forest(entries: list[Entry], labels: Mapping[str, str]) -> tuple[list[TreeNode], dict[str, TreeNode]]:
    """Roots in file order (children sorted by timestamp, stable) and the node each id resolves to.

    Quirk kept (the agent's ``getTree``): nodes are looked up by id, so when two entries share an id
    the later entry's node is placed once for each of them (under each one's parent) and the earlier
    entry appears nowhere in the tree.
    """
    node_of: dict[str, TreeNode] = {}
    where: dict[str, int] = {}  # id → position of the node that id resolves to (a later duplicate wins)
    nodes: list[TreeNode] = []
    for i, e in enumerate(entries):
        node = TreeNode(e, [], labels.get(e.id))
        nodes.append(node)
        node_of[e.id] = node
        where[e.id] = i
    roots: list[TreeNode] = []
    # When every parent comes earlier in file order, chains only go back: no cycles, all reachable.
    backward = True
    placed = nodes if len(node_of) == len(nodes) else [node_of[e.id] for e in entries]
    for i, entry in enumerate(entries):
        node = placed[i]
        pid = entry.parent_id
        if pid is None or pid == entry.id:
            roots.append(node)
            continue
        parent = node_of.get(pid)
        if parent is None:
            roots.append(node)
        else:
            parent.children.append(node)
            if where[pid] >= i:
                backward = False
    if not backward:
        _break_cycles(list(node_of.values()), roots, node_of)
    for node in node_of.values():
        if len(node.children) > 1:
            _sort_children(node.children)
    return roots, node_of


def _break_cycles(nodes: list[TreeNode], roots: list[TreeNode], node_of: dict[str, TreeNode]) -> None:
    """Parent cycles are unreachable from any root: cut each loop where it closes (file order)."""

    def parent_of(node: TreeNode) -> TreeNode:
        pid = node.entry.parent_id
        return node_of[pid]  # type: ignore[index]  # only called on attached (non-root) nodes

    reached = _reach(roots)
    if len(reached) == len(nodes):
        return
    for node in nodes:
        if id(node) in reached:
            continue
        walk: set[int] = set()
        cur = node
        while id(cur) not in walk and id(cur) not in reached:
            walk.add(id(cur))
            cur = parent_of(cur)
        if id(cur) in reached:
            continue
        parent_of(cur).children.remove(cur)
        roots.append(cur)
        reached |= _reach([cur])


def _reach(roots: list[TreeNode]) -> set[int]:
    """Ids (``id()``) of the nodes reachable from ``roots``."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(node.children)
    return seen
