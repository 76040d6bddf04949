"""The flattened `/tree` layout shared by every ``TreeList`` state (spec §8.2, §8.3, §8.7).

``FlatTree`` numbers the nodes of ``SessionTree.get_tree()`` once, lays them out (indent, connectors,
gutters) with the reference's rules, records every tool call for tool-result rows, and answers the
per-node filter question. All of it is iterative and linear: 100k-entry chains are normal.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workbench.sessions.fuzzy import index_text, word_match, word_prefilter
from workbench.sessions.rowtext import display_text, hidden_tool_call_only, search_text
from workbench.sessions.tree import SessionTree, TreeNode

Flavor = Literal["omp", "pi", "omp57"]
FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS: dict[str, str] = {"default": "", "no-tools": " [no-tools]", "user-only": " [user]",
                               "labeled-only": " [labeled]", "all": " [all]"}
_SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change"})


@dataclass(frozen=True, slots=True)
class Layout:
    indent: int
    just_branched: bool
    show_connector: bool
    is_last: bool
    gutters: tuple[tuple[int, bool], ...]  # (position, show)
    virtual_root_child: bool


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One visible row: ``line`` is the rendered text (cursor, prefix, markers, label, text)."""

    id: str
    type: str
    text: str
    label: str | None
    active: bool
    line: str
    depth: int
    index: int
    selected: bool
    role: str | None
    file_line: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "text": self.text, "label": self.label, "active": self.active,
                "line": self.line, "depth": self.depth, "selected": self.selected, "role": self.role,
                "fileLine": self.file_line}


def truncate_to_width(text: str, width: int) -> str:
    """Cut a line to ``width`` terminal cells (wide East Asian characters take two)."""
    cells = 0
    for i, ch in enumerate(text):
        cells += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if cells > width:
            return text[:i]
    return text


def layout_forest(roots: list[int], children: Mapping[int, list[int]], active: set[int]) -> dict[int, Layout]:
    """§8.2 layout over a forest of flat indices (iterative: chains of 100k entries are common)."""
    multiple = len(roots) > 1
    out: dict[int, Layout] = {}
    ordered = [r for r in roots if r in active] + [r for r in roots if r not in active]
    stack: list[tuple[int, Layout]] = []
    for i in range(len(ordered) - 1, -1, -1):
        stack.append((ordered[i], Layout(1 if multiple else 0, multiple, multiple, i == len(ordered) - 1, (), multiple)))
    order: list[int] = []
    while stack:
        node, lay = stack.pop()
        out[node] = lay
        order.append(node)
        kids = children.get(node, ())
        if not kids:
            continue
        many = len(kids) > 1
        kids_ordered = [k for k in kids if k in active] + [k for k in kids if k not in active] if many else list(kids)
        if many or (lay.just_branched and lay.indent > 0):
            child_indent = lay.indent + 1
        else:
            child_indent = lay.indent
        gutters = lay.gutters
        if lay.show_connector and not lay.virtual_root_child:
            disp = max(0, lay.indent - 1) if multiple else lay.indent
            gutters = gutters + ((max(0, disp - 1), not lay.is_last),)
        for i in range(len(kids_ordered) - 1, -1, -1):
            stack.append((kids_ordered[i], Layout(child_indent, many, many, i == len(kids_ordered) - 1, gutters, False)))
    out_ordered = {k: out[k] for k in order}
    return out_ordered


class FlatTree:
    """The flattened full tree of one (session, flavour, leaf): built once, shared by all states."""

    def __init__(self, tree: SessionTree, flavor: Flavor, leaf: str | None, home: str | None) -> None:
        self.flavor = flavor
        self.leaf = leaf
        self.home = home
        self.tree = tree
        roots = tree.get_tree()
        # Tree nodes → integers (file-order position) so everything below is dict/list lookups.
        nodes: list[TreeNode] = []
        num: dict[int, int] = {}
        parent: list[int] = []
        stack: list[tuple[TreeNode, int]] = [(r, -1) for r in reversed(roots)]
        while stack:
            node, par = stack.pop()
            num[id(node)] = len(nodes)
            nodes.append(node)
            parent.append(par)
            me = len(nodes) - 1
            for child in reversed(node.children):
                stack.append((child, me))
        children: dict[int, list[int]] = {}
        for i, node in enumerate(nodes):
            if node.children:
                children[i] = [num[id(c)] for c in node.children]
        active: set[int] = set()
        if leaf is not None:
            for i, node in enumerate(nodes):
                if node.entry.id == leaf:
                    j = i
                    while j >= 0 and j not in active:
                        active.add(j)
                        j = parent[j]
        layout = layout_forest([num[id(r)] for r in roots], children, active)
        self.order: list[int] = list(layout)  # flat display order (indices into nodes)
        self.nodes = nodes
        self.parent = parent
        self.children = children
        self.layout = layout
        self.multiple_roots = len(roots) > 1
        self.flat_index = {n: k for k, n in enumerate(self.order)}
        self.index_of: dict[str, int] = {}
        for n in self.order:
            self.index_of[nodes[n].entry.id] = n  # later duplicate wins, like the reference's Map
        # Tool calls of every assistant message in the whole tree (§8.2), visible or not.
        self.tool_calls: dict[str, tuple[Any, Any]] = {}
        for n in self.order:
            entry = nodes[n].entry
            msg = entry.message
            if msg is not None and msg.get("role") == "assistant" and isinstance(msg.get("content"), list):
                for block in msg["content"]:
                    if isinstance(block, Mapping) and block.get("type") == "toolCall":
                        self.tool_calls[block.get("id")] = (block.get("name"), block.get("arguments"))
        self.active_path: set[str] = set()
        cur = leaf
        while cur is not None and cur not in self.active_path:
            self.active_path.add(cur)
            k = self.index_of.get(cur)
            if k is None:
                break
            cur = nodes[k].entry.parent_id
        # Per-node facts every filter pass needs, computed once.
        self.hidden_always = [
            nodes[n].entry.id != leaf and hidden_tool_call_only(nodes[n].entry.obj, flavor) for n in range(len(nodes))
        ]
        self.types = [node.entry.type for node in nodes]
        self.roles = [node.entry.role for node in nodes]
        self._display: dict[int, str] = {}
        self._search: dict[int, str] = {}
        self._search_index: dict[int, Any] = {}
        self._lower: dict[int, str] = {}

    def display(self, n: int) -> str:
        text = self._display.get(n)
        if text is None:
            text = display_text(self.nodes[n].entry.obj, flavor=self.flavor, tool_calls=self.tool_calls, home=self.home)
            self._display[n] = text
        return text

    def search(self, n: int) -> str:
        text = self._search.get(n)
        if text is None:
            node = self.nodes[n]
            text = search_text(node.entry.obj, node.label, flavor=self.flavor)
            self._search[n] = text
        return text

    def passes(self, n: int, mode: str, tokens: list[str]) -> bool:
        if self.hidden_always[n]:
            return False
        etype = self.types[n]
        if mode == "default":
            ok = etype not in _SETTINGS_TYPES
        elif mode == "no-tools":
            ok = etype not in _SETTINGS_TYPES and self.roles[n] != "toolResult"
        elif mode == "user-only":
            ok = etype == "message" and self.roles[n] == "user"
        elif mode == "labeled-only":
            ok = self.nodes[n].label is not None
        else:
            ok = True
        if not ok or not tokens:
            return ok
        if self.flavor == "omp":
            low = self._lower.get(n)
            if low is None:
                low = self._lower[n] = self.search(n).lower()
            for tok in tokens:
                pattern = word_prefilter(tok)
                if pattern is not None and pattern.search(low) is None:
                    return False
            index = self._search_index.get(n)
            if index is None:
                index = index_text(self.search(n))
                self._search_index[n] = index
            return all(word_match(tok, index).matches for tok in tokens)
        text = self.search(n).lower()
        return all(tok in text for tok in tokens)




