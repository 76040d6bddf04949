"""A page-level keyboard listener for a tab (the Stepper's ←/→, Space, N).

It listens on the document while its own (invisible) element is on screen, ignores keys typed into
form fields, and forwards the key name to Python callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import param
from panel.custom import JSComponent

_ESM = r"""
export function render({ model, el }) {
  const marker = document.createElement("span");
  marker.style.display = "inline-block";
  marker.style.width = "1px";
  marker.style.height = "1px";
  const wanted = new Set(model.keys);
  const onKey = (e) => {
    if (!marker.isConnected || marker.offsetParent === null) return;
    const t = e.composedPath()[0];
    const tag = (t && t.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag) || (t && t.isContentEditable)) return;
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    const name = (e.shiftKey && e.key.length === 1 ? "shift+" : "") + (e.key === " " ? "space" : e.key.toLowerCase());
    if (!wanted.has(name)) return;
    e.preventDefault();
    model.send_msg({ key: name });
  };
  document.addEventListener("keydown", onKey);
  model.on("remove", () => document.removeEventListener("keydown", onKey));
  return marker;
}
"""


class KeyCatcher(JSComponent):
    """Forwards the listed keys (``arrowleft``, ``space``, ``n``, ``shift+n`` …) while it is visible."""

    keys = param.List(default=[], item_type=str)

    _esm = _ESM

    def __init__(self, keys: Iterable[str], callback: Callable[[str], Any], **params: Any) -> None:
        params.setdefault("width", 1)
        params.setdefault("height", 1)
        params.setdefault("margin", 0)
        super().__init__(keys=list(keys), **params)
        self._callback = callback

    def _handle_msg(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("key"), str):
            self._callback(data["key"])
