"""An open session file as the views need it: parsed entries, the tree, the ``/tree`` list, the graph.

A file an agent is still writing is read up to its last newline only: a partial last line waits
until its newline arrives (the reader would otherwise report it as truncated on every poll).
``refresh()`` re-reads when the file grew or changed and says whether anything changed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import SessionFileError
from workbench.sessions import (
    PassCache,
    SessionTree,
    build_session_context,
    choose_flavor,
    parse_session_file,
    results_left_from,
    whole_lines_end,
)
from workbench.tree import TreeList, TreeRow
from workbench.ui import graph as graph_mod

# Rows per Left/Right page in the browser list (TreeList derives max_visible = height // 2).
PAGE_HEIGHT = 40
MAX_PREFIX_LEVELS = 8
META_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info",
                        "ttsr_injection", "compaction", "branch_summary"})


def _cut_column(tail: bytes) -> int:
    """Where the text after the last newline stops being JSON: the parser's own column, as
    ``workbench tree`` reports a cut-off last line."""
    text = tail.decode("utf-8", errors="replace")
    try:
        json.loads(text)
        return len(text) + 1  # whole JSON: only the newline is missing
    except json.JSONDecodeError as exc:
        return exc.colno


def partial_tail_words(where: tuple[int, int]) -> str:
    line, column = where
    return (f"line {line} is cut short at column {column} (no newline yet): the file may still be being "
            "written; the line is read when its newline arrives")


@dataclass(frozen=True, slots=True)
class RowView:
    """What the browser list needs from a ``TreeRow``: the gutter prefix split from the text."""

    id: str
    prefix: str
    active: bool
    label: str
    text: str
    kind: str
    why: str = ""  # under a search, the matching words the row does not show (see ``hidden_match``)

    def as_list(self) -> list[Any]:
        return [self.id, self.prefix, self.active, self.label, self.text, self.kind, self.why]


WHY_WIDTH = 60  # characters of hidden text shown around a match


def hidden_match(shown: str, searched: str, query: str, width: int = WHY_WIDTH) -> str:
    """Why a row matched ``query`` when its own text does not show it: the words of ``searched`` (the
    entry's text as the search reads it: a tool's output, a message's hidden blocks) around the first
    search word missing from ``shown``; ``""`` when the row shows every word. A ``[bash: …]`` row
    matched by its output read as a wrong hit (issue 27)."""
    words = query.lower().split()
    seen = shown.lower()
    missing = [w for w in words if w not in seen]
    if not missing:
        return ""
    flat = " ".join(searched.split())
    at = flat.lower().find(missing[0])
    if at < 0:  # omp's fuzzy word search: a near word, not this one letter for letter
        return f'a fuzzy match for "{missing[0]}"'
    end = at + len(missing[0])
    room = max(0, width - (end - at))
    lo, hi = max(0, at - room // 3), min(len(flat), end + room - room // 3)
    if lo > 0:  # start at a word, never inside one
        space = flat.find(" ", lo, at)
        lo = space + 1 if space >= 0 else lo
    return ("…" if lo > 0 else "") + flat[lo:hi] + ("…" if hi < len(flat) else "")


def row_view(row: TreeRow, why: str = "") -> RowView:
    suffix = ("• " if row.active else "") + (f"[{row.label}] " if row.label else "") + row.text
    body = row.line[2:]  # drop the cursor column; selection is drawn by the browser
    prefix = body[: len(body) - len(suffix)] if body.endswith(suffix) else ""
    kind = "meta" if row.type in META_TYPES or (row.type != "message") else (row.role or "message")
    # the flavour's list leaves some entries (session_info) without text; in a browser a blank row looks
    # like a rendering fault, so name the entry's type there (dimmed as meta)
    text = row.text or f"[{row.type}]"
    return RowView(row.id, cap_prefix(prefix), row.active, row.label or "", text, kind, why)


def cap_prefix(prefix: str, levels: int = MAX_PREFIX_LEVELS) -> str:
    """Keep the innermost ``levels`` gutter cells, marking the cut with ``…`` (as omp does for narrow
    terminals), so deeply nested branches still show their text."""
    cells = [prefix[i:i + 3] for i in range(0, len(prefix), 3)]
    if len(cells) <= levels:
        return prefix
    cells = cells[-levels:]
    cells[0] = "…" + cells[0][1:]
    return "".join(cells)


class SessionDoc:
    """One session file, loaded for a flavour."""

    def __init__(self, path: Path, flavour: str = "omp", progress: Callable[[int, int, str], None] | None = None) -> None:
        """Load ``path``; ``progress(done, total, text)`` hears the phases in percent (and may raise
        to stop the load: the background task's cancel)."""
        self.path = path
        self.flavour = flavour
        self.resolved: Any = "omp" if flavour == "auto" else flavour  # the flavour in use (auto: from the file)
        self.flavour_note = ""  # what the file is read as and why, for the header
        self._stamp: tuple[int, int] | None = None
        self._consumed = 0
        self.session: Any = None
        self.tree: SessionTree | None = None
        self.base: TreeList | None = None
        self.partial_tail: tuple[int, int] | None = None  # (line, column) of a last line without its newline
        self._graph_layout: Any = None
        self._active: tuple[Any, set[str]] | None = None
        self.refresh(progress)

    @property
    def stamp(self) -> tuple[int, int] | None:
        """(size, mtime in ns) of the file when it was last read."""
        return self._stamp

    # -- loading -----------------------------------------------------------------------------------
    def refresh(self, progress: Callable[[int, int, str], None] | None = None) -> bool:
        """Re-read the file if it changed on disk; True when the entries changed."""
        report = progress or (lambda done, total, text: None)
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise SessionFileError(f"cannot read: {exc.strerror or exc}", path=str(self.path)) from None
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        report(0, 100, f"Reading {self.path.name}")
        try:
            with self.path.open("rb") as fh:
                cut = whole_lines_end(fh, st.st_size)
                fh.seek(cut)
                tail = fh.read(st.st_size - cut)
                # a file without any newline yet is parsed whole (its one line is reported as cut short)
                usable = cut or len(tail)
                if self.session is not None and cut == self._consumed:
                    session = None
                else:
                    report(10, 100, f"Parsing {usable / 1e6:.1f} MB")
                    # a big file's first pass is kept for the next open (docs/large-sessions.md)
                    session = parse_session_file(fh, usable, path=str(self.path), stamp=stamp,
                                                 leave_from=results_left_from(usable), passes=PassCache.default())
        except OSError as exc:
            raise SessionFileError(f"cannot read: {exc.strerror or exc}", path=str(self.path)) from None
        offsets = (session if session is not None else self.session).line_offsets
        newlines = len(offsets) - 2 if cut and offsets is not None else 0
        self.partial_tail = (newlines + 1, _cut_column(tail)) if cut < st.st_size and tail.strip() else None
        if session is None:
            return False
        self._consumed = cut
        report(50, 100, f"Building the tree of {len(session.entries):,} entries")
        choice = choose_flavor(self.flavour, session)  # `auto` reads the file: the CLI's decision
        self.resolved = choice.flavor
        # short, for the header: what `auto` chose ("no mark: read as …" when nothing decided)
        self.flavour_note = ("" if choice.given else
                             f"no mark: read as {choice.flavor}" if choice.unmarked else f"read as {choice.flavor}")
        self.flavour_reason = choice.note
        tree = SessionTree(session, flavor=self.resolved)
        report(65, 100, f"Flattening {len(session.entries):,} entries into the list")
        # the search's word index is started by the view once the first rows are drawn (``start_index``)
        base = TreeList(tree, flavor=self.resolved, height=PAGE_HEIGHT, search_index="later")
        # assigned together at the end: a cancelled load leaves the previous state whole
        self.session, self.tree, self.base = session, tree, base
        self._graph_layout = None
        return True

    # -- queries -----------------------------------------------------------------------------------
    @property
    def entry_count(self) -> int:
        return len(self.session.entries)

    def tree_list(self, filter_mode: str, query: str, selected: str | None) -> TreeList:
        assert self.base is not None
        tl = self.base
        if filter_mode != tl.filter_mode:
            tl = tl.set_filter(filter_mode)
        if query != tl.search:
            tl = tl.set_search(query)
        if selected:
            tl = tl.select(selected)
        return tl

    def entry(self, entry_id: str) -> Any:
        return self.tree.get_entry(entry_id) if self.tree else None

    def label(self, entry_id: str) -> str | None:
        return self.tree.get_label(entry_id) if self.tree else None

    def leaf(self) -> str | None:
        return self.base.leaf_id if self.base else None

    def active_ids(self) -> set[str]:
        """Ids on the active path (kept per load: every selection change asks for it)."""
        if self.tree is None:
            return set()
        if self._active is None or self._active[0] is not self.tree:
            self._active = (self.tree, self.tree.active_path_ids(self.leaf()))
        return self._active[1]

    def display_text(self, entry_id: str) -> str:
        return self.base.display_text(entry_id) if self.base else ""

    def context(self, leaf_id: str) -> Any:
        # a big session's tool results stay in the file until the conversation view draws them
        return build_session_context(self.session, leaf_id, flavor=self.resolved, read_results=False)

    # -- graph ---------------------------------------------------------------------------------------
    def graph_window(self, centre: str | None, on_select: Callable[[str], None] | None = None) -> Any:
        """The branch graph around entry ``centre`` (all of it for sessions up to ``GRAPH_ROWS`` rows)."""

        if self.tree is None:
            return None
        if self._graph_layout is None:
            active = self.active_ids()
            order = {e.id: e.index for e in self.session.entries}
            self._graph_layout = (graph_mod.layout(self.tree.get_tree(), active, order), active)
        lay, active = self._graph_layout
        return graph_mod.GraphWindow(lay, centre, self.tree.by_id, active, self.tree.labels,
                                     lambda e: self.display_text(e.id), on_select=on_select)
