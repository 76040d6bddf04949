"""A page-level keyboard listener for a tab (the Stepper's ←/→, Space, N).

It listens on the document while its own (invisible) element is on screen, ignores keys typed into
form fields, and forwards the key name to Python callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import param
from panel.custom import JSComponent


class KeyCatcher(JSComponent):
    """Forwards the listed keys (``arrowleft``, ``space``, ``n``, ``shift+n`` …) while it is visible."""

    keys = param.List(default=[], item_type=str)

    # The browser code is a file, not a string: served, Panel hands the page its URL (a cached
    # module, imported as is) instead of the text, which the browser would otherwise put through
    # Panel's in-page TypeScript transform on every page load before the first row could be drawn.
    _esm = "key_catcher.js"
    _bundle = "key_catcher.js"

    def __init__(self, keys: Iterable[str], callback: Callable[[str], Any], **params: Any) -> None:
        params.setdefault("width", 1)
        params.setdefault("height", 1)
        params.setdefault("margin", 0)
        super().__init__(keys=list(keys), **params)
        self._callback = callback

    def _handle_msg(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("key"), str):
            self._callback(data["key"])
