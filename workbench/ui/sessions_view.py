"""Sessions tab: the ingested sessions, adding files or folders, and a search across all of them.

Made for archives of thousands of files: the table leads with the file, its project, day, model and
cost (titles repeat across sessions), says how many sessions it holds and what they cost, and sorts
and pages on the server. The search runs as the user types (debounced, on the view's background
runner), says how many entries in how many files match, and a hit opens its session at that entry.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import AccessError, UsageError
from workbench.ui.background import Background, Task
from workbench.ui.catalog import LOADED, Catalog
from workbench.ui.entry_html import MONEY_FORMAT, esc, money
from workbench.ui.help_panel import PURPOSE, first_step
from workbench.ui.notify import guarded, notify, reporting
from workbench.ui.snippets import snippet_html
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets

_TABLE_TITLES = {"path": "File", "name": "Title", "project": "Project (cwd)", "date": "Date", "model": "Model",
                 "cost": "Cost", "entries": "Entries", "branches": "Branches", "labels": "Labels",
                 "injections": "TTSR inj.", "errors": "Errors", "status": "Status", "notices": "Notices"}
# All the columns (headers included) are on screen at 1280 and 1400 px: data-fitted, the 13 columns took
# 2,016 px and the last headers were cut off at the table's edge (issue 27). The short columns get the
# width their header needs (its words, the sort arrow); the text columns share the rest and wrap in it
# (Tabulator's textarea formatter escapes like plaintext), and so do two-word headers (theme.css)
_FIXED = {"cost": 70, "entries": 86, "branches": 102, "labels": 82, "injections": 76, "errors": 80, "status": 82,
          "notices": 90}
_WRAPPED = ("path", "name", "project", "date", "model", "status", "notices")
_HIT_TITLES = {"session": "File", "title": "Title", "id": "Entry", "type": "Type", "text": "Text"}
_HIT_COLUMNS = list(_HIT_TITLES)
SEARCH_LIMIT = 200  # hits listed; the count above them is the full one
DEBOUNCE = 0.3  # seconds of quiet typing before a search runs (each key press restarts the wait)


def totals_html(totals: dict[str, Any]) -> str:
    failed = f" · <b>{totals['failed']:,}</b> not loaded" if totals.get("failed") else ""
    return (f'<div class="wb-kv wb-sessions-total"><b>{totals["sessions"]:,}</b> session(s){failed} · '
            f'total cost <b>{money(totals["cost"])}</b> (assistant messages, every branch)</div>')


class SessionsView(Viewer):
    """Table of sessions (click a row to open it), an add-path box, an upload zone and a global search."""

    state = param.ClassSelector(class_=AppState)
    catalog = param.ClassSelector(class_=Catalog)
    uploads = param.ClassSelector(class_=Path, default=None, allow_None=True,
                                  doc="Folder (a served root) where uploaded files are written; None = uploads off.")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._table = pn.widgets.Tabulator(
            self.catalog.frame(), pagination="remote", page_size=15, show_index=False, disabled=True,
            selectable=False, sizing_mode="stretch_width", titles=_TABLE_TITLES, layout="fit_columns",
            hidden_columns=[], header_align="left", css_classes=["wb-sessions-table"],
            widths=dict(_FIXED),
            formatters={**{c: {"type": "textarea"} for c in _WRAPPED},
                        "cost": MONEY_FORMAT},
        )
        self._total = pn.pane.HTML(totals_html(self.catalog.totals()), stylesheets=theme_sheets(), margin=(0, 10))
        self._table.on_click(self._on_row_click)
        self._path = pn.widgets.TextInput(placeholder="Add a file or folder under the served roots", width=420)
        self._add = pn.widgets.Button(label="Add", color="primary", width=80)
        self._add.on_click(self._on_add)
        self._path.param.watch(self._on_add, "enter_pressed")
        self._upload = pn.widgets.FileInput(accept=".jsonl,.json", multiple=True, width=320,
                                            visible=self.uploads is not None)
        self._upload.param.watch(self._on_upload, "value")
        self._progress = pn.indicators.Progress(active=False, value=0, max=100, width=300, visible=False)
        self._search = pn.widgets.TextInput(placeholder="Search all sessions (as you type)", width=420,
                                            css_classes=["wb-global-search"])
        self._search.param.watch(self._on_search, "value_input")
        self._search.param.watch(self._on_search, "value")  # Enter, or a value set from code
        self._searched: str | None = None  # the query whose hits are shown
        self._hit_count = pn.pane.HTML("", stylesheets=theme_sheets(), margin=(0, 10), css_classes=["wb-hit-count"])
        self._hits = pn.widgets.Tabulator(
            None, pagination="remote", page_size=10, show_index=False, disabled=True, selectable=False,
            sizing_mode="stretch_width", visible=False, layout="fit_data_stretch", css_classes=["wb-search-hits"],
            titles=_HIT_TITLES, widths={"session": 220, "title": 200}, header_align="left",
            formatters={"text": {"type": "html"}, "session": {"type": "textarea"}, "title": {"type": "textarea"}},
        )
        self.bg = Background()
        self._hits.on_click(self._on_hit_click)
        roots = ", ".join(str(r) for r in self.catalog.roots.roots if r != self.uploads)
        note = f"Serving: {roots}"
        self._note = pn.pane.Str(note, styles={"color": "#6e7781", "font-size": "12px"})
        self.state.param.watch(lambda e: self.reload(), "catalog_revision")
        self._intro = pn.pane.HTML(f'<div class="wb-intro-text"><p><b>{esc(PURPOSE)}</b></p>'
                                   "<p>Press <kbd>?</kbd> for the keys and what the stepper's words mean.</p></div>",
                                   stylesheets=theme_sheets(), sizing_mode="stretch_width", css_classes=["wb-intro"])
        self._first = first_step(self.catalog.roots)
        self._first_btn = pn.widgets.Button(label="First step: open the sample where a rule fires, at the trigger",
                                            color="primary", visible=self._first is not None, css_classes=["wb-first-step"])
        self._first_btn.on_click(self._on_first_step)

    @guarded("First step")
    def _on_first_step(self, event: Any) -> None:
        if self._first is not None:
            self.state.param.update(**self._first)

    def reload(self) -> None:
        self._table.value = self.catalog.frame()
        self._total.object = totals_html(self.catalog.totals())

    @guarded("Open session")
    def _on_row_click(self, event: Any) -> None:
        row = self._table.value.iloc[event.row]
        if row["status"] != LOADED:
            # A file that did not load has nothing to open: say why, and leave the open session as it is
            # (opening it would show another session's rows or an empty tree with no reason).
            reason = self.catalog.problem(str(row["path"])) or str(row["status"])
            notify(esc(self._shown(f"not loaded: {reason}")), "error")
            return
        notices = self.catalog.notices().get(str(row["path"]), [])
        if notices:
            # Toasts render HTML: the file's words (type names, paths) are escaped.
            notify(esc(f"{row['path']}: " + "; ".join(str(n) for n in notices[:5])
                       + (f"; … and {len(notices) - 5} more" if len(notices) > 5 else "")), "info", 10000)
        self.state.open_session(row["path"])

    @guarded("Open search hit")
    def _on_hit_click(self, event: Any) -> None:
        row = self._hits.value.iloc[event.row]
        self.state.open_session(row["session"], leaf=str(row["id"]))

    def _on_add(self, *_: Any) -> None:
        with reporting("Add path"):
            raw = self._path.value.strip()
            if not raw:
                raise UsageError("type a path to a session file or a folder")
            self.add_paths([self.catalog.roots.resolve(raw)])
            self._path.value = ""

    def add_paths(self, paths: list[Path]) -> None:
        """Ingest with a progress bar; errors in single files become one warning each."""
        self._progress.param.update(visible=True, value=0)

        def progress(i: int, n: int, name: str) -> None:
            self._progress.value = int(100 * i / max(n, 1))

        try:
            before = len(self.catalog.summaries())
            errors = self.catalog.add(paths, progress)
        finally:
            self._progress.visible = False
        added = len(self.catalog.summaries()) - before
        for err in errors[:5]:
            notify(esc(self._shown(err)), "warning", 8000)
        if len(errors) > 5:
            notify(f"… and {len(errors) - 5} more files with problems", "warning", 8000)
        notify(f"{added} session(s) added", "success")
        self.state.catalog_revision += 1

    def _shown(self, message: str) -> str:
        """A message as the user should read it: uploads by their file name, not the server's temp path."""
        if self.uploads is None:
            return message
        for part in sorted({str(self.uploads.resolve()), str(self.uploads)}, key=len, reverse=True):
            while part in message:
                start = message.index(part)
                rest = message[start + len(part):].lstrip("/")
                # <uploads>/<tmpdir>/<name>: keep <name>
                cut = rest.split("/", 1)
                message = message[:start] + (cut[1] if len(cut) > 1 else cut[0])
        return message

    def _on_upload(self, event: Any) -> None:
        with reporting("Upload"):
            if self.uploads is None:
                raise AccessError("uploads are turned off")
            values = event.new if isinstance(event.new, list) else [event.new]
            names = self._upload.filename if isinstance(self._upload.filename, list) else [self._upload.filename]
            saved = []
            for name, data in zip(names, values):
                # Only the file's base name is used: an upload can never choose where it lands.
                safe = Path(str(name)).name or "upload.jsonl"
                if not safe.endswith((".jsonl", ".json")):
                    notify(f"{safe}: not uploaded: only .jsonl and .json session files are accepted", "warning", 8000)
                    continue
                if not data:
                    notify(f"{safe}: not uploaded: the file is empty", "warning", 8000)
                    continue
                target = Path(tempfile.mkdtemp(dir=self.uploads)) / safe
                target.write_bytes(data)
                saved.append(target)
            if saved:
                self.add_paths(saved)

    def _on_search(self, event: Any) -> None:
        """Each key press restarts the wait; the search runs once typing pauses (or at once on Enter)."""
        query = str(event.new or "")
        if query.strip() == (self._searched or "").strip() and event.name == "value":
            return  # Enter on the query already shown
        self.bg.cancel("search")
        if not query.strip():
            self._show_hits("", [], (0, 0))
            return
        wait = DEBOUNCE if event.name == "value_input" and self.bg.served else 0.0
        catalog = self.catalog

        def work(task: Task) -> tuple[str, list[dict[str, Any]], tuple[int, int]]:
            until = time.monotonic() + wait
            while time.monotonic() < until:  # a newer key press cancels this task during the wait
                time.sleep(0.05)
                task.check()
            hits = catalog.search(query, limit=SEARCH_LIMIT)
            task.check()
            return query, hits, catalog.search_count(query)

        self.bg.submit(work, what="Search", lane="search", done=lambda found: self._show_hits(*found))

    def _show_hits(self, query: str, hits: list[dict[str, Any]], count: tuple[int, int]) -> None:
        self._searched = query
        titles = {s.path: s.name for s in self.catalog.summaries()}
        # escaped here, then shown as HTML: the words around the match, the match marked
        shown = [{**h, "title": titles.get(str(h["session"]), ""), "text": snippet_html(str(h.get("text", "")), query)}
                 for h in hits]
        frame = pd.DataFrame(shown, columns=_HIT_COLUMNS)
        if query.strip() and not self._hits.visible:
            # Shown first, filled on the next tick: Tabulator given rows while it is hidden (display:
            # none) draws none of them once shown again.
            self._hits.visible = True
            self.bg.call_soon(lambda: setattr(self._hits, "value", frame) if self._searched == query else None)
        else:
            self._hits.value = frame
            self._hits.visible = bool(query.strip())
        entries, files = count
        if not query.strip():
            self._hit_count.object = ""
        elif not entries:
            self._hit_count.object = f'<div class="wb-kv">No entry matches <b>{esc(query)}</b></div>'
        else:
            more = f" (the first {len(hits):,} listed)" if entries > len(hits) else ""
            self._hit_count.object = (f'<div class="wb-kv"><b>{entries:,}</b> hit(s) in <b>{files:,}</b> session(s) for '
                                      f'<b>{esc(query)}</b>{more} · click a hit to open it at its entry</div>')

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(
            self._intro,
            self._first_btn,
            pn.pane.Markdown("#### Sessions · click a row to open it in the Tree tab (files that did not load say why)", margin=(0, 5)),
            pn.Row(self._path, self._add, self._upload, self._progress),
            self._note,
            self._total,
            self._table,
            pn.pane.Markdown("#### Search every session", margin=(10, 5, 0, 5)),
            self._search,
            self._hit_count,
            self._hits,
            sizing_mode="stretch_width",
        )
