"""The flattened `/tree` layout shared by every ``TreeList`` state (docs/flavours.md, "The `/tree` selector").

``FlatTree`` numbers the nodes of the session's forest (``SessionTree.positions()``) once, lays them
out (``treelayout``), records every tool call for tool-result rows, answers the filter question and
holds the caches all states of one ``TreeList`` share. All of it is iterative and linear: 100k-entry
chains are normal.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workbench.sessions import Positions
from workbench.sessions.entries import Entry
from workbench.sessions.flavors import Flavor
from workbench.sessions.tree import SessionTree
from workbench.tree.flavors import TreeFlavour, flavour

# Re-exported: treelist and older callers import the layout helpers from here.
from workbench.tree.treelayout import (
    Layout,
    Segments,
    VisibleForest,
    display_segments,
    layout_forest,
    pi_visible_forest,
    render_prefix,
)

__all__ = ["FILTER_MODES", "FILTER_TAGS", "FlatTree", "Layout", "TreeRow", "VisibleForest", "layout_forest",
           "pi_visible_forest", "render_prefix", "render_rows", "truncate_to_width"]
from workbench.tree.treesearch import IndexMode, TreeSearch

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS: dict[str, str] = {"default": "", "no-tools": " [no-tools]", "user-only": " [user]",
                               "labeled-only": " [labeled]", "all": " [all]"}


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


# Characters of search text mapped (lowered, normalized) per batch in ``FlatTree._fill``.
FILL_CHARS = 4 << 20


def truncate_to_width(text: str, width: int, *, ellipsis: bool = False) -> str:
    """Cut a line to ``width`` terminal cells (wide East Asian characters take two).

    ``ellipsis``: pi-tui 18's ``truncateToWidth`` default, a cut line ends with ``…`` within the width.
    """
    cells = 0
    for i, ch in enumerate(text):
        cells += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if cells > width:
            if not ellipsis:
                return text[:i]
            return truncate_to_width(text, max(0, width - 1)) + "…" if width >= 1 else ""
    return text


class FlatTree:
    """The flattened full tree of one (session, flavour, leaf): built once, shared by all states.

    It also holds every cache the states of one ``TreeList`` family share: display and search texts,
    their lowered / normalized forms, the rows of each filter mode and recent search results.
    """

    def __init__(self, tree: SessionTree, flavor: Flavor, leaf: str | None, home: str | None,
                 index: IndexMode = "auto") -> None:
        self.flavour: TreeFlavour = flavour(flavor)  # what differs between the agents, asked below
        self.flavor: Flavor = self.flavour.name
        self.leaf = leaf
        self.home = home
        self.tree = tree
        forest = tree.positions()
        every = tree.entries
        # Nodes are integers so everything below is list lookups: the entry positions when each
        # entry is one node (no two entries share an id), else (a node placed twice, under two
        # parents) numbers in DFS preorder.
        self.unique_ids = forest.parent is not None
        parent: list[int]
        if forest.parent is not None:
            entries = list(every)
            parent, children, root_nums = forest.parent, forest.children, list(forest.roots)
        else:
            at, parent, children = _preorder(forest)
            entries = list(map(every.__getitem__, at))
            root_nums = [i for i, p in enumerate(parent) if p < 0]  # preorder keeps the roots' order
        ids = [e.id for e in entries]
        count = len(entries)
        self.entries = entries
        self.ids = ids
        self.labels: list[str | None] = list(map(tree.labels.get, ids))
        self.parent = parent
        self.children = children  # never changed: it can be the forest's own
        active, on_path = _leaf_paths(ids, parent, leaf, unique=self.unique_ids)
        self.roots = root_nums  # the forest's order: file order, then where cycles were cut
        layout = self.flavour.layout(root_nums, children, on_path)
        self.order: list[int] = list(layout)  # flat display order (indices into entries)
        self.layout = layout
        self.multiple_roots = len(forest.roots) > 1
        if self.unique_ids:
            self.index_of: Mapping[str, int] = forest.node_at  # id → position is id → node here (never changed)
        else:
            self.index_of = dict(zip(map(ids.__getitem__, self.order), self.order))  # later duplicate wins, like a Map
        self._active_path: set[str] | None = None
        # The rows drawn with the active dot: nodes whose id is on the leaf's branch.
        self.active_nodes = self._active_nodes(active, on_path, forest.cut == 0)
        self._chains: dict[int, list[int]] = {}
        self._base_chain: tuple[list[int], dict[int, int]] | None = None
        self.pi_forests: dict[tuple[Any, ...], VisibleForest] = {}  # pi: laid-out visible forests, by query
        self._segments: Segments | None = None
        # Per-node facts every filter pass needs, computed once in one pass; tool calls of every
        # assistant message in the whole tree (the tool-result rows show them), visible or not.
        self.types: list[str] = [e.type for e in entries]
        self.roles, self.hidden_always, assistants, calls, blocks = _message_facts(entries, self.types, ids, leaf, self.flavour)
        self.tool_calls = self._tool_calls(assistants, calls, blocks)
        # What the filters treat as bookkeeping and as a user turn (omp 18.3 knows more types).
        self.settings_types = self.flavour.settings_types
        self._user_rows: list[bool] | None = None
        self._display: list[str | None] = [None] * count
        self._search: list[str | None] = [None] * count
        self._lower: list[str | None] = [None] * count
        self._norm: list[str | None] = [None] * count
        self._by_mode: dict[str, list[int]] = {}
        self._found: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self.prefix_memo: dict[tuple[Any, ...], tuple[str, int, bool]] = {}
        # the word index, maybe built in the background (treesearch.py)
        self.finder = TreeSearch(self.flavour, count, normalized=self.normalized, lowered=self.lowered,
                                 ancestor_chain=self.ancestor_chain, index=index)

    def _active_nodes(self, active: list[int], on_path: set[int], uncut: bool) -> set[int]:
        """The nodes whose id ``active_path`` holds.

        With one node per id and no cycle cut, the ``parentId`` walk follows the forest's parent
        links, which ``active`` already walked (leaf first): those nodes, the leaf's and its
        ancestors (``active_path`` then holds their ids, and maybe the leaf's id and the root's
        parent id naming no entry). A test holds the two equal.
        """
        if self.unique_ids and uncut:
            return on_path
        path = self.active_path
        return {n for n, eid in enumerate(self.ids) if eid in path}

    @property
    def active_path(self) -> set[str]:
        """Ids on the leaf's branch as ``parentId`` links give it: from the leaf up, through
        ``index_of``, until a missing id or an id met before (a parent cycle)."""
        if self._active_path is None:
            self._active_path = self._walk_active_path()
        return self._active_path

    def _walk_active_path(self) -> set[str]:
        path: set[str] = set()
        cur = self.leaf
        while cur is not None and cur not in path:
            path.add(cur)
            k = self.index_of.get(cur)
            if k is None:
                break
            cur = self.entries[k].parent_id
        return path

    def _tool_calls(self, assistants: list[int], calls: dict[Any, tuple[Any, Any]], blocks: int,
                    ) -> dict[Any, tuple[Any, Any]]:
        """Every tool call of the assistant messages (the tool-result rows show them), visible or not, by id: ``calls`` as
        gathered in node order, which is the answer unless an id is used twice. Then the one met
        last wins, in display order (omp 18: its roots last to first, each subtree in preorder)."""
        if blocks == len(calls) or len(assistants) < 2:
            return calls  # every id once: the order of the walk changes nothing
        return self._ordered_tool_calls(assistants)

    def _ordered_tool_calls(self, assistants: list[int]) -> dict[Any, tuple[Any, Any]]:
        if self.flavour.tool_calls_by_root:
            rank, root_of = _preorder_ranks(self.roots, self.children)
            assistants = sorted(assistants, key=lambda n: (-rank[root_of[n]], rank[n]))
        else:
            roles = self.roles
            assistants = [n for n in self.order if roles[n] == "assistant"]
        ordered: dict[Any, tuple[Any, Any]] = {}
        for n in assistants:
            _add_tool_calls(ordered, self.entries[n].obj["message"].get("content"))
        return ordered

    @property
    def user_rows(self) -> list[bool]:
        """Per node: a user turn, for the ``user-only`` filter (computed on first use)."""
        if self._user_rows is None:
            types = self.types
            if self.flavour.user_rows_by_request:
                request = self.flavour.user_request
                self._user_rows = [types[n] in ("message", "custom_message") and request(e.head)
                                   for n, e in enumerate(self.entries)]
            else:
                self._user_rows = [role == "user" for role in self.roles]  # roles are set on messages only
        return self._user_rows

    def segments(self) -> Segments:
        """The display order's chains (what pi's keystrokes rebuild the visible forest along), made once."""
        if self._segments is None:
            self._segments = display_segments(self.order, self.parent)
        return self._segments

    def ancestor_chain(self, n: int) -> list[int]:
        """Node ``n`` and its entry ancestors (``parentId`` looked up by id), nearest first; it stops
        at a missing parent or where the walk comes back to a node (a parent cycle). Cached per node.

        The longest chain made so far is kept with each node's position in it: a later walk stops
        where it meets that chain and borrows its tail (a C list copy), so moving the selection along
        a 100k-entry chain costs a few steps, not 100k. (A node met there was not walked yet, and the
        tail holds no walked node: it would have been met first. Same chain as a full walk.) Only
        chains ending at a root lend tails.
        """
        chain = self._chains.get(n)
        if chain is not None:
            return chain
        base = self._base_chain
        walked: list[int] = []
        seen: set[int] = set()
        index_of, entries = self.index_of, self.entries
        cur: int | None = n
        chain = walked
        while cur is not None and cur not in seen:
            if base is not None:
                k = base[1].get(cur)
                if k is not None:
                    chain = walked + base[0][k:]
                    break
            seen.add(cur)
            walked.append(cur)
            pid = entries[cur].parent_id
            cur = index_of.get(pid) if pid is not None else None
        # Only a chain that ends at a root can lend its tail: one that ends where it loops would lend
        # a tail missing the loop's nodes walked before the meeting point.
        if cur is None and (base is None or len(chain) > len(base[0])):
            self._base_chain = (chain, dict(zip(chain, range(len(chain)))))
        if len(self._chains) >= 4:
            self._chains.pop(next(iter(self._chains)))
        self._chains[n] = chain
        return chain

    def display(self, n: int) -> str:
        text = self._display[n]
        if text is None:
            entry = self.entries[n]
            text = self.flavour.display(entry.head, tool_calls=self.tool_calls, home=self.home)
            self._display[n] = text
        return text

    def search(self, n: int) -> str:
        text = self._search[n]
        if text is None:
            text = self._search_text(n)
            self._search[n] = text
        return text

    def _search_text(self, n: int) -> str:
        return self.flavour.search_text(self.entries[n].obj, self.labels[n])

    def _fill(self, cache: list[str | None], rows: list[int], make: Any) -> list[str]:
        """Fill ``cache`` for ``rows`` (only the missing ones, ``make`` maps a list of texts).

        The search texts made on the way are not kept (``search`` keeps those of the rows it is asked
        for: the shown ones): only the lowered or normalized form is what a search reads, and on a
        1 GB session the raw texts were a second gigabyte. ``make`` gets the texts in batches of about
        ``FILL_CHARS`` characters: the same answers (each text is mapped on its own), a bounded
        transient copy, and a thread building the index lets the page's own thread run between
        batches (one pass over 1 GB held the GIL for seconds; docs/large-sessions.md)."""
        missing = [n for n in rows if cache[n] is None]
        cached, made = self._search, self._search_text
        start, size = 0, 0
        texts: list[str] = []
        for k, n in enumerate(missing):
            text = cached[n]
            texts.append(made(n) if text is None else text)
            size += len(texts[-1])
            if size >= FILL_CHARS or k == len(missing) - 1:
                for m, value in zip(missing[start:k + 1], make(texts)):
                    cache[m] = value
                start, size, texts = k + 1, 0, []
        return cache  # type: ignore[return-value]

    def lowered(self, rows: list[int]) -> list[str]:
        """Lowercased search texts (pi / omp57 substring search), filled for ``rows`` on first use."""
        return self._fill(self._lower, rows, lambda texts: [t.lower() for t in texts])

    def normalized(self, rows: list[int]) -> list[str]:
        """Normalized search texts (omp17 / omp18 word search), filled for ``rows`` on first use in one batch."""
        return self._fill(self._norm, rows, self.flavour.normalise_many)

    def mode_rows(self, mode: str) -> list[int]:
        """Display-order nodes shown by a filter mode with no search (cached per mode)."""
        rows = self._by_mode.get(mode)
        if rows is None:
            # ``passes(n, mode, [])`` for every node, one comprehension per mode (100k rows).
            hidden, types, roles = self.hidden_always, self.types, self.roles
            settings = self.settings_types
            shown = [n for n in self.order if not hidden[n]]
            if mode == "default":
                rows = [n for n in shown if types[n] not in settings]
            elif mode == "no-tools":
                rows = [n for n in shown if types[n] not in settings and roles[n] != "toolResult"]
            elif mode == "user-only":
                users = self.user_rows
                rows = [n for n in shown if users[n]]
            elif mode == "labeled-only":
                labels = self.labels
                rows = [n for n in shown if labels[n] is not None]
            else:
                rows = shown
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
        # With the word index, only its candidate rows meet the exact test (a superset: same answer).
        if self.flavour.word_search:
            # The flavour's yes/no answer from the normalized text (no word index object per row).
            subtokens = self.flavour.query_tokens(tok)
            if subtokens is not None:
                rows = self.finder.word_filter(rows, subtokens, self.flavour.query_matcher(tok))
        else:
            # Once the index is built every lowered text is cached (it is built from them), and a
            # substring test per row (~50 ns) costs no more than the index's candidates, which grow
            # with the words a short token is in (a digit: half the vocabulary, 20 ms). Before that,
            # the index (its build waited for) spares making every row's text here.
            cand = self.finder.candidates([tok]) if self.finder.index is None else None
            if cand is not None:
                # Exact: a whitespace-free token occurs in a text only inside one of its chunks.
                rows = [n for n in rows if n in cand]
            else:
                low = self.lowered(rows)
                rows = [n for n in rows if tok in low[n]]
        if len(self._found) >= 24:  # ~24 lists of row numbers: bounded memory on 100k rows
            self._found.pop(next(iter(self._found)))
        self._found[key] = rows
        return rows

    def passes(self, n: int, mode: str, tokens: list[str]) -> bool:
        if self.hidden_always[n]:
            return False
        etype = self.types[n]
        settings = self.settings_types
        if mode == "default":
            ok = etype not in settings
        elif mode == "no-tools":
            ok = etype not in settings and self.roles[n] != "toolResult"
        elif mode == "user-only":
            ok = self.user_rows[n]
        elif mode == "labeled-only":
            ok = self.labels[n] is not None
        else:
            ok = True
        if not ok or not tokens:
            return ok
        if self.flavour.word_search:
            norm = self.normalized([n])[n]
            return all(self.flavour.query_matcher(tok)(norm) for tok in tokens)
        text = self.lowered([n])[n]
        return all(tok in text for tok in tokens)


def _preorder(forest: Positions) -> tuple[list[int], list[int], dict[int, list[int]]]:
    """Number the forest's nodes in DFS preorder: (entry position, parent number, children numbers)."""
    at: list[int] = []
    parent: list[int] = []
    children: dict[int, list[int]] = {}
    kids_of = forest.children.get
    stack: list[tuple[int, int]] = [(r, -1) for r in reversed(forest.roots)]
    pop = stack.pop
    push = stack.append
    add_node = at.append
    add_parent = parent.append
    while stack:
        node, par = pop()
        while True:
            me = len(at)
            add_node(node)
            add_parent(par)
            if par >= 0:
                kids = children.get(par)
                if kids is None:
                    children[par] = [me]
                else:
                    kids.append(me)  # popped in the forest's children order, so the list keeps it
            ch = kids_of(node)
            if ch is None:
                break
            if len(ch) == 1:
                # A chain link: go straight on (same preorder, no stack round trip per entry).
                node, par = ch[0], me
                continue
            for k in range(len(ch) - 1, -1, -1):
                push((ch[k], me))
            break
    return at, parent, children


