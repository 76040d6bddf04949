"""The ``/tree`` list as a browser component: monospace rows, a keyboard, inline label editing.

Only a window of rows is sent and drawn (see ``TreeRows``). Rows are drawn with ``textContent`` only, so session text (HTML, ``<script>``) is inert by
construction. Keys are sent to Python, which owns filter, search and selection (the flavour's rules
live there); the browser only draws, scrolls and hosts the inline label box (Shift+L).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import param
from panel.custom import JSComponent

_CSS = """
:host { display: block; }
.wb-tree { height: 100%; overflow: auto; outline: none; font-family: "DejaVu Sans Mono", "Liberation Mono", Menlo, monospace;
  font-size: 12.5px; line-height: 19px; border: 1px solid #d0d7de; border-radius: 6px; background: #fff; }
.wb-tree:focus { border-color: #1f6feb; box-shadow: 0 0 0 2px rgba(31,111,235,.25); }
.wb-tree-spacer { position: relative; min-height: 100%; }
.wb-tree-window { position: absolute; left: 0; right: 0; top: 0; }
.wb-tree-row { height: 19px; box-sizing: border-box; white-space: pre; cursor: pointer; padding: 0 8px; overflow: hidden; text-overflow: ellipsis; }
.wb-tree-row:hover { background: #f3f4f6; }
.wb-tree-row .wb-prefix { color: #8c959f; }
.wb-tree-row .wb-bullet { color: #1f6feb; font-weight: 700; }
.wb-tree-row.wb-active .wb-text { color: #1f6feb; }
.wb-tree-row .wb-label { color: #8250df; font-weight: 600; }
.wb-tree-row.wb-selected { background: rgba(31,111,235,.16); font-weight: 600; }
.wb-tree-row.wb-kind-meta .wb-text { color: #6e7781; }
.wb-tree-row .wb-why { color: #9a6700; font-style: italic; font-weight: 400; }
.wb-tree-empty { padding: 12px; color: #6e7781; font-family: sans-serif; white-space: pre-line; }
.wb-label-edit { font: inherit; border: 1px solid #8250df; border-radius: 3px; padding: 0 4px; width: 16em; }
"""



class TreeRows(JSComponent):
    """A window of the tree list's rows. ``rows`` items: ``[id, prefix, on_active_path, label, text, kind]``.

    ``total`` is the number of visible rows of the whole list, ``offset`` the index of ``rows[0]`` in
    it; a ``{"kind": "window", "start": n}`` message asks for the rows from ``n`` (the user scrolled).
    """

    rows = param.List(default=[], doc="The window of visible rows sent to the browser, in display order.")
    offset = param.Integer(default=0, doc="Index of rows[0] among all visible rows.")
    total = param.Integer(default=0, doc="Number of visible rows of the whole list.")
    selected = param.String(default="", doc="Id of the selected row.")
    selected_index = param.Integer(default=-1, doc="Index of the selected row among all visible rows (-1: none).")
    empty_text = param.String(default="No entries found")

    # The browser code is a file, not a string: served, Panel hands the page its URL (a cached
    # module, imported as is) instead of the text, which the browser would otherwise put through
    # Panel's in-page TypeScript transform on every page load before the first row could be drawn.
    _esm = "tree_rows.js"
    _bundle = "tree_rows.js"
    _stylesheets = [_CSS]

    def __init__(self, **params: Any) -> None:
        params.setdefault("sizing_mode", "stretch_both")
        super().__init__(**params)
        self._listeners: list[Callable[[dict[str, Any]], None]] = []

    def on_message(self, callback: Callable[[dict[str, Any]], None]) -> None:
        """Receive key and label messages from the browser."""
        self._listeners.append(callback)

    def _handle_msg(self, data: Any) -> None:
        if isinstance(data, dict):
            for callback in list(self._listeners):
                callback(data)

    def edit_label(self) -> None:
        """Open the inline label editor on the selected row."""
        self._send_msg({"kind": "edit-label"})

    def focus(self) -> None:
        self._send_msg({"kind": "focus"})
