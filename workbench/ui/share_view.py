"""Header bar: download the open session (and the stepper run at the current step) as one offline
HTML file, and copy the live app's deep link.

The export is ``workbench.export.export_html``, the same file ``workbench export`` writes (every value
escaped, no request allowed by its CSP); it is built when the button is clicked, with the Stepper's
stream, rules and settings, so the page opens where the Stepper stands. The link is the page URL for
the state's shareable parameters (``state.URL_KEYS``), shown as text and copied by a small browser
callback (the Clipboard API, falling back to selecting the text for ``execCommand("copy")``).
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import UsageError
from workbench.export import export_html
from workbench.replay import ReplayConfig, Stepper, derive_stream, read_stream
from workbench.sessions import load_session
from workbench.ui.notify import notify, reporting
from workbench.ui.state import URL_KEYS, AppState

_COPY_JS = """
const text = link.value;
function fallback() {
  const area = document.createElement('textarea');
  area.value = text; document.body.appendChild(area); area.select();
  try { document.execCommand('copy'); } finally { document.body.removeChild(area); }
}
if (navigator.clipboard && window.isSecureContext) {
  navigator.clipboard.writeText(text).catch(fallback);
} else { fallback(); }
button.label = 'Copied ✓';
setTimeout(() => { button.label = 'Copy link'; }, 1500);
"""


def link_query(state: AppState) -> str:
    """The query string that restores ``state``'s shareable parameters (defaults left out)."""
    values = {}
    for key, name in URL_KEYS.items():
        value = getattr(state, name)
        if value != state.param[name].default:
            values[key] = value
    return urlencode(values)


def export_bytes(state: AppState, *, with_stepper: bool = True) -> tuple[bytes, str]:
    """(HTML, file name): the open session and, if a stream is at hand, the stepper run at ``state.step``."""

    session_path = state.session_path()
    session = load_session(session_path) if session_path is not None else None
    stepper = None
    stream_path = state.stream_path()
    if with_stepper and (stream_path is not None or session is not None):
        stream = read_stream(stream_path) if stream_path is not None else derive_stream(session, policy=state.chunking)
        ruleset = state.rule_set()
        folder = ruleset.folder
        stepper = Stepper(stream, ruleset.rules(), ReplayConfig(state.settings(), home=str(ruleset.home),
                                                     cwd=stream.cwd or (str(folder) if folder else "/"),
                                                     edit_mode=state.edit_mode))
    if session is None and stepper is None:
        raise UsageError("nothing to export: open a session or choose a stream")
    step = min(state.step, max(len(stepper) - 1, 0)) if stepper is not None else 0
    source = session_path or stream_path
    stem = Path(source).name.split(".")[0] if source else "export"
    name = f"{stem}-step{step}.html" if stepper is not None else f"{stem}.html"
    with tempfile.TemporaryDirectory(prefix="workbench-export-") as tmp:
        out = export_html(Path(tmp) / name, session=session, stepper=stepper, step=step, leaf=state.leaf or None,
                          flavor=state.flavour)
        return out.read_bytes(), name


class ShareBar(Viewer):
    """An "Export HTML" download and a "Copy link" button with the link shown beside it."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.with_stepper = pn.widgets.Checkbox(label="+ stepper", value=True, width=80, align="center",
                                                stylesheets=[":host { color: white; }"])
        self.download = pn.widgets.FileDownload(callback=self._export, filename="export.html", label="Export HTML",
                                                width=110, align="center", css_classes=["wb-export"], color="light")
        # The header's white text colour would otherwise make the link invisible on the white field.
        # The field is the header's last control: in a window too narrow for it, the header bar would
        # cut it in half, so it is hidden there (Copy link still copies it).
        self.link = pn.widgets.TextInput(value="", width=90, css_classes=["wb-link"], align="center",
                                         stylesheets=["input.bk-input { color: #24292f; background: #fff; font-size: 11px; }",
                                                      "@media (max-width: 1399px) { :host { display: none; } }"])
        self.copy = pn.widgets.Button(label="Copy link", width=95, css_classes=["wb-copy-link"], color="light",
                                      align="center")
        self.copy.js_on_click(args={"link": self.link, "button": self.copy}, code=_COPY_JS)
        self.state.param.watch(lambda *e: self.update_link(), list(URL_KEYS.values()))
        self.update_link()

    def _can_export(self) -> bool:
        return bool(self.state.session or self.state.stream)

    def url(self) -> str:
        """The deep link of the current state (absolute when served, else just the query)."""
        query = link_query(self.state)
        loc = getattr(pn.state, "location", None)
        base = ""
        if loc is not None and loc.hostname:
            port = f":{loc.port}" if loc.port else ""
            base = f"{loc.protocol}//{loc.hostname}{port}{loc.pathname}"
        return f"{base}?{query}" if query else (base or "?")

    def update_link(self) -> None:
        self.link.value = self.url()
        # with nothing open there is nothing to download (and a download button cannot report an error)
        self.download.disabled = not self._can_export()

    def _export(self) -> io.BytesIO | None:
        with reporting("Export"):
            data, name = export_bytes(self.state, with_stepper=self.with_stepper.value)
            self.download.filename = name
            notify(f"Exported {name} ({len(data):,} bytes)", "success")
            return io.BytesIO(data)
        return None

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Row(self.download, self.with_stepper, self.copy, self.link, margin=0)
