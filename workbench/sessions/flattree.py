"""The flattened `/tree` layout shared by every ``TreeList`` state (spec §8.2, §8.3, §8.7).

``FlatTree`` numbers the nodes of ``SessionTree.get_tree()`` once, lays them out (indent, connectors,
gutters) with the reference's rules, records every tool call for tool-result rows, and answers the
per-node filter question. All of it is iterative and linear: 100k-entry chains are normal.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from workbench.sessions.wordfilter import norm_matches, normalize_many, word_query
from workbench.sessions.rowtext import display_text, hidden_tool_call_only, search_text
from workbench.sessions.tree import SessionTree, TreeNode

Flavor = Literal["omp", "pi", "omp57"]
FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS: dict[str, str] = {"default": "", "no-tools": " [no-tools]", "user-only": " [user]",
                               "labeled-only": " [labeled]", "all": " [all]"}
_SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change"})


class Layout(NamedTuple):
    """Where one row sits (§8.2): a plain tuple, because 100k of them are built per flattening."""

    indent: int
    just_branched: bool
    show_connector: bool
    is_last: bool
    gutters: tuple[tuple[int, bool], ...]  # (position, show); shared by siblings, extended per level
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
    """§8.2 layout over a forest of flat indices, in display order (iterative: 100k-entry chains are common).

    A node's gutters tuple is built once per parent and shared by all its children, so a long chain
    holds one tuple, and ``render_prefix`` can memoize on it.
    """
    multiple = len(roots) > 1
    out: dict[int, Layout] = {}
    new = tuple.__new__
    ordered = [r for r in roots if r in active] + [r for r in roots if r not in active]
    stack: list[tuple[int, Layout]] = []
    for i in range(len(ordered) - 1, -1, -1):
        stack.append((ordered[i], new(Layout, (1 if multiple else 0, multiple, multiple, i == len(ordered) - 1, (),
                                               multiple))))
    pop = stack.pop
    push = stack.append
    get_kids = children.get
    while stack:
        node, lay = pop()
        out[node] = lay
        kids = get_kids(node)
        if not kids:
            continue
        indent, just_branched, show_connector, is_last, gutters, vroot = lay
        if len(kids) == 1:
            # The common case (a chain): same indent unless the parent just branched.
            child_indent = indent + 1 if (just_branched and indent > 0) else indent
            if show_connector and not vroot:
                disp = max(0, indent - 1) if multiple else indent
                gutters = gutters + ((max(0, disp - 1), not is_last),)
            push((kids[0], new(Layout, (child_indent, False, False, True, gutters, False))))
            continue
        kids_ordered = [k for k in kids if k in active] + [k for k in kids if k not in active]
        child_indent = indent + 1
        if show_connector and not vroot:
            disp = max(0, indent - 1) if multiple else indent
            gutters = gutters + ((max(0, disp - 1), not is_last),)
        last = len(kids_ordered) - 1
        for i in range(last, -1, -1):
            push((kids_ordered[i], new(Layout, (child_indent, True, True, i == last, gutters, False))))
    return out


class FlatTree:
    """The flattened full tree of one (session, flavour, leaf): built once, shared by all states.

    It also holds every cache the states of one ``TreeList`` family share: display and search texts,
    their lowered / normalized forms, the rows of each filter mode and recent search results.
    """

    def __init__(self, tree: SessionTree, flavor: Flavor, leaf: str | None, home: str | None) -> None:
        self.flavor = flavor
        self.leaf = leaf
        self.home = home
        self.tree = tree
        roots = tree.get_tree()
        # Tree nodes → integers (display-independent DFS preorder) so everything below is list lookups.
        nodes: list[TreeNode] = []
        parent: list[int] = []
        children: dict[int, list[int]] = {}
        stack: list[tuple[TreeNode, int]] = [(r, -1) for r in reversed(roots)]
        pop = stack.pop
        push = stack.append
        while stack:
            node, par = pop()
            me = len(nodes)
            nodes.append(node)
            parent.append(par)
            if par >= 0:
                kids = children.get(par)
                if kids is None:
                    children[par] = [me]
                else:
                    kids.append(me)  # popped in node.children order, so the list keeps that order
            ch = node.children
            if ch:
                for k in range(len(ch) - 1, -1, -1):
                    push((ch[k], me))
        entries = [node.entry for node in nodes]
        ids = [e.id for e in entries]
        active: set[int] = set()
        if leaf is not None:
            for i, eid in enumerate(ids):
                if eid == leaf:
                    j = i
                    while j >= 0 and j not in active:
                        active.add(j)
                        j = parent[j]
        root_nums = [i for i, p in enumerate(parent) if p < 0]  # preorder keeps the roots' order
        layout = layout_forest(root_nums, children, active)
        self.order: list[int] = list(layout)  # flat display order (indices into nodes)
        self.nodes = nodes
        self.entries = entries
        self.ids = ids
        self.parent = parent
        self.children = children
        self.layout = layout
        self.multiple_roots = len(roots) > 1
        self.index_of: dict[str, int] = {}
        index_of = self.index_of
        for n in self.order:
            index_of[ids[n]] = n  # later duplicate wins, like the reference's Map
        # Per-node facts every filter pass needs, computed once in one pass; tool calls of every
        # assistant message in the whole tree (§8.2), visible or not, in display order.
        self.tool_calls: dict[str, tuple[Any, Any]] = {}
        tool_calls = self.tool_calls
        count = len(nodes)
        types: list[str] = [""] * count
        roles: list[str | None] = [None] * count
        hidden: list[bool] = [False] * count
        for n in self.order:
            entry = entries[n]
            etype = entry.type
            types[n] = etype
            if etype != "message":
                continue
            obj = entry.data if entry.data is not None else entry.raw
            msg = obj.get("message")
            if not isinstance(msg, Mapping):
                continue
            role = msg.get("role")
            if not isinstance(role, str):
                continue
            roles[n] = role
            if role == "assistant":
                content = msg.get("content")
                if isinstance(content, list):
                    for block in content:
                        if isinstance(block, Mapping) and block.get("type") == "toolCall":
                            tool_calls[block.get("id")] = (block.get("name"), block.get("arguments"))
                hidden[n] = ids[n] != leaf and hidden_tool_call_only(obj, flavor)
        self.types = types
        self.roles = roles
        self.hidden_always = hidden
        self.active_path: set[str] = set()
        cur = leaf
        while cur is not None and cur not in self.active_path:
            self.active_path.add(cur)
            k = index_of.get(cur)
            if k is None:
                break
            cur = entries[k].parent_id
        self._display: list[str | None] = [None] * count
        self._search: list[str | None] = [None] * count
        self._lower: list[str | None] = [None] * count
        self._norm: list[str | None] = [None] * count
        self._by_mode: dict[str, list[int]] = {}
        self._found: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self.prefix_memo: dict[tuple[Any, ...], tuple[str, int, bool]] = {}

    def display(self, n: int) -> str:
        text = self._display[n]
        if text is None:
            text = display_text(self.entries[n].obj, flavor=self.flavor, tool_calls=self.tool_calls, home=self.home)
            self._display[n] = text
        return text

    def search(self, n: int) -> str:
        text = self._search[n]
        if text is None:
            node = self.nodes[n]
            text = search_text(node.entry.obj, node.label, flavor=self.flavor)
            self._search[n] = text
        return text

    def _fill(self, cache: list[str | None], rows: list[int], make: Any) -> list[str]:
        """Fill ``cache`` for ``rows`` (only the missing ones, ``make`` maps a list of texts)."""
        missing = [n for n in rows if cache[n] is None]
        if missing:
            for n, value in zip(missing, make([self.search(n) for n in missing])):
                cache[n] = value
        return cache  # type: ignore[return-value]

    def lowered(self, rows: list[int]) -> list[str]:
        """Lowercased search texts (pi / omp57 substring search), filled for ``rows`` on first use."""
        return self._fill(self._lower, rows, lambda texts: [t.lower() for t in texts])

    def normalized(self, rows: list[int]) -> list[str]:
        """Normalized search texts (omp17 word search), filled for ``rows`` on first use in one batch."""
        return self._fill(self._norm, rows, normalize_many)

    def mode_rows(self, mode: str) -> list[int]:
        """Display-order nodes shown by a filter mode with no search (cached per mode)."""
        rows = self._by_mode.get(mode)
        if rows is None:
            rows = [n for n in self.order if self.passes(n, mode, [])]
            self._by_mode[mode] = rows
        return rows

    def filtered(self, mode: str, tokens: list[str]) -> list[int]:
        """Display-order nodes shown by a filter mode and search tokens (recent results are kept).

        Results for a query's leading tokens are reused: "user 12" filters the rows of "user".
        """
        key = (mode, tuple(tokens))
        found = self._found.get(key)
        if found is not None:
            return found
        if not tokens:
            return self.mode_rows(mode)
        rows = self.filtered(mode, tokens[:-1])
        tok = tokens[-1]
        if self.flavor == "omp":
            toks = word_query(tok)
            if toks is not None:
                norm = self.normalized(rows)
                rows = [n for n in rows if norm_matches(toks, norm[n])]
        else:
            low = self.lowered(rows)
            rows = [n for n in rows if tok in low[n]]
        if len(self._found) >= 64:
            self._found.pop(next(iter(self._found)))
        self._found[key] = rows
        return rows

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
            norm = self.normalized([n])[n]
            for tok in tokens:
                toks = word_query(tok)
                if toks is not None and not norm_matches(toks, norm):
                    return False
            return True
        text = self.lowered([n])[n]
        return all(tok in text for tok in tokens)


def render_prefix(
    lay: Layout, *, multiple_roots: bool, flavor: Flavor, fold_glyph: str | None, width: int | None,
    memo: dict[tuple[Any, ...], tuple[str, int, bool]] | None = None,
) -> tuple[str, int, bool]:
    """The indent cells of one row: gutters, its own connector, omp17's chain anchor and width cap.

    ``fold_glyph`` (pi only) replaces the connector's middle ``─``: ``⊟`` foldable, ``⊞`` folded.
    Returns (prefix, display indent, whether the row draws a connector). ``memo`` caches prefixes by
    the layout's shared gutter tuple (by identity: the memo must live no longer than the layout), so a
    deep tree costs O(depth) per distinct prefix, not per row.
    """
    key = None
    if memo is not None:
        key = (id(lay.gutters), lay.indent, lay.show_connector, lay.is_last, lay.virtual_root_child,
               multiple_roots, flavor, fold_glyph, width)
        hit = memo.get(key)
        if hit is not None:
            return hit
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
    out = ("".join(cells), disp, has_conn)
    if memo is not None:
        memo[key] = out
    return out


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
