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
from workbench.sessions import append_label
from workbench.ui import graph as graph_mod
from workbench.ui.entry_html import (
    STYLESHEET,
    conversation_html,
    entry_html,
    esc,
    raw_json_html,
)
from workbench.ui.notify import notify, reporting
from workbench.ui.roots import ServedRoots
from workbench.ui.session_doc import SessionDoc, row_view
from workbench.ui.state import AppState
from workbench.ui.tree_rows import TreeRows

_FILTER_LABELS = {"default": "default", "no-tools": "no-tools", "user-only": "user", "labeled-only": "labeled",
                  "all": "all"}
_KEY_HELP = ("Keys (click the list first): ↑/↓ move · ←/→ page · Alt+D/T/U/L/A filter · Ctrl+O cycle · "
             "Shift+L label · type to search · Esc clears")


class TreeView(Viewer):
    """The `/tree` list with its keyboard, the branch graph and the selected entry."""

    state = param.ClassSelector(class_=AppState)
    catalog = param.Parameter(default=None, doc="Catalog to refresh after a label edit (optional).")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.doc: SessionDoc | None = None
        self.tl: Any = None
        self._layout_cache: Any = None
        self._fig: Any = None
        self._sel_source: Any = None
        self.rows = TreeRows(min_height=300)
        self.rows.on_message(self._on_message)
        self.rows.param.watch(self._on_row_clicked, "selected")
        self.search = pn.widgets.TextInput(placeholder="Search", width=230, css_classes=["wb-search"])
        self.search.param.watch(self._on_search_typed, "value_input")
        self.filter = pn.widgets.RadioButtonGroup(
            options={v: k for k, v in _FILTER_LABELS.items()}, value=self.state.filter, color="light",
            css_classes=["wb-filter"],
        )
        self.filter.param.watch(lambda e: setattr(self.state, "filter", e.new), "value")
        self.count = pn.pane.HTML("", css_classes=["wb-count"], stylesheets=[STYLESHEET], margin=(8, 10))
        self.label_button = pn.widgets.Button(label="Label…", color="default", width=80, margin=(2, 10))
        self.label_button.on_click(lambda e: self.rows.edit_label())
        self.status = pn.pane.HTML("", stylesheets=[STYLESHEET], margin=(0, 10), css_classes=["wb-tree-status"])
        self.graph = pn.pane.Bokeh(None, sizing_mode="stretch_both", min_height=280)
        self.entry = pn.pane.HTML("", stylesheets=[STYLESHEET], sizing_mode="stretch_width", css_classes=["wb-entry-pane"])
        self.conversation = pn.pane.HTML("", stylesheets=[STYLESHEET], sizing_mode="stretch_width")
        self.raw = pn.pane.HTML("", stylesheets=[STYLESHEET], sizing_mode="stretch_width")
        self.detail = pn.Tabs(("Entry", pn.Column(self.entry, scroll=True, sizing_mode="stretch_both")),
                              ("Conversation at this leaf", pn.Column(self.conversation, scroll=True, sizing_mode="stretch_both")),
                              ("Raw JSON", pn.Column(self.raw, scroll=True, sizing_mode="stretch_both")),
                              sizing_mode="stretch_both", min_height=300)
        self.state.param.watch(self._on_session, ["session", "flavour", "revision"])
        self.state.param.watch(self._on_filter, ["filter", "q"])
        self.state.param.watch(self._on_leaf, "leaf")
        self._on_session()

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
        path = self.state.session_path()
        if path is None:
            self.doc = self.tl = None
            self._render_rows()
            return
        same = self.doc is not None and self.doc.path == path and self.doc.flavour == self.state.flavour
        if not (reload_only and same):  # a revision bump means poll() already re-read the file
            self.rows.loading = True
            try:
                self.doc = SessionDoc(path, self.state.flavour)
            except WorkbenchError as exc:
                # show the problem in place of the list (and as a notification), not the previous session
                self.doc = self.tl = None
                self.graph.object = None
                self.rows.param.update(rows=[], selected="", empty_text=f"Cannot open this session:\n{exc}")
                self.count.object = self.status.object = ""
                self.entry.object = self.conversation.object = self.raw.object = ""
                raise
            finally:
                self.rows.loading = False
        doc = self.doc
        selected = self.state.leaf or None
        self.tl = doc.tree_list(self.state.filter, self.state.q, selected)
        if self.search.value_input != self.state.q:
            self.search.value = self.state.q
        self._build_graph()
        self._render_rows()
        if self.tl.selected_id and self.tl.selected_id != self.state.leaf and not reload_only:
            self.state.leaf = self.tl.selected_id
        else:
            self._show_entry()
        self._render_status()

    def _render_status(self) -> None:
        doc = self.doc
        if doc is None:
            self.status.object = ""
            return
        problems = len(doc.session.diagnostics)
        bits = [f"{esc(doc.path.name)} · {doc.entry_count} entries"]
        if problems:
            bits.append(f'<span class="wb-tag wb-tag-suppressed">{problems} problem line(s)</span>')
        if doc.partial_tail:
            bits.append('<span class="wb-tag">partial last line: waiting for its newline</span>')
        if self.state.follow:
            bits.append('<span class="wb-tag wb-tag-active">live</span>')
        self.status.object = '<div class="wb-kv">' + " ".join(bits) + "</div>"

    def poll(self) -> None:
        """Live follow: re-read the file if an agent appended to it (called every ~0.5 s when served)."""
        if self.doc is None or not self.state.follow:
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
    def _render_rows(self) -> None:
        if self.tl is None:
            self.rows.param.update(rows=[], selected="", empty_text="No session open: pick one on the Sessions tab.")
            self.count.object = ""
            return
        rows = self.tl.rows()
        empty = "No entries found"
        if not rows and self.tl.total:
            empty = (f'No entries match search "{self.tl.search}"\nPress Esc to clear the search'
                     if self.tl.search.strip() else
                     f"{self.tl.total} entries hidden by the current filter\nPress Alt+A to show all, Alt+D for default")
        self.rows.param.update(rows=[row_view(r).as_list() for r in rows], selected=self.tl.selected_id or "",
                               empty_text=empty)
        self.count.object = f'<span class="wb-kv"><b>{len(rows)}</b>/{self.tl.total} shown</span>'
        if self.filter.value != self.tl.filter_mode:
            self.filter.value = self.tl.filter_mode

    def _on_filter(self, *events: Any) -> None:
        if self.tl is None:
            return
        with reporting("Filter"):
            tl = self.tl
            if tl.filter_mode != self.state.filter:
                tl = tl.set_filter(self.state.filter)
            if tl.search != self.state.q:
                tl = tl.set_search(self.state.q)
            self.tl = tl
            if self.search.value_input != self.state.q:
                self.search.value = self.state.q
            self._render_rows()
            if tl.selected_id and tl.selected_id != self.state.leaf:
                self.state.leaf = tl.selected_id

    def _on_search_typed(self, event: Any) -> None:
        if event.new is not None and event.new != self.state.q:
            self.state.q = event.new

    def _on_row_clicked(self, event: Any) -> None:
        if event.new and event.new != self.state.leaf:
            self.state.leaf = event.new

    def _on_leaf(self, event: Any) -> None:
        if self.tl is not None and self.state.leaf:
            self.tl = self.tl.select(self.state.leaf)
            if self.rows.selected != self.state.leaf and self.tl.selected_id == self.state.leaf:
                self.rows.selected = self.state.leaf
        self._show_entry()

    def _on_message(self, msg: dict[str, Any]) -> None:
        with reporting("Tree"):
            if self.tl is None:
                return
            kind = msg.get("kind")
            if kind == "label":
                self.write_label(str(msg.get("id", "")), str(msg.get("value", "")))
                return
            if kind == "type":
                new = self.tl.press(str(msg.get("text", ""))[:1])
            elif kind == "key":
                key = str(msg.get("key", ""))
                key = {"arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right"}.get(key, key)
                if key in ("home", "end"):
                    ids = self.tl.visible_ids
                    new = self.tl.select(ids[0 if key == "home" else -1]) if ids else self.tl
                else:
                    new = self.tl.press(key)
            else:
                return
            self.tl = new
            self.state.param.update(filter=new.filter_mode, q=new.search)
            if new.selected_id and new.selected_id != self.state.leaf:
                self.state.leaf = new.selected_id
            elif new.selected_id:
                self.rows.selected = new.selected_id

    # -- labels --------------------------------------------------------------------------------------
    def write_label(self, entry_id: str, value: str) -> None:
        """Append a label entry to the session file (trimmed; empty clears), then reload."""
        if self.doc is None or not entry_id:
            return
        text = value.strip()
        append_label(self.doc.path, entry_id, text or None)
        notify(f"Label {'set to [' + text + ']' if text else 'cleared'} on {entry_id}", "success")
        self.doc.refresh()
        keep = self.state.leaf
        self.tl = self.doc.tree_list(self.state.filter, self.state.q, keep)
        self._build_graph()
        self._render_rows()
        self._show_entry()
        if self.catalog is not None:
            self.catalog.refresh(self.doc.path)
            self.state.catalog_revision += 1

    # -- graph and entry -----------------------------------------------------------------------------
    def _build_graph(self) -> None:
        doc = self.doc
        if doc is None or doc.tree is None:
            self.graph.object = None
            return
        active = doc.active_ids()
        order = {e.id: e.index for e in doc.session.entries}
        lay = graph_mod.layout(doc.tree.get_tree(), active, order)
        fig, sel = graph_mod.build_figure(lay, doc.tree.by_id, active, doc.tree.labels, lambda e: doc.display_text(e.id),
                                          on_select=self._on_graph_tap)
        self._layout_cache, self._fig, self._sel_source = lay, fig, sel
        self.graph.object = fig

    def _on_graph_tap(self, entry_id: str) -> None:
        if entry_id != self.state.leaf:
            if self.tl is not None and self.tl.select(entry_id).selected_id != entry_id:
                notify("That entry is hidden by the current filter or search; showing it anyway.", "info", 2500)
            self.state.leaf = entry_id

    def _show_entry(self) -> None:
        doc = self.doc
        leaf = self.state.leaf
        entry = doc.entry(leaf) if doc is not None and leaf else None
        if entry is None:
            self.entry.object = '<div class="wb-muted">Select an entry in the list or the graph.</div>'
            self.conversation.object = self.raw.object = ""
            return
        active = doc.active_ids()
        self.entry.object = entry_html(entry.obj, label=doc.label(entry.id), line=entry.line,
                                       on_active_path=entry.id in active)
        ctx = doc.context(entry.id)
        self.conversation.object = (f'<div class="wb-kv">{len(ctx.messages)} message(s) the model would see '
                                    f"with <b>{esc(entry.id)}</b> as the leaf</div>" + conversation_html(ctx.messages))
        self.raw.object = raw_json_html(entry.raw)
        if self._fig is not None:
            fig, source, lay, eid = self._fig, self._sel_source, self._layout_cache, entry.id
            graph_mod.in_document(fig, lambda: graph_mod.mark_selected(fig, source, lay, eid))

    def __panel__(self) -> pn.viewable.Viewable:
        toolbar = pn.Row(self.search, self.filter, self.count, sizing_mode="stretch_width")
        help_row = pn.Row(pn.pane.HTML(f'<div class="wb-kv">{esc(_KEY_HELP)}</div>', stylesheets=[STYLESHEET],
                                       margin=(6, 10), sizing_mode="stretch_width"), self.label_button,
                          sizing_mode="stretch_width")
        left = pn.Column(toolbar, help_row, self.rows, self.status, sizing_mode="stretch_both", min_width=520)
        right = pn.Column(self.graph, self.detail, sizing_mode="stretch_both", min_width=520)
        return pn.Row(left, right, sizing_mode="stretch_both", min_height=760)