def render_prefix(
    lay: Layout, *, multiple_roots: bool, flavor: Flavor, fold_glyph: str | None, width: int | None
) -> tuple[str, int, bool]:
    """The indent cells of one row: gutters, its own connector, omp17's chain anchor and width cap.

    ``fold_glyph`` (pi only) replaces the connector's middle ``─``: ``⊟`` foldable, ``⊞`` folded.
    Returns (prefix, display indent, whether the row draws a connector).
    """
    disp = max(0, lay.indent - 1) if multiple_roots else lay.indent
    has_conn = lay.show_connector and not lay.virtual_root_child
    gutters = {pos: show for pos, show in lay.gutters}
    anchor = -1
    if flavor == "omp" and not has_conn and lay.gutters and not lay.gutters[-1][1]:
        anchor = lay.gutters[-1][0] + 1  # omp17 chain anchor: a "│" continuing under a └─
    cells: list[str] = []
    for level in range(disp):
        if level in gutters:
            cells.append("│  " if gutters[level] else "   ")
        elif has_conn and level == disp - 1:
            cells.append(("└" if lay.is_last else "├") + (fold_glyph or "─") + " ")
        elif level == anchor:
            cells.append("│  ")
        else:
            cells.append("   ")
    if width is not None and flavor == "omp":
        cap = max(1, (width - max(24, width // 2) - 4) // 3)
        if len(cells) > cap:
            cells = cells[len(cells) - cap:]
            cells[0] = "…" + cells[0][1:]
    return "".join(cells), disp, has_conn


@dataclass(frozen=True, slots=True)
class VisibleForest:
    """pi-mono's re-laid-out view: visible rows, their visible parents/children and the new layout."""

    visible: list[int]
    vparent: dict[int, int]
    vchildren: dict[int, list[int]]
    roots: list[int]
    layout: dict[int, Layout]


def pi_visible_forest(flat: FlatTree, visible: list[int], folded: frozenset[int]) -> VisibleForest:
    """Rebuild the forest of visible rows (parent = nearest visible ancestor), drop the descendants of
    folded rows, and lay it out again (§8.3, pi only); rows keep the flattened order."""
    vis = set(visible)
    nearest: dict[int, int] = {}
    vparent: dict[int, int] = {}
    vchildren: dict[int, list[int]] = {}
    roots: list[int] = []
    for n in flat.order:
        p = flat.parent[n]
        anc = nearest.get(p, -1) if p >= 0 else -1
        if n in vis:
            nearest[n] = n
            if anc < 0:
                roots.append(n)
            else:
                vparent[n] = anc
                vchildren.setdefault(anc, []).append(n)
        else:
            nearest[n] = anc
    children = vchildren
    if folded:
        hidden: set[int] = set()
        for n in visible:
            p = vparent.get(n)
            if p is not None and (p in folded or p in hidden):
                hidden.add(n)
        visible = [n for n in visible if n not in hidden]
        kept = set(visible)
        children = {k: [c for c in v if c in kept] for k, v in vchildren.items() if k in kept and k not in folded}
        roots = [r for r in roots if r in kept]
    # containsActive on the visible forest: the (visible) leaf row and its visible ancestors.
    active: set[int] = set()
    for n in visible:
        if flat.nodes[n].entry.id != flat.leaf:
            continue
        cur: int | None = n
        while cur is not None and cur not in active:
            active.add(cur)
            cur = vparent.get(cur)
    return VisibleForest(visible, vparent, vchildren, roots, layout_forest(roots, children, active))
