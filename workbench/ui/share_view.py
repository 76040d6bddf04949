"""Header bar: download the open session (and the stepper run at the current step) as one offline
HTML file, and copy the live app's deep link.

The export is ``workbench.export.export_html``, the same file ``workbench export`` writes (every value
escaped, no request allowed by its CSP); it is built when the button is clicked, with the Stepper's
stream, rules and settings, so the page opens where the Stepper stands. The link is the page URL for
the state's shareable parameters (``state.URL_KEYS``), shown as text and copied by a small browser
callback (the Clipboard API, falling back to selecting the text for ``execCommand("copy")``).

"Export…" opens a dialog with the download; its redact option uses the same patterns as ``workbench export --redact`` (API keys and tokens, e-mail
addresses, home-folder paths) and any regular expressions the user adds, with a preview of every value
that will be replaced and a count per kind before anything is written. Only the export's copy
changes; the session file is read, never written.
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
from workbench.export import Redaction, Redactor, export_html
from workbench.replay import Stepper
from workbench.ui.entry_html import esc, table_html
from workbench.ui.notify import notify, reporting
from workbench.ui.replay_model import load_source, open_session
from workbench.ui.state import URL_KEYS, AppState
from workbench.ui.theme import theme_sheets

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


def export_bytes(state: AppState, *, with_stepper: bool = True, redactor: Redactor | None = None,
                 report: list[Redaction] | None = None, dry_run: bool = False) -> tuple[bytes, str]:
    """(HTML, file name): the open session and, if a stream is at hand, the stepper run at ``state.step``.

    ``redactor``: the page is a redacted copy (what was found is appended to ``report``); ``dry_run``:
    nothing is built into a page (the preview), the bytes are empty."""

    session_path = state.session_path()
    session = open_session(state)
    stepper = None
    stream_path = state.stream_path()
    if with_stepper and (stream_path is not None or session is not None):
        # the replay model's source and configuration (docs/architecture.md, "The app"), replayed afresh
        # here: the export is built without the page's judge, as ``workbench export`` builds it
        replayed = load_source(state, session=session)
        stepper = Stepper(replayed, state.rule_set().rules(), state.replay_config(replayed.stream, replayed.session))
    if session is None and stepper is None:
        raise UsageError("nothing to export: open a session or choose a stream")
    step = min(state.step, max(len(stepper) - 1, 0)) if stepper is not None else 0
    source = session_path or stream_path
    stem = Path(source).name.split(".")[0] if source else "export"
    name = f"{stem}-step{step}.html" if stepper is not None else f"{stem}.html"
    if redactor is not None:
        name = name.replace(".html", "-redacted.html")
    with tempfile.TemporaryDirectory(prefix="workbench-export-") as tmp:
        out = export_html(Path(tmp) / name, session=session, stepper=stepper, step=step, leaf=state.leaf or None,
                          flavor=state.flavour, redactor=redactor, report=report, dry_run=dry_run)
        return (b"" if dry_run else out.read_bytes()), name


def extra_patterns(text: str) -> tuple[str, ...]:
    """The user's patterns: one regular expression a line, blank lines left out."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def preview_html(found: Redaction, limit: int = 200) -> str:
    """The count per kind and every distinct value that will be replaced (escaped: they are the session's)."""
    if not found.total:
        return '<div class="wb-kv wb-redact-count">Nothing to redact: no value matches the patterns.</div>'
    kinds = " · ".join(f"{esc(kind)} <b>{n}</b>" for kind, n in found.counts.items())
    seen: dict[tuple[str, str], int] = {}
    for item in found.found:
        seen[item] = seen.get(item, 0) + 1
    rows = [(kind, text if len(text) <= 120 else text[:117] + "…", n) for (kind, text), n in list(seen.items())[:limit]]
    more = (f'<div class="wb-muted">… {len(seen) - limit:,} more value(s)</div>' if len(seen) > limit else "")
    return (f'<div class="wb-kv wb-redact-count">{found.total} value(s) will be redacted '
            f"({found.occurrences} replacement(s)): {kinds}</div>"
            + table_html(["kind", "value (replaced by [redacted:kind])", "times in the page"], rows) + more)