def _preorder_ranks(roots: list[int], children: dict[int, list[int]]) -> tuple[dict[int, int], dict[int, int]]:
    """Each node's place in a DFS preorder from ``roots``, and the root it hangs from."""
    rank: dict[int, int] = {}
    root_of: dict[int, int] = {}
    stack = [(r, r) for r in reversed(roots)]
    while stack:
        node, root = stack.pop()
        rank[node] = len(rank)
        root_of[node] = root
        stack.extend((k, root) for k in reversed(children.get(node, ())))
    return rank, root_of


def _leaf_paths(ids: list[str], parent: list[int], leaf: str | None, *, unique: bool) -> tuple[list[int], set[int]]:
    """The nodes of the leaf's id and their ancestors (``containsActive``): the leaf first, then up;
    and the same nodes as a set."""
    active: list[int] = []
    seen: set[int] = set()
    if leaf is None:
        return active, seen
    at = -1
    while True:  # every node of the leaf's id (ids.index: a C scan, not a Python loop)
        try:
            at = ids.index(leaf, at + 1)
        except ValueError:
            break
        j = at
        while j >= 0 and j not in seen:
            seen.add(j)
            active.append(j)
            j = parent[j]
        if unique:
            break
    return active, seen


def _message_facts(entries: list[Entry], types: list[str], ids: list[str], leaf: str | None, kind: TreeFlavour,
                   ) -> tuple[list[str | None], list[bool], list[int], dict[Any, tuple[Any, Any]], int]:
    """Per node: the message role (None off messages) and whether the row is always hidden (a
    tool-call-only assistant message that is not the leaf); the assistant messages' nodes, their
    tool calls in node order (a later id wins) and the number of tool-call blocks."""
    count = len(entries)
    roles: list[str | None] = [None] * count
    hidden: list[bool] = [False] * count
    assistants: list[int] = []
    calls: dict[Any, tuple[Any, Any]] = {}
    blocks = 0
    hidden_assistant = kind.hidden_assistant
    for n in range(count):
        if types[n] != "message":
            continue
        entry = entries[n]
        msg = entry.head.get("message")  # a tool result left in the file has its role there
        if type(msg) is not dict and not isinstance(msg, Mapping):
            continue
        role = msg.get("role")
        if type(role) is not str and not isinstance(role, str):
            continue
        roles[n] = role
        if role == "assistant":
            assistants.append(n)
            if ids[n] != leaf:
                hidden[n] = hidden_assistant(msg)
            blocks += _add_tool_calls(calls, msg.get("content"))
    return roles, hidden, assistants, calls, blocks


