"""The header's session picker: type a few letters of a file name, a title or a project to find a session.

A select of every served file stops working at a few hundred (3,000 options to scroll through, the
same titles over and over). The picker is a text box whose menu lists the sessions whose line (file,
title, project) contains what was typed, newest first, a screenful at most; the filtering runs in
the browser over those lines, so typing never waits for the server. Choosing a line opens its
session through ``AppState.session`` (the ``session=`` key of the URL), and the box then shows the
open file's path. Every line is text: the browser's menu writes it as text, never as markup.
"""

from __future__ import annotations

from typing import Any

import panel as pn
import param
from panel.viewable import Viewer

from workbench.ui.catalog import Catalog
from workbench.ui.entry_html import esc
from workbench.ui.notify import notify, reporting
from workbench.ui.state import AppState

MENU_LINES = 12  # lines the menu shows at most (typing more narrows them)
# a white box on the dark header bar; the menu wider than the box, above the tabs, one line per
# session (a long one ends in an ellipsis)
_MENU_CSS = """
input.bk-input { color: #24292f; background: #fff; }
.bk-menu { background: #fff; color: #24292f; width: 560px; max-height: 70vh; overflow-y: auto; z-index: 1000;
           border: 1px solid #d0d7de; box-shadow: 0 6px 16px rgba(0, 0, 0, 0.25); font-size: 13px; }
.bk-menu > div { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 5px 10px; }
.bk-menu > div.bk-active, .bk-menu > div:hover { background: #ddf4ff; }
"""
_SEP = " · "


class _Autocomplete(pn.widgets.AutocompleteInput):
    """Panel's autocomplete with Bokeh's cap on the menu's length (Panel does not pass it on)."""

    max_completions = param.Integer(default=MENU_LINES, bounds=(1, None))


def picker_line(path: str, title: str, project: str) -> str:
    """One line of the menu: the file as shown, then its title (when it is more than the file's
    name) and its project."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".jsonl")
    parts = [path] + ([title] if title and title != stem else []) + ([project] if project else [])
    return _SEP.join(" ".join(p.split()) for p in parts)  # one line: no newline from a title


class SessionPicker(Viewer):
    """A searchable session chooser bound to ``state.session``."""

    state = param.ClassSelector(class_=AppState)
    catalog = param.ClassSelector(class_=Catalog)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._paths: dict[str, str] = {}  # menu line -> session path as shown
        self.input = _Autocomplete(
            options=self._lines(), value=self.state.session or "", restrict=False, case_sensitive=False,
            search_strategy="includes", min_characters=1, width=240, css_classes=["wb-session-picker"],
            placeholder="type a file, title or project…",
            stylesheets=[_MENU_CSS],
            description="Find a session by its file name, title or project (cwd); pick a line to open it.")
        self.input.param.watch(self._on_pick, "value")
        self.state.param.watch(self._on_session, "session")
        self.state.param.watch(self._on_catalog, "catalog_revision")

    def _lines(self) -> list[str]:
        """Menu lines, newest session first; the open one too when the catalog lacks it (a file that
        failed to load), so that the box can show what the link asked for."""
        self._paths = {}
        for s in self.catalog.summaries():
            self._paths[picker_line(s.path, s.name, s.project)] = s.path
        if self.state.session and self.state.session not in self._paths.values():
            self._paths = {self.state.session: self.state.session, **self._paths}
        return list(self._paths)

    def path_of(self, text: str) -> str | None:
        """The session a chosen line or a typed path names, or None."""
        text = text.strip()
        if text in self._paths:
            return self._paths[text]
        return text if text in self._paths.values() else None

    def _on_pick(self, event: Any) -> None:
        text = str(event.new or "")
        if not text.strip() or text == self.state.session:
            return
        with reporting("Open session"):
            path = self.path_of(text)
            if path is None:
                notify(esc(f"No session is named {text.strip()!r}: type part of a file name, title or project "
                           "and pick a line of the menu"), "warning")
                self.input.value = self.state.session
                return
            if path != self.state.session:
                self.state.open_session(path)
            self.input.value = self.state.session  # the box shows the open file, not the whole line

    def _on_session(self, event: Any) -> None:
        if self.state.session not in self._paths.values():
            self.input.options = self._lines()
        if self.input.value != self.state.session:
            self.input.value = self.state.session

    def _on_catalog(self, event: Any) -> None:
        self.input.options = self._lines()

    def __panel__(self) -> pn.viewable.Viewable:
        return self.input