class ShareBar(Viewer):
    """"Export…" (a dialog: the stepper run or not, redaction with its preview, the download) and a
    "Copy link" button with the link shown beside it. The dialog (``self.dialog``) is placed by the page,
    outside the header bar, which clips what overflows it."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.open_button = pn.widgets.Button(label="Export…", width=90, color="light", align="center",
                                             css_classes=["wb-export-open"])
        self.with_stepper = pn.widgets.Checkbox(label="with the stepper run at the current step", value=True,
                                                css_classes=["wb-export-stepper"])
        self.redact = pn.widgets.Checkbox(label="redact before sharing (the patterns of workbench export --redact)",
                                          value=False, css_classes=["wb-redact-on"])
        self.download = pn.widgets.FileDownload(callback=self._export, filename="export.html", label="Export HTML",
                                                width=200, css_classes=["wb-export"], color="primary")
        # The header's white text colour would otherwise make the link invisible on the white field.
        # The field is the header's last control: in a window too narrow for it, the header bar would
        # cut it in half, so it is hidden there (Copy link still copies it). At 90 px wide it showed
        # only "http://127.0.0" at 1400 px: it is shown where the bar has room for a readable link.
        self.link = pn.widgets.TextInput(value="", width=230, css_classes=["wb-link"], align="center",
                                         stylesheets=["input.bk-input { color: #24292f; background: #fff; font-size: 11px; }",
                                                      "@media (max-width: 1599px) { :host { display: none; } }"])
        self.copy = pn.widgets.Button(label="Copy link", width=95, css_classes=["wb-copy-link"], color="light",
                                      align="center")
        self.copy.js_on_click(args={"link": self.link, "button": self.copy}, code=_COPY_JS)
        self.patterns = pn.widgets.TextAreaInput(
            placeholder="more patterns to redact, one regular expression a line (e.g. ACME-\\d+)",
            height=64, sizing_mode="stretch_width", css_classes=["wb-redact-patterns"], disabled=True)
        self.preview_button = pn.widgets.Button(label="Preview redaction", color="light", width=160,
                                                css_classes=["wb-redact-preview-button"], disabled=True)
        self.preview = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", max_height=360,
                                    styles={"overflow": "auto"}, css_classes=["wb-redact-preview"])
        intro = pn.pane.HTML(
            "<h3 style='margin:0 0 4px'>Export the open session as one HTML file</h3><div class='wb-kv'>The page "
            "works offline and shows everything from the session as text. Redaction replaces API keys and "
            "tokens (sk-…, ghp_…, AKIA…, xox…, AIza…, JWTs, Bearer headers), e-mail addresses, home-folder "
            "paths and what your patterns match by <code>[redacted:kind]</code> in the page; the session file "
            "is never changed.</div>", stylesheets=theme_sheets(), sizing_mode="stretch_width")
        self.dialog = pn.layout.Modal(intro, self.with_stepper, self.redact, self.patterns,
                                      pn.Row(self.preview_button, self.download, margin=(4, 0)), self.preview,
                                      css_classes=["wb-export-dialog"], width=760)
        self.open_button.on_click(lambda *_: self.dialog.show())
        self.preview_button.on_click(lambda *_: self.run_preview())
        self.redact.param.watch(lambda *_: self._on_redact(), "value")
        self.patterns.param.watch(lambda *_: self._on_redact(), "value")
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

    def _redactor(self) -> Redactor | None:
        return Redactor(extra_patterns(self.patterns.value or "")) if self.redact.value else None

    def _on_redact(self) -> None:
        on = bool(self.redact.value)
        self.patterns.disabled = self.preview_button.disabled = not on
        self.download.label = "Export redacted HTML" if on else "Export HTML"
        if on:
            self.run_preview()
        else:
            self.preview.object = ""

    def run_preview(self) -> Redaction | None:
        """Build the export's redacted copy without writing it and show what it replaces (the count first)."""
        with reporting("Redaction preview"):
            report: list[Redaction] = []
            export_bytes(self.state, with_stepper=self.with_stepper.value,
                         redactor=Redactor(extra_patterns(self.patterns.value or "")), report=report, dry_run=True)
            self.preview.object = preview_html(report[0])
            return report[0]
        self.preview.object = '<div class="wb-muted">No preview: see the message.</div>'
        return None

    def _export(self) -> io.BytesIO | None:
        with reporting("Export"):
            report: list[Redaction] = []
            data, name = export_bytes(self.state, with_stepper=self.with_stepper.value, redactor=self._redactor(),
                                      report=report)
            self.download.filename = name
            redacted = f", {report[0].total} value(s) redacted" if report else ""
            notify(f"Exported {name} ({len(data):,} bytes{redacted})", "success")
            return io.BytesIO(data)
        return None

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Row(self.open_button, self.copy, self.link, margin=0)