def _add_tool_calls(calls: dict[Any, tuple[Any, Any]], content: Any) -> int:
    """Record the tool-call blocks of an assistant message's content (a later id wins); how many."""
    found = 0
    if type(content) is list or isinstance(content, list):
        for block in content:
            if (type(block) is dict or isinstance(block, Mapping)) and block.get("type") == "toolCall":
                calls[block.get("id")] = (block.get("name"), block.get("arguments"))
                found += 1
    return found


# What ``render_rows`` builds each row with: TreeRow's fields, in its order.
RowMaker = Callable[[str, str, str, "str | None", bool, str, int, int, bool, "str | None", int], Any]


def render_rows(
    flat: FlatTree, visible: list[int], layout: Mapping[int, Layout], memo: dict[tuple[Any, ...], tuple[str, int, bool]],
    indices: range, *, selected: int | None, multiple_roots: bool, width: int | None,
    glyph_of: Callable[[int], str | None] | None = None, folded: frozenset[int] = frozenset(),
    make: RowMaker = TreeRow,
) -> list[Any]:
    """The rows at ``indices`` of a visible list: cursor, prefix, fold mark, active dot, label, text.

    ``glyph_of`` / ``folded``: pi-mono's fold glyphs and folded rows. Prefixes are shared by rows with
    the same Layout object (every link of a chain shares its parent's) and the same glyph. ``make``
    builds each row from TreeRow's fields (``tree --json`` makes its dicts straight away).
    """
    entries, labels, roles, active_nodes, kind = flat.entries, flat.labels, flat.roles, flat.active_nodes, flat.flavour
    texts, display = flat._display, flat.display
    by_layout: dict[tuple[int, str | None], tuple[str, int, bool]] = {}
    out: list[Any] = []
    append = out.append
    # omp18: the rows rendered together share one horizontal offset (pi-tui 18.2.9's window offset).
    scroll = kind.window_scroll([layout[visible[i]] for i in indices], width)
    ellipsis = kind.ellipsis
    last_lay: Layout | None = None
    glyph = last_glyph = None
    prefix, depth, connector = "", 0, False
    for i in indices:
        n = visible[i]
        lay = layout[n]
        if glyph_of is not None:
            glyph = glyph_of(n)
        if lay is not last_lay or glyph is not last_glyph:  # a chain's rows share one Layout: reuse the prefix
            last_lay, last_glyph = lay, glyph
            pre = by_layout.get((id(lay), glyph))
            if pre is None:
                pre = by_layout[(id(lay), glyph)] = kind.prefix(lay, multiple_roots=multiple_roots, fold_glyph=glyph,
                                                                width=width, scroll=scroll, memo=memo)
            prefix, depth, connector = pre
        entry = entries[n]
        active = n in active_nodes
        text = texts[n]
        if text is None:
            text = display(n)
        label = labels[n]
        is_sel = i == selected
        cursor = "› " if is_sel else "  "
        fold = "⊞ " if folded and n in folded and not connector else ""
        dot = "• " if active else ""
        tag = f"[{label}] " if label else ""
        line = f"{cursor}{prefix}{fold}{dot}{tag}{text}"
        if width is not None:
            line = truncate_to_width(line, width, ellipsis=ellipsis)
        append(make(entry.id, entry.type, text, label, active, line, depth, i, is_sel, roles[n], entry.line))
    return out
