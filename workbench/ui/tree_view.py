"""Tree tab: the flavour's ``/tree`` list, filters, search, labels, the branch graph and the entry.

``TreeView`` works served (inside the template, sharing the page's ``AppState``) and in a notebook:
``TreeView.from_path("session.jsonl")`` makes its own state whose only root is the file's folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import NotFoundError, WorkbenchError
from workbench.sessions import append_label, paused_gc
from workbench.ui import collector
from workbench.ui import graph as graph_mod
from workbench.ui.background import Background, Task
from workbench.ui.entry_html import ACTIVE_BUTTON, esc
from workbench.ui.notebook_comms import push_edits
from workbench.ui.notify import notify, reporting
from workbench.ui.roots import ServedRoots
from workbench.ui.session_doc import SessionDoc, hidden_match, partial_tail_words, row_view
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets
from workbench.ui.tree_detail import TreeDetail
from workbench.ui.tree_problems import candidates, pick_note, status_problems
from workbench.ui.tree_rows import TreeRows

_FILTER_LABELS = {"default": "default", "no-tools": "no-tools", "user-only": "user", "labeled-only": "labeled",
                  "all": "all"}
WINDOW = 120  # rows sent to the browser at a time (about three screens of the list)
INLINE_BYTES = 1_000_000  # a session file up to this size is loaded while the page is built (see _open_inline)
_LANE = "tree"  # loading, filtering and key presses of one tree run in order, off the event loop
_GRAPH_LANE = "tree-graph"  # the branch graph: seconds on a large session, beside the list's lane
_KEY_HELP = ("Keys (click the list first): ↑/↓ move · ←/→ page · Alt+D/T/U/L/A filter · Ctrl+O cycle · "
             "Shift+L label · type to search · Esc clears")


def all_leaves_out(tl: Any) -> str:
    """Under ``all`` with no search, what the list still leaves out: the agent's /tree hides an
    assistant message with only tool calls (no text) in every filter, so ``all`` shows fewer rows
    than the file has entries (issue 27 read "57/71" under ``all`` as broken)."""
    hidden = tl.total - tl.visible_count
    if tl.filter_mode != "all" or tl.search or hidden <= 0:
        return ""
    return (f'<div class="wb-muted wb-all-note">{hidden:,} tool-call-only assistant message(s) hidden in '
            "every filter, as in the agent's /tree</div>")


def search_selection_note(tl: Any) -> str:
    """Under a search, why the selection is not the first match: the list keeps the selection nearest
    the one before (usually the leaf, near the end), as the agent's /tree does, so a search opens on
    its last matches while the best one may be at the top (issue 27: the exact match was off screen)."""
    sel, shown = tl.selected_index, tl.visible_count
    if not tl.search.strip() or sel is None or sel <= 0 or shown <= 1:
        return ""
    return (f'<div class="wb-muted wb-search-note">match {sel + 1:,} of {shown:,} selected: the one nearest the '
            f"previous selection, as the agent's /tree does; {sel:,} above it (↑, ←)</div>")


class TreeView(Viewer):
    """The `/tree` list with its keyboard, the branch graph, the selected entry and the file's problems.

    Served, everything that grows with the session (reading and parsing the file, the tree, the
    flattened list, a filter or search over it, the graph) runs on the ``Background`` lane of this
    view, in order; the page shows the list arriving with a progress bar and stays responsive. The
    browser holds only a window of ``WINDOW`` rows (``TreeRows``) whatever the session's size.
    """

    state = param.ClassSelector(class_=AppState)
    catalog = param.Parameter(default=None, doc="Catalog to refresh after a label edit (optional).")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.bg = Background()
        self.doc: SessionDoc | None = None
        self.tl: Any = None  # the list state the browser shows
        self._latest: Any = None  # the newest list state computed on the lane (ahead of ``tl`` while work runs)
        self._offset = 0
        self._generation = 0  # bumped by every (re)load: results of an older load are dropped
        self._load_task: Task | None = None
        self._filter_task: Task | None = None
        self._count_indexing = False  # the count says "indexing…"
        self._graph_wanted: tuple[str | None] | None = None  # a graph to draw once the search index is built
        self._graph: graph_mod.GraphWindow | None = None
        self._entry_due = False  # the entry's card is to be drawn on the next tick (``_show_entry``)
        self.rows = TreeRows(min_height=300)
        self.rows.on_message(self._on_message)
        self.rows.param.watch(self._on_row_clicked, "selected")
        self.search = pn.widgets.TextInput(placeholder="Search", width=230, css_classes=["wb-search"])
        self.search.param.watch(self._on_search_typed, "value_input")
        self.filter = pn.widgets.RadioButtonGroup(
            options={v: k for k, v in _FILTER_LABELS.items()}, value=self.state.filter, color="light",
            css_classes=["wb-filter"], stylesheets=[ACTIVE_BUTTON],
        )
        self.filter.param.watch(lambda e: setattr(self.state, "filter", e.new), "value")
        self.count = pn.pane.HTML("", css_classes=["wb-count"], stylesheets=theme_sheets(), margin=(6, 10), width=230)
        self.label_button = pn.widgets.Button(label="Label…", color="default", width=80, margin=(2, 10))
        self.label_button.on_click(lambda e: self.rows.edit_label())
        self.status = pn.pane.HTML("", stylesheets=theme_sheets(), margin=(0, 10), css_classes=["wb-tree-status"])
        self.progress = pn.indicators.Progress(value=0, max=100, width=260, visible=False, bar_color="primary",
                                               css_classes=["wb-tree-progress"], margin=(8, 10))
        self.progress_text = pn.pane.HTML("", stylesheets=theme_sheets(), margin=(4, 10), visible=False,
                                          css_classes=["wb-tree-progress-text"])
        self.cancel_button = pn.widgets.Button(label="Cancel", width=80, visible=False, margin=(4, 10),
                                               css_classes=["wb-tree-cancel"])
        self.cancel_button.on_click(lambda e: self.cancel_load())
        self.graph = pn.pane.Bokeh(None, sizing_mode="stretch_both", min_height=280)
        self.detail = TreeDetail(self.bg, self._on_problem_picked, on_open=self.state.open_session)
        self.state.param.watch(self._on_session, ["session", "flavour", "revision"])
        self.state.param.watch(self._on_filter, ["filter", "q"])
        self.state.param.watch(self._on_leaf, "leaf")
        if not self.bg.served:
            self._on_session()
        elif self._open_inline():
            # the list is part of the page's first document; the graph (which the browser takes
            # longer to lay out than the whole list) and the conversation follow once it is drawn
            pn.state.onload(self._after_first_render)
        else:
            # a large file starts once the page is in the browser: the page's own request is then
            # answered at once, without a parse competing with it, and the list arrives (with its
            # progress) after
            self._clear("Opening the session…")
            pn.state.onload(self._start)

    def _start(self) -> None:
        if self._generation == 0:  # nothing (a changed session, flavour) started a load meanwhile
            self._on_session()

    def _open_inline(self) -> bool:
        """Load a small session now, while the page is built, so its first rows come with the page.

        Measured on the 2-core machine: a 1,000-entry file (0.25 MB) reads, parses and flattens in
        about 10 ms, while the lane's road (start when the browser reports the page loaded, load,
        send the rows as a patch, draw them again) cost 0.6-0.8 s of the first row's wait. A file
        up to ``INLINE_BYTES`` costs the page's request at most a few tens of milliseconds. Anything
        unusual (no session, outside the roots, too large, unreadable) takes the lane's road, which
        reports it as it always did.
        """
        try:
            path = self.state.session_path()
            if path is None or path.stat().st_size > INLINE_BYTES:
                return False
            doc = SessionDoc(path, self.state.flavour)
            tl = doc.tree_list(self.state.filter, self.state.q, self.state.leaf or None)
        except Exception:  # anything at all: the lane does the same work again and reports what went wrong
            return False
        self._generation += 1
        self._latest = tl
        self.detail.deferred = True
        self._loaded(self._generation, False, doc, tl, graph=False)
        return True

    def _after_first_render(self) -> None:
        """What an inline load left for later: the graph and the conversation (it may be long: in the
        first document it would be drawn, in its hidden tab, before the list could be)."""
        if self.doc is None or self.tl is None:
            self.detail.deferred = False
            return
        if self._graph is None:
            self._regraph(self.tl.selected_id)
        self.detail.release(self.doc, deferred=True)

    # -- notebook entry point ------------------------------------------------------------------------
    @classmethod
    def from_path(cls, path: str | os.PathLike[str], *, flavour: str = "omp") -> TreeView:
        """A tree view of one session file, for a notebook cell."""
        file = Path(path).expanduser().resolve()
        if not file.is_file():
            raise NotFoundError(f"{path}: no such session file")
        state = AppState(ServedRoots.of([file.parent]), flavour=flavour)
        state.session = state.roots.display(file)
        return cls(state=state)

    # -- loading -------------------------------------------------------------------------------------
    def _on_session(self, *events: Any) -> None:
        with reporting("Open session"):
            self._load(reload_only=any(e.name == "revision" for e in events) and len(events) == 1)

    def _load(self, reload_only: bool = False) -> None:
        """(Re)load the open session on the lane; the list, graph and entry follow when it is ready."""
        try:
            path = self.state.session_path()  # checked against the served roots here, on the document
        except WorkbenchError as exc:
            # a link to a file outside the roots (a symlink out of them) or one that is gone: say so in
            # place of the list, never keep showing the previous session
            self._generation += 1
            self._end_progress()
            self._clear(f"Cannot open this session:\n{exc}")
            raise
        self._generation += 1
        generation = self._generation
        if self._load_task is not None:
            self._load_task.cancel()
        if path is None:
            self._clear("No session open: pick one on the Sessions tab.")
            return
        same = self.doc is not None and self.doc.path == path and self.doc.flavour == self.state.flavour
        reuse = self.doc if (reload_only and same) else None  # a revision bump: poll() already re-read the file
        if reuse is None:
            # never leave another session's rows on screen while this one loads
            self._clear(f"Loading {path.name}…", keep_doc=False)
        flavour, filter_mode, query, leaf = self.state.flavour, self.state.filter, self.state.q, self.state.leaf or None

        def work(task: Task) -> tuple[SessionDoc, Any]:
            doc = reuse
            if doc is None:
                # paused until a big session is frozen: the collector's first passes after the load
                # would walk all it made (0.15-0.2 s of a 1 GB session's first row; docs/large-sessions.md)
                with paused_gc():
                    doc = SessionDoc(path, flavour, progress=task.progress)
                    collector.after_load(doc.entry_count)
            task.progress(90, 100, "Filtering the list")
            tl = doc.tree_list(filter_mode, query, leaf)
            task.check()
            self._latest = tl
            return doc, tl

        def failed(exc: BaseException) -> None:
            if generation != self._generation:
                return
            self._end_progress()
            self._clear(f"Cannot open this session:\n{exc}")
            notify(f"Open session: {exc}", "error")

        self._begin_progress(f"Opening {path.name}")
        self._load_task = self.bg.submit(
            work, what="Open session", lane=_LANE, interactive=True, failed=failed,
            done=lambda result: self._loaded(generation, reload_only, *result),
            progress=lambda done, total, text: self._show_progress(generation, done, total, text),
        )

    def cancel_load(self) -> None:
        """Stop loading the session (the Cancel button beside the progress bar)."""
        if self._load_task is not None and not self._load_task.finished:
            self._load_task.cancel()
            self._generation += 1
            self._end_progress()
            self._clear("Loading cancelled. Pick the session again to retry.")
            notify("Loading the session was cancelled.", "info", 2500)

    def _loaded(self, generation: int, reload_only: bool, doc: SessionDoc, tl: Any, graph: bool = True) -> None:
        if generation != self._generation:
            return
        self._end_progress()
        self.doc, self.tl = doc, tl
        self.state.remember_session(doc.path, doc.stamp, doc.session)
        self.state.flavour_read = doc.flavour_note
        if self.search.value_input != self.state.q:
            self.search.value = self.state.q
        if graph:
            self._regraph(tl.selected_id)  # the list first; the graph follows from the lane
        # the search's word index, once these rows are on their way (``SessionDoc`` makes it ``later``):
        # built beside them, its passes over a 1 GB session's texts held the GIL the page's own thread
        # needed to send them. Started on the next tick, before the entry's card is drawn (queued
        # below), so that a search typed as the session opens does not wait for the card too
        # (docs/large-sessions.md).
        self.bg.call_soon(lambda: self._start_index(generation))
        self._render_rows(follow_selection=True)
        self.detail.show_problems(doc)
        if tl.selected_id and tl.selected_id != self.state.leaf and not reload_only:
            self.state.leaf = tl.selected_id
        else:
            self._show_entry()
        self._render_status()

    def _start_index(self, generation: int) -> None:
        if generation == self._generation and self.tl is not None:
            self.tl.start_index()
            self._render_count()

    def _clear(self, message: str, keep_doc: bool = False) -> None:
        if not keep_doc:
            self.doc = self.tl = self._latest = None
            self._graph = None
            self._graph_wanted = None
            self.graph.object = None
            self.detail.show_problems(None)
        self.rows.param.update(rows=[], total=0, offset=0, selected="", selected_index=-1, empty_text=message)
        self.count.object = self.status.object = ""
        self.detail.clear()

    def _begin_progress(self, text: str) -> None:
        self.progress.param.update(value=0, visible=True)
        self.progress_text.param.update(object=f'<div class="wb-kv">{esc(text)}</div>', visible=True)
        self.cancel_button.visible = self.bg.served

    def _show_progress(self, generation: int, done: int, total: int, text: str) -> None:
        if generation != self._generation:
            return
        self.progress.value = max(self.progress.value, min(100, int(100 * done / max(total, 1))))
        self.progress_text.object = f'<div class="wb-kv">{esc(text)}</div>'

    def _end_progress(self) -> None:
        self.progress.visible = self.progress_text.visible = self.cancel_button.visible = False

    def _render_status(self) -> None:
        doc = self.doc
        if doc is None:
            self.status.object = ""
            return
        problems = len(doc.session.diagnostics)
        bits = [f"{esc(doc.path.name)} · {doc.entry_count:,} entries"]
        if problems:
            words = esc(status_problems(list(doc.session.diagnostics)))
            bits.append(f'<span class="wb-tag wb-tag-suppressed wb-status-problems">{words}</span>')
        if doc.partial_tail:
            bits.append(f'<span class="wb-tag wb-partial-tail">{esc(partial_tail_words(doc.partial_tail))}</span>')
        if self.state.follow:
            bits.append('<span class="wb-tag wb-tag-active">live</span>')
        self.status.object = '<div class="wb-kv">' + " ".join(bits) + "</div>"

    def poll(self) -> None:
        """Live follow: re-read the file if an agent appended to it (called every ~0.5 s when served);
        and the count's "indexing…" cleared once the search index is built."""
        if self.tl is not None and self.tl.indexing:
            self.tl.start_index()  # (started after the first rows; here too, should that tick have been lost)
        if self.tl is not None and not self.tl.indexing:
            if self._count_indexing:
                self._render_count()
            if self.detail.held:
                self.detail.release(self.doc, held=True)
            if self._graph_wanted is not None and not self.bg.busy(_LANE):
                # not beside a search: the layout (a second of CPU on 100,000 entries) shared the GIL
                # with the search typed as the session opened and doubled its time
                self._regraph(self._graph_wanted[0])
        if self.doc is None or not self.state.follow or self.bg.busy(_LANE):
            return
        partial = self.doc.partial_tail
        try:
            changed = self.doc.refresh()
        except WorkbenchError:
            return
        if changed:
            self.state.revision += 1
        elif partial != self.doc.partial_tail:
            self._render_status()

    # -- list ----------------------------------------------------------------------------------------
    def _render_rows(self, follow_selection: bool = False) -> None:
        """Send the window of rows around the selection (or the scrolled-to window) to the browser."""
        tl = self.tl
        if tl is None:
            return
        total = tl.visible_count
        sel = tl.selected_index
        if follow_selection and sel is not None and not (self._offset + 5 <= sel < self._offset + WINDOW - 5):
            self._offset = sel - WINDOW // 3
        self._offset = max(0, min(self._offset, total - WINDOW))
        rows = tl.rows(self._offset, self._offset + WINDOW)
        empty = "No entries found"
        if not total and tl.total:
            empty = (f'No entries match search "{tl.search}"\nPress Esc to clear the search'
                     if tl.search.strip() else
                     f"{tl.total} entries hidden by the current filter\nPress Alt+A to show all, Alt+D for default")
        query = tl.search.strip()
        views = [row_view(r, hidden_match(f"{r.label or ''} {r.text}", tl.search_text(r.id), query) if query else "") for r in rows]
        self.rows.param.update(rows=[v.as_list() for v in views], offset=self._offset, total=total,
                               selected=tl.selected_id or "", selected_index=-1 if sel is None else sel,
                               empty_text=empty)
        self._render_count()
        if self.filter.value != tl.filter_mode:
            self.filter.value = tl.filter_mode

    def _render_count(self) -> None:
        """"N/M shown", and "indexing…" while the search's word index is still being built (a search
        typed meanwhile waits for it): the count is redrawn when the build ends."""
        tl = self.tl
        if tl is None:
            self.count.object = ""
            return
        text = f"<b>{tl.visible_count:,}</b>/{tl.total:,} shown"
        self._count_indexing = tl.indexing  # the twice-a-second poll redraws the count once the build ends
        if self._count_indexing:
            text += ' <span class="wb-indexing">· indexing…</span>'
        self.count.object = f'<span class="wb-kv">{text}</span>' + all_leaves_out(tl) + search_selection_note(tl)

    def _apply(self, tl: Any) -> None:
        """Show a list state computed on the lane (a filter, a search, a key)."""
        if tl is None or self.doc is None:
            return
        self.tl = tl
        if not self.bg.busy(_LANE) and self.search.value_input != tl.search and tl.search == self.state.q:
            self.search.value = tl.search
        self._render_rows(follow_selection=True)
        if tl.selected_id and tl.selected_id != self.state.leaf:
            self.state.leaf = tl.selected_id
        if self._graph is not None and tl.selected_id and not self._graph.covers(tl.selected_id):
            self._regraph(tl.selected_id)

    def _run(self, what: str, step: Any, *, search: bool = False, sync_filter: bool = False) -> None:
        """Compute ``step(latest list state)`` on the lane and show it; a newer search cancels an older one."""
        generation = self._generation

        def work(task: Task) -> Any:
            base = self._latest
            if base is None:
                return None
            new = step(base)
            task.check()
            self._latest = new
            return new

        def done(tl: Any) -> None:
            if generation != self._generation or tl is None:
                return
            self._apply(tl)
            if sync_filter and tl.filter_mode != self.state.filter:
                self.state.filter = tl.filter_mode  # a filter key: the buttons and the URL follow

        task = self.bg.submit(work, what=what, lane=_LANE, interactive=True, done=done)
        if search:
            if self._filter_task is not None:
                self._filter_task.cancel()
            self._filter_task = task

    def _on_filter(self, *events: Any) -> None:
        if self._latest is None:
            return
        mode, query = self.state.filter, self.state.q

        def step(tl: Any) -> Any:
            if tl.filter_mode != mode:
                tl = tl.set_filter(mode)
            if tl.search != query:
                tl = tl.set_search(query)
            return tl

        if self._latest.filter_mode != mode or self._latest.search != query or self.bg.busy(_LANE):
            self._run("Filter", step, search=True)

    def _on_search_typed(self, event: Any) -> None:
        if event.new is not None and event.new != self.state.q:
            self.state.q = event.new

    def _on_row_clicked(self, event: Any) -> None:
        if event.new and event.new != self.state.leaf:
            self.state.leaf = event.new

    def _on_leaf(self, event: Any) -> None:
        leaf = self.state.leaf
        if self.tl is not None and leaf:
            self.tl = self.tl.select(leaf)
            if self._latest is not None:
                self._latest = self._latest.select(leaf)
            if self.tl.selected_id == leaf:
                self._render_rows(follow_selection=True)
            if self._graph is not None and not self._graph.covers(leaf):
                self._regraph(leaf)
        self._show_entry()

    def _on_message(self, msg: dict[str, Any]) -> None:
        with reporting("Tree"):
            if self._latest is None:
                return
            kind = msg.get("kind")
            if kind == "window":
                start = msg.get("start")
                if isinstance(start, int) and self.tl is not None:
                    self._offset = start
                    self.bg.call_soon(self._render_rows)
                return
            if kind == "label":
                self.write_label(str(msg.get("id", "")), str(msg.get("value", "")))
                return
            if kind == "type":
                # typing edits the search, which runs on the lane like any other search
                self.state.q = self.state.q + str(msg.get("text", ""))[:1]
                return
            if kind != "key":
                return
            key = str(msg.get("key", ""))
            key = {"arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right"}.get(key, key)
            if key == "clear-search" or (key == "escape" and self.state.q):
                # value may never have left "" (typing only moves value_input): clear both, so the
                # browser's box is emptied whatever was last committed
                self.search.param.update(value=self.search.value_input or " ", value_input="")
                self.search.param.update(value="", value_input="")
                self.state.q = ""
                return
            if key == "backspace" and self.state.q:
                self.state.q = self.state.q[:-1]
                return
            self._run("Tree", lambda tl: tl.press(key), sync_filter=True)

    # -- problems ------------------------------------------------------------------------------------
    def _on_problem_picked(self, diag: Any) -> None:
        """Select the row of a problem's line (or the nearest row before it) and say which.

        The filter and the selection change together on the lane: switching the filter first and
        selecting after left the old selection in place (the filter's result, computed from the old
        list state, won).
        """
        doc, generation = self.doc, self._generation
        if doc is None or self._latest is None:
            return
        entries = list(doc.session.entries)
        own = next((e for e in candidates(entries, diag.line)[:1] if e.line == diag.line), None)

        def work(task: Task) -> Any:
            base = self._latest
            if base is None:
                return None
            wide = base if base.filter_mode == "all" and not base.search else base.set_filter("all").set_search("")
            rows = [(tl, set(tl.visible_ids)) for tl in (base, wide)]
            task.check()
            hidden = own is not None and own.id not in rows[1][1]
            order = candidates(entries, diag.line)
            if hidden and own is not None:
                # the rows that stand in the hidden entry's place first: the Reason names them
                standing = [doc.entry(i) for i in base.rows_in_place_of(own.id)]
                order = [*(e for e in standing if e is not None), *order]
            for entry in order:
                for tl, shown in rows:
                    if entry.id in shown:
                        moved = tl.select(entry.id)
                        self._latest = moved
                        return moved, entry, hidden
            return None, None, hidden

        def done(result: Any) -> None:
            if generation != self._generation or result is None:
                return
            tl, picked, hidden = result
            changed = None
            if tl is not None:
                if tl.filter_mode != self.state.filter or tl.search != self.state.q:
                    changed = _FILTER_LABELS.get(tl.filter_mode, tl.filter_mode)
                    self.state.param.update(filter=tl.filter_mode, q=tl.search)
                self._apply(tl)
            note = pick_note(diag, own, picked, changed, hidden)
            self.detail.problems.say(note)
            notify(esc(note), "info", 5000)  # toasts render HTML; ids come from the file

        self.bg.submit(work, what="Go to problem", lane=_LANE, interactive=True, done=done)

    # -- labels --------------------------------------------------------------------------------------
    def write_label(self, entry_id: str, value: str) -> None:
        """Append a label entry to the session file (trimmed; empty clears), then reload."""
        if self.doc is None or not entry_id:
            return
        text = value.strip()
        append_label(self.doc.path, entry_id, text or None)
        notify(f"Label {'set to [' + text + ']' if text else 'cleared'} on {entry_id}", "success")
        if self.catalog is not None:
            self.catalog.refresh(self.doc.path)
            self.state.catalog_revision += 1
        if self.doc.refresh():
            self.state.revision += 1  # reloads the list (on the lane) with the label shown

    # -- graph and entry -----------------------------------------------------------------------------
    def _set_graph(self, graph: graph_mod.GraphWindow | None) -> None:
        self._graph = graph
        self.graph.object = graph.figure if graph is not None else None

    def _regraph(self, centre: str | None) -> None:
        """Lay out and draw the graph (of a large session: the part around ``centre``) on the lane."""
        doc, generation = self.doc, self._generation
        if doc is None:
            return

        # not ringed here on the lane: marking moves the dots' own selection, whose callback is a
        # graph tap, which would set the leaf from this thread (and undo a row clicked meanwhile)
        def work(task: Task) -> graph_mod.GraphWindow | None:
            return doc.graph_window(centre, on_select=self._on_graph_tap)

        def done(graph: graph_mod.GraphWindow | None) -> None:
            if generation != self._generation:
                return
            leaf = self.state.leaf
            if graph is not None and leaf and graph.covers(leaf):
                # still outside the document: ringed now (a change to a figure the browser has not
                # received yet was lost, so the graph opened with no ring until a row was clicked)
                graph.mark(leaf)
            self._set_graph(graph)

        # Its own lane, and only once the search index is built (the poll starts it then): laying out a
        # 100k-entry graph takes seconds, and a search typed meanwhile must neither queue behind it nor
        # share the CPU with it while the index that search waits for is still being built.
        if self.bg.served and self.tl is not None and self.tl.indexing:
            self._graph_wanted = (centre,)
            return
        self._graph_wanted = None
        self.bg.submit(work, what="Branch graph", lane=_GRAPH_LANE, done=done)

    def _on_graph_tap(self, entry_id: str) -> None:
        if entry_id != self.state.leaf:
            if self.tl is not None and self.tl.select(entry_id).selected_id != entry_id:
                notify("That entry is hidden by the current filter or search; showing it anyway.", "info", 2500)
            self.state.leaf = entry_id

    def _show_entry(self) -> None:
        """Show the selected entry on the document's next tick, once however often it was asked for
        meanwhile: the rows changed in the same callback go to the browser first (Bokeh sends a
        callback's changes when it returns), and an entry's card (its branch's usage walks the whole
        branch: 0.7 s on a 96,000-entry session, asked twice as a session opened) no longer holds
        back the list's first rows (docs/large-sessions.md). Inline when not served."""
        if self._entry_due:
            return
        self._entry_due = True
        self.bg.call_soon(self._draw_entry)

    def _draw_entry(self) -> None:
        self._entry_due = False
        # while the search index is built, the branch's usage and conversation wait for it (the poll
        # releases them): a search typed as the session opens shares the CPU with the index alone
        self.detail.held = self.detail.held or (self.bg.served and self.tl is not None and self.tl.indexing)
        entry = self.detail.show(self.doc, self.state.leaf)
        graph = self._graph
        if entry is not None and graph is not None and graph.covers(entry.id):
            graph_mod.in_document(graph.figure, lambda: graph.mark(entry.id))
            push_edits(self.graph)

    def __panel__(self) -> pn.viewable.Viewable:
        # the "N/M shown" counter sits with the key help, under the filters: beside them it ran into the
        # graph's title once the numbers had five digits
        # the search and the filters wrap (in a notebook's ~970 px the graph beside them covered
        # `labeled` and `all`), and so does the key help
        toolbar = pn.FlexBox(self.search, self.filter, flex_wrap="wrap", sizing_mode="stretch_width", margin=0)
        help_row = pn.FlexBox(self.count, pn.pane.HTML(f'<div class="wb-kv">{esc(_KEY_HELP)}</div>', stylesheets=theme_sheets(),
                                                       margin=(6, 10), min_width=220, styles={"flex": "1 1 220px"}),
                              self.label_button, flex_wrap="wrap", sizing_mode="stretch_width", margin=0)
        loading = pn.Row(self.progress, self.progress_text, self.cancel_button, sizing_mode="stretch_width")
        left = pn.Column(toolbar, help_row, loading, self.rows, self.status, sizing_mode="stretch_both", min_width=440)
        right = pn.Column(self.graph, self.detail, sizing_mode="stretch_both", min_width=440)
        return pn.Row(left, right, sizing_mode="stretch_both", min_height=760)
