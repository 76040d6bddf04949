"""The `/tree` selector as pure state: filters, search, selection, folding and rows (docs/flavours.md, "The `/tree` selector").

``TreeList`` is immutable: every key method returns a new ``TreeList`` that shares the ``FlatTree``
(computed once, linear in the number of entries). Flavours: ``omp`` (oh-my-pi v17: fuzzy word search,
layout kept from the full tree, chain anchors, no counter footer), ``pi`` (pi-mono: substring search,
layout recomputed over the visible rows, folding, counter footer), ``omp18`` (oh-my-pi 18.3 with pi-tui
18.2.9: every new entry type, 18.2.9's fuzzy search and TreeView layout, Alt+Up/Down by turn) and
``omp57`` (oh-my-pi 5.7). ``auto`` picks one from the file (``flavors.detect_flavor``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.errors import UsageError
from workbench.sessions.entries import Entry, Session, paused_gc
from workbench.sessions.flavors import Flavor, resolve_flavor
from workbench.sessions.tree import SessionTree
from workbench.tree.flattree import (
    FILTER_MODES,
    FILTER_TAGS,
    FilterMode,
    FlatTree,
    RowMaker,
    TreeRow,
    pi_visible_forest,
    render_rows,
    truncate_to_width,
)
from workbench.tree.flavour import TreeFlavour

__all__ = ["FILTER_MODES", "FILTER_TAGS", "FilterMode", "Flavor", "TreeList", "TreeRow", "truncate_to_width"]

_UNSET: Any = object()


def _as_tree(source: Session | SessionTree | Iterable[Entry | Mapping[str, Any]], flavor: Flavor) -> SessionTree:
    if isinstance(source, SessionTree):
        return source
    return SessionTree(source, flavor=flavor)


class TreeList:
    """Immutable `/tree` list state. Build once; key methods return new states sharing the flattening."""

    __slots__ = ("_b", "filter_mode", "search", "max_visible", "width", "folded", "selected_id",
                 "_remembered", "closed", "_visible", "_vlayout", "_vchildren", "_vparent", "_multiple", "_pos", "_memo")

    def __init__(
        self,
        session: Session | SessionTree | Iterable[Entry | Mapping[str, Any]],
        *,
        flavor: Flavor = "omp",
        filter_mode: str = "default",
        search: str = "",
        leaf: str | None = _UNSET,
        height: int = 24,
        max_visible: int | None = None,
        selected: str | None = None,
        home: str | None = _UNSET,
        width: int | None = None,
        search_index: str = "auto",
    ) -> None:
        """Build the selector for ``session`` (a Session, SessionTree or entries).

        ``leaf``: the selector's current leaf; not given = the flavour's choice (pi: the file's leaf;
        omp: the leaf after skipping trailing label/custom entries); ``None`` = no leaf (as after
        navigating to a root user message). ``height`` gives ``max_visible = max(5, height // 2)``;
        ``selected`` is the initial selection (default: the leaf or its nearest visible ancestor);
        ``home`` shortens tool paths to ``~`` (default ``$HOME``); ``width`` truncates rendered lines.
        ``search_index``: the word index that keeps a search keystroke cheap on large trees — ``auto``
        (built in a background thread from 2000 rows on), ``later`` (as ``auto``, the thread started
        by ``start_index``; a search before that builds it), ``background``, ``now`` or ``off`` (every
        keystroke scans the rows; the command line, which searches once). Answers are the same.
        """
        flavor = resolve_flavor(flavor, session)
        if filter_mode not in FILTER_MODES:
            raise UsageError(f"unknown filter mode {filter_mode!r} (use one of {', '.join(FILTER_MODES)})")
        if search_index not in ("auto", "later", "background", "now", "off"):
            raise UsageError(f"unknown search_index {search_index!r} (use auto, later, background, now or off)")
        tree = _as_tree(session, flavor)
        if leaf is _UNSET:
            leaf = tree.leaf_for_selector(flavor)
        if home is _UNSET:
            home = os.environ.get("HOME")
        with paused_gc():
            self._b = FlatTree(tree, flavor, leaf, home, search_index)  # type: ignore[arg-type]
        self.filter_mode: str = filter_mode
        self.search = search
        if max_visible is None:
                max_visible = self._b.flavour.max_visible(height)
        self.max_visible = max_visible
        self.width = width
        self.folded: frozenset[int] = frozenset()
        self.closed = False
        self._remembered: str | None = None
        self.selected_id: str | None = None
        self._compute()
        start = selected if selected is not None else leaf
        if self._b.flavour.keeps_row_index:
            self.selected_id = start if self._row_of(start) is not None else self._last_id()
        else:
            self.selected_id = self._nearest_visible(start)
        self._remembered = self.selected_id
        n = self._b.index_of.get(self.selected_id) if self.selected_id is not None else None
        if n is not None:
            self._b.finder.chain_hints.append(n)  # the background index build prepares its ancestor chain

    # ----- derived state ---------------------------------------------------------------------
    @property
    def flavor(self) -> Flavor:
        """The flavour's name (``omp``, ``omp18``, ``pi``, ``omp57``)."""
        return self._b.flavor

    @property
    def flavour(self) -> TreeFlavour:
        """The flavour object the list asks what differs between the agents (``flavors.REGISTRY``)."""
        return self._b.flavour

    @property
    def leaf_id(self) -> str | None:
        return self._b.leaf

    @property
    def total(self) -> int:
        """Number of entries in the full flattened tree."""
        return len(self._b.order)

    @property
    def indexing(self) -> bool:
        """The search's word index is still being built in the background (a search waits for it)."""
        return self._b.finder.index_building

    def start_index(self) -> None:
        """Start the background build of a ``later`` index (nothing if it is built, running or not wanted)."""
        finder = self._b.finder
        if finder.index_building:
            finder.start_search_index()

    def wait_index(self, timeout: float | None = None) -> bool:
        """Wait for the background index build; True once no build is running."""
        return self._b.finder.wait_index(timeout)

    @property
    def flat_ids(self) -> list[str]:
        return [self._b.ids[n] for n in self._b.order]

    def search_tokens(self) -> list[str]:
        """The query's whitespace-separated tokens, lowercased."""
        return [t for t in self.search.lower().split() if t]

    def _compute(self) -> None:
        with paused_gc():
            self._compute_visible()

    def _compute_visible(self) -> None:
        self._pos: dict[str, int] | None = None
        b = self._b
        # Shared with every other state of this family (and with later keystrokes): never mutated.
        visible = b.filtered(self.filter_mode, self.search_tokens())
        if not b.flavour.relays_out_visible:
            self._visible = visible
            self._vlayout = b.layout
            self._memo = b.prefix_memo
            self._multiple = b.multiple_roots
            self._vchildren: dict[int, list[int]] = {}
            self._vparent: dict[int, int] = {}
            return
        # The forest of a (filter, query, folds) is the same every time: backspacing to a query
        # typed before, or clearing it, reuses it instead of laying out 100k rows again.
        tokens = tuple(self.search_tokens())
        if tokens and len(visible) == len(b.mode_rows(self.filter_mode)):
            tokens = ()  # the search hides no row of the mode (visible ⊆ mode rows): the mode's own forest
        key = (self.filter_mode, tokens, self.folded)
        forest = b.pi_forests.get(key)
        if forest is None:
            forest = pi_visible_forest(b, visible, self.folded)
            if key[1] or key[2]:  # forests of a query or of folds: the 8 most recent
                queried = [k for k in b.pi_forests if k[1] or k[2]]
                if len(queried) >= 8:
                    b.pi_forests.pop(queried[0])
            b.pi_forests[key] = forest  # a filter mode with no query stays: clearing a search is instant
        self._vchildren = forest.vchildren
        self._vparent = forest.vparent
        self._vlayout = forest.layout
        self._memo = {}  # keyed on this layout's gutter tuples: lives and dies with it
        self._visible = forest.visible
        self._multiple = len(forest.roots) > 1

    def _row_of(self, entry_id: str | None) -> int | None:
        if entry_id is None:
            return None
        if self._pos is None and self._b.unique_ids:
            # One id, one node: find the node in the visible list (a C scan), no 100k-entry dict.
            n = self._b.index_of.get(entry_id)
            if n is None:
                return None
            try:
                return self._visible.index(n)
            except ValueError:
                return None
        if self._pos is None:
            # Built by dict(zip(...)) in C: a Python loop here cost ~30 ms per keystroke on 100k rows.
            keys = map(self._b.ids.__getitem__, self._visible)
            if self._b.flavour.later_duplicate_row_wins:
                # pi-tui 18's TreeView indexes rows by key: a later duplicate wins
                self._pos = dict(zip(keys, range(len(self._visible))))
            else:
                # first row wins, like findIndex: fill from the end
                self._pos = dict(zip(reversed(list(keys)), range(len(self._visible) - 1, -1, -1)))
        return self._pos.get(entry_id)

    def _last_id(self) -> str | None:
        return self._b.ids[self._visible[-1]] if self._visible else None

    def _nearest_visible(self, start: str | None) -> str | None:
        """``start`` or its nearest visible ancestor (entry parent chain); else the last row."""
        if not self._visible:
            return None
        b = self._b
        if b.unique_ids:
            # One node per id: the walk is the start's chain of entry ancestors (cached, it is the
            # same for every keystroke while the selection stays), and its first visible node is
            # found in C. A 100k-entry chain cost ~90 ms per keystroke walked in Python.
            n0 = b.index_of.get(start) if start is not None else None
            if n0 is None:
                return self._last_id()
            shown = set(self._visible)
            # Usually the start or a near ancestor is shown: a few steps, no chain to build.
            cur: int | None = n0
            for _ in range(32):
                if cur in shown:
                    return b.ids[cur]
                pid = b.entries[cur].parent_id  # type: ignore[index]
                nxt = b.index_of.get(pid) if pid is not None else None
                if nxt is None or nxt == cur:
                    return self._last_id()
                cur = nxt
            chain = b.ancestor_chain(n0)
            try:
                return b.ids[chain[list(map(shown.__contains__, chain)).index(True)]]
            except ValueError:
                return self._last_id()
        seen: set[str] = set()
        walk: str | None = start
        while walk is not None and walk not in seen:
            if self._row_of(walk) is not None:
                return walk
            seen.add(walk)
            k = self._b.index_of.get(walk)
            if k is None:
                break
            walk = self._b.entries[k].parent_id
        return self._last_id()

    @property
    def visible_ids(self) -> list[str]:
        """Ids of the visible rows in display order."""
        ids = self._b.ids
        return [ids[n] for n in self._visible]

    @property
    def selected_index(self) -> int | None:
        return self._row_of(self.selected_id)

    # ----- state transitions (each returns a new TreeList) --------------------------------------
    def _copy(self) -> TreeList:
        new = object.__new__(TreeList)
        for name in TreeList.__slots__:
            object.__setattr__(new, name, getattr(self, name))
        return new

    def _refiltered(self, **changes: Any) -> TreeList:
        old_index = self.selected_index
        new = self._copy()
        for k, v in changes.items():
            setattr(new, k, v)
        new._compute()
        if new.flavour.keeps_row_index:
            if new._row_of(self.selected_id) is not None:
                new.selected_id = self.selected_id
            elif new._visible:
                idx = min(old_index if old_index is not None else 0, len(new._visible) - 1)
                new.selected_id = new._b.ids[new._visible[idx]]
            else:
                new.selected_id = None
        else:
            new.selected_id = new._nearest_visible(self._remembered) if new._visible else None
        if new.selected_id is not None:
            new._remembered = new.selected_id
        return new

    def _moved(self, index: int) -> TreeList:
        new = self._copy()
        new.selected_id = self._b.ids[self._visible[index]]
        new._remembered = new.selected_id
        return new

    def select(self, entry_id: str) -> TreeList:
        row = self._row_of(entry_id)
        return self if row is None else self._moved(row)

    def up(self) -> TreeList:
        n, i = len(self._visible), self.selected_index
        return self if not n or i is None else self._moved((i - 1) % n)

    def down(self) -> TreeList:
        n, i = len(self._visible), self.selected_index
        return self if not n or i is None else self._moved((i + 1) % n)

    def first(self) -> TreeList:
        return self._moved(0) if self._visible else self

    def last(self) -> TreeList:
        return self._moved(len(self._visible) - 1) if self._visible else self

    def page_up(self) -> TreeList:
        i = self.selected_index
        return self if i is None else self._moved(max(0, i - self.max_visible))

    def page_down(self) -> TreeList:
        i = self.selected_index
        return self if i is None else self._moved(min(len(self._visible) - 1, i + self.max_visible))

    def set_filter(self, mode: str) -> TreeList:
        if mode not in FILTER_MODES:
            raise UsageError(f"unknown filter mode {mode!r} (use one of {', '.join(FILTER_MODES)})")
        return self._refiltered(filter_mode=mode, folded=frozenset())

    def toggle_filter(self, mode: str) -> TreeList:
        """pi's Ctrl+T/U/L/A: the mode, or back to default when it is already on."""
        return self.set_filter("default" if self.filter_mode == mode else mode)

    def cycle_filter(self, backward: bool = False) -> TreeList:
        i = FILTER_MODES.index(self.filter_mode)
        return self.set_filter(FILTER_MODES[(i + (-1 if backward else 1)) % len(FILTER_MODES)])

    def set_search(self, query: str) -> TreeList:
        return self._refiltered(search=query, folded=frozenset())

    def type_text(self, text: str) -> TreeList:
        return self.set_search(self.search + text)

    def backspace(self) -> TreeList:
        return self.set_search(self.search[:-1]) if self.search else self

    def escape(self) -> TreeList:
        """Clear the query if there is one, else mark the list closed."""
        return self.set_search("") if self.search else self.close()

    def close(self) -> TreeList:
        new = self._copy()
        new.closed = True
        return new

    # pi-mono folding
    def _foldable(self, n: int) -> bool:
        if not self.flavour.relays_out_visible or not self._vchildren.get(n):
            return False
        p = self._vparent.get(n)
        return p is None or len(self._vchildren.get(p, ())) > 1

    def fold_left(self) -> TreeList:
        i = self.selected_index
        if not self.flavour.relays_out_visible or i is None:
            return self
        n = self._visible[i]
        if self._foldable(n) and n not in self.folded:
            new = self._copy()
            new.folded = self.folded | {n}
            new._compute()
            return new
        cur = self._vparent.get(n)
        while cur is not None:
            p = self._vparent.get(cur)
            if p is None:
                break
            row = self._row_of(self._b.ids[cur])
            if len(self._vchildren.get(p, ())) > 1 and row is not None and row < i:
                break
            cur = p
        return self if cur is None else self.select(self._b.ids[cur])

    def fold_right(self) -> TreeList:
        i = self.selected_index
        if not self.flavour.relays_out_visible or i is None:
            return self
        n = self._visible[i]
        if n in self.folded:
            new = self._copy()
            new.folded = self.folded - {n}
            new._compute()
            return new
        cur = n
        while True:
            kids = self._vchildren.get(cur, [])
            if not kids:
                break
            if len(kids) > 1:
                cur = kids[0]
                break
            cur = kids[0]
        return self.select(self._b.ids[cur])

    def press(self, key: str) -> TreeList:
        """Apply a named key (conformance names: up, down, left, right, ctrl+o, alt+u, …) or typed text."""
        return self.flavour.press(self, key)

    # ----- rendering ----------------------------------------------------------------------------
    def _glyph(self, n: int) -> str | None:
        """pi-mono's fold glyph in the connector of row node ``n`` (⊟ foldable, ⊞ folded), else None."""
        if not self._foldable(n):
            return None
        return "⊞" if n in self.folded else "⊟"

    def rows(self, start: int | None = None, stop: int | None = None, *, make: RowMaker = TreeRow) -> list[Any]:
        """Visible rows in display order; ``rows(start, stop)`` renders only that slice (like ``[start:stop]``).

        The UI shows ~40 rows at a time: rendering a window costs only those rows. ``make`` builds
        each row from ``TreeRow``'s fields (default: the ``TreeRow``).
        """
        sel = self.selected_index
        lo, hi, _ = slice(start, stop).indices(len(self._visible))
        pi = self.flavour.relays_out_visible  # pi-mono: fold glyphs and folded rows
        with paused_gc():
            return render_rows(self._b, self._visible, self._vlayout, self._memo, range(lo, hi), selected=sel,
                               multiple_roots=self._multiple, width=self.width,
                               glyph_of=self._glyph if pi else None, folded=self.folded if pi else frozenset(),
                               make=make)

    def window(self) -> tuple[int, int]:
        n = len(self._visible)
        sel = self.selected_index or 0
        start = max(0, min(sel - self.max_visible // 2, n - self.max_visible))
        return start, min(start + self.max_visible, n)

    def window_rows(self) -> list[TreeRow]:
        """The rows of ``window()``: what the selector shows around the selection."""
        return self.rows(*self.window())

    @property
    def visible_count(self) -> int:
        """Number of visible rows (without rendering them)."""
        return len(self._visible)

    def lines(self) -> list[str]:
        """The rendered selector: the window of rows and the footer / empty state of the flavour."""
        return self.flavour.selector_lines(self, FILTER_TAGS[self.filter_mode])

    def turn(self, direction: int) -> TreeList:
        """omp18's Alt+Up / Alt+Down: the nearest user or assistant message row that way (no wrap)."""
        i = self.selected_index
        if i is None:
            return self
        b = self._b
        j = i + direction
        while 0 <= j < len(self._visible):
            n = self._visible[j]
            if b.types[n] == "message" and b.roles[n] in ("user", "assistant"):
                return self._moved(j)
            j += direction
        return self

    def display_text(self, entry_id: str) -> str:
        k = self._b.index_of.get(entry_id)
        return "" if k is None else self._b.display(k)

    def rows_in_place_of(self, entry_id: str) -> list[str]:
        """Ids of the entries whose rows stand where ``entry_id``'s would: ``[entry_id]`` when it has a
        row of its own under ``all``, else its nearest descendants that have one (an assistant message
        with only tool calls has no row in any filter, so its children take its place: at the top
        level, when it lost its parent). Empty when neither it nor anything under it has a row."""
        b = self._b
        start = b.index_of.get(entry_id)
        if start is None:
            return []
        out: list[str] = []
        todo = [start]
        while todo:
            n = todo.pop()
            if not b.hidden_always[n]:
                out.append(b.ids[n])
            else:
                todo.extend(reversed(b.children.get(n, ())))  # keep the children's order
        return out

    def search_text(self, entry_id: str) -> str:
        k = self._b.index_of.get(entry_id)
        return "" if k is None else self._b.search(k)
