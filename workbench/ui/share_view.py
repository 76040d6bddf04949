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

The preview and the export replay every step of the stepper run (a re-chunked session of a thousand
entries has tens of thousands): they run on the view's ``Background`` with a progress bar and a
Cancel button, so the page keeps answering, and the download starts when the file is built. The
dialog shows how many steps the run has; above ``STEP_LIMIT`` the run is left out by default (the
user may tick it back), so a big session exports its tree at once.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import UsageError
from workbench.export import Redaction, Redactor, export_html
from workbench.replay import Stepper
from workbench.ui.background import Background, Task
from workbench.ui.entry_html import esc, table_html
from workbench.ui.notify import describe, notify, reporting
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


# Above this many steps the stepper run is left out of the export by default: replaying and storing
# 5,000 steps takes a few seconds and a page of some MB; a re-chunked big session (52,187 steps for
# 1,002 entries) takes minutes and hundreds of MB, which nobody wants by accident.
STEP_LIMIT = 5_000

Progress = Callable[[int, int, str], None]


def stepper_steps(state: AppState) -> int | None:
    """How many steps the export's stepper run has (``None``: nothing to replay, or it cannot be read).
    Cheap: the re-chunked stream is counted, not replayed."""
    if state.stream_path() is None and state.session_path() is None:
        return None
    try:
        return len(load_source(state).stream.events)
    except Exception:  # the export itself reports what is wrong with the files; the count is a hint
        return None


def export_bytes(state: AppState, *, with_stepper: bool = True, redactor: Redactor | None = None,
                 report: list[Redaction] | None = None, dry_run: bool = False,
                 progress: Progress | None = None) -> tuple[bytes, str]:
    """(HTML, file name): the open session and, if a stream is at hand, the stepper run at ``state.step``.

    ``redactor``: the page is a redacted copy (what was found is appended to ``report``); ``dry_run``:
    nothing is built into a page (the preview), the bytes are empty. ``progress(done, total, text)`` is
    called as the steps are replayed (a background task's ``progress``, which also stops a cancelled
    export there)."""

    session_path = state.session_path()
    session = open_session(state)
    stepper = None
    stream_path = state.stream_path()
    if with_stepper and (stream_path is not None or session is not None):
        # the replay model's source and configuration (docs/architecture.md, "The app"), replayed afresh
        # here: the export is built without the page's judge, as ``workbench export`` builds it
        replayed = load_source(state, session=session)
        # the rules' pre-check replays the stream on its own count: told in the text, the bar waits at 0
        # (its full count would otherwise fill the bar before the export has begun)
        check = ((lambda done, total: progress(0, 1, f"checking the rules: {done:,} of {total:,}"))
                 if progress else None)
        stepper = Stepper(replayed, state.rule_set().rules(), state.replay_config(replayed.stream, replayed.session),
                          progress=check)
        if progress is not None:
            # the export replays every step anyway: stepping here first is what lets it report and stop
            total = len(stepper)
            for index in range(total):
                stepper.seek(index)
                if index % 50 == 0 or index == total - 1:
                    progress(index + 1, 2 * total, f"replaying step {index + 1:,} of {total:,}")
    if session is None and stepper is None:
        raise UsageError("nothing to export: open a session or choose a stream")
    step = min(state.step, max(len(stepper) - 1, 0)) if stepper is not None else 0
    source = session_path or stream_path
    stem = Path(source).name.split(".")[0] if source else "export"
    name = f"{stem}-step{step}.html" if stepper is not None else f"{stem}.html"
    if redactor is not None:
        name = name.replace(".html", "-redacted.html")
    def written(done: int, total: int) -> None:  # the second half of the bar: each step into the page
        if progress is not None:
            progress(total + done, 2 * total, f"writing step {done:,} of {total:,} into the page")

    with tempfile.TemporaryDirectory(prefix="workbench-export-") as tmp:
        out = export_html(Path(tmp) / name, session=session, stepper=stepper, step=step, leaf=state.leaf or None,
                          flavor=state.flavour, redactor=redactor, report=report, dry_run=dry_run,
                          progress=written)
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
        self.bg = Background()
        self._task: Task | None = None
        self.steps: int | None = None  # the stepper run's length for the current choices (None: unknown)
        self.counting = False  # a count of the steps is under way (the download waits for it)
        self._count_generation = 0
        self.open_button = pn.widgets.Button(label="Export…", width=90, color="light", align="center",
                                             css_classes=["wb-export-open"])
        self.with_stepper = pn.widgets.Checkbox(label="with the stepper run at the current step", value=True,
                                                css_classes=["wb-export-stepper"])
        self.steps_note = pn.pane.HTML("", stylesheets=theme_sheets(), css_classes=["wb-export-steps"],
                                       sizing_mode="stretch_width", margin=(0, 10))
        self.redact = pn.widgets.Checkbox(label="redact before sharing (the patterns of workbench export --redact)",
                                          value=False, css_classes=["wb-redact-on"])
        # "Export HTML" builds the file in the background; when it is built, ``self.save`` (hidden, a
        # download button) is handed the bytes and starts the browser's download by itself (auto).
        self.download = pn.widgets.Button(label="Export HTML", width=200, css_classes=["wb-export"], color="primary")
        self.save = pn.widgets.FileDownload(filename="export.html", label="Save", auto=True, visible=False,
                                            css_classes=["wb-export-save"])
        self.progress = pn.indicators.Progress(value=0, max=100, width=220, visible=False, align="center",
                                               css_classes=["wb-export-progress"])
        self.progress_text = pn.pane.HTML("", visible=False, css_classes=["wb-export-progress-text"],
                                          stylesheets=theme_sheets(), align="center")
        self.cancel_button = pn.widgets.Button(label="Cancel", width=80, visible=False, color="light",
                                               css_classes=["wb-export-cancel"])
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
        self.dialog = pn.layout.Modal(intro, self.with_stepper, self.steps_note, self.redact, self.patterns,
                                      pn.Row(self.preview_button, self.download, self.save, margin=(4, 0)),
                                      pn.Row(self.progress, self.progress_text, self.cancel_button, margin=(0, 0)),
                                      self.preview, css_classes=["wb-export-dialog"], width=760)
        self.open_button.on_click(lambda *_: self.open_dialog())
        self.preview_button.on_click(lambda *_: self.run_preview())
        self.download.on_click(lambda *_: self.start_export())
        self.cancel_button.on_click(lambda *_: self.cancel())
        self.redact.param.watch(lambda *_: self._on_redact(), "value")
        self.patterns.param.watch(lambda *_: self._on_redact(), "value")
        self.with_stepper.param.watch(lambda *_: self._show_steps(), "value")
        self.state.param.watch(lambda *e: self.update_link(), list(URL_KEYS.values()))
        self.state.param.watch(lambda *e: self._choices_changed(), ["session", "stream", "chunking"])
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
        # with nothing open there is nothing to download
        self.download.disabled = not self._can_export() or self.busy or self.counting

    # -- the stepper run's size ------------------------------------------------------------------------
    def open_dialog(self) -> None:
        self.count_steps()
        self.dialog.show()

    def _choices_changed(self) -> None:
        """Another session, stream or chunking: the count is recounted now if the dialog is open, else
        when it opens. Counting loads and derives the session's stream; done at every page build, it
        parsed a large session a second time beside the tab that opened it (on a 1 GB file: the first
        tree row twice as late and twice the memory; docs/large-sessions.md)."""
        self.steps = None
        if self.dialog.open:
            self.count_steps()
        else:
            self._show_steps()

    def count_steps(self) -> None:
        """Count the stepper run's steps (in the background: deriving a big session's stream takes a
        moment) and, above ``STEP_LIMIT``, untick the box with a note. The download waits for the count,
        so a run above the limit is never exported by a click made before the count was known."""
        state = self.state
        self._count_generation += 1
        generation = self._count_generation

        def counted(steps: int | None) -> None:
            if generation != self._count_generation:
                return  # a newer count (other choices) is under way
            self.counting = False
            changed = steps != self.steps
            self.steps = steps
            if changed and steps is not None and steps > STEP_LIMIT:
                self.with_stepper.value = False
            self._show_steps()
            self.update_link()

        def failed(exc: BaseException) -> None:
            if generation == self._count_generation:
                self.counting = False
                self.update_link()

        self.counting = True
        self._show_steps()
        self.update_link()
        self.bg.submit(lambda task: stepper_steps(state), what="Counting the stepper's steps", done=counted,
                       failed=failed, lane="export-steps")

    def _show_steps(self) -> None:
        steps = self.steps
        if steps is None:
            self.steps_note.object = ('<div class="wb-muted">Counting the stepper run\'s steps…</div>'
                                      if self.counting else "")
        elif steps > STEP_LIMIT:
            self.steps_note.object = (
                f'<div class="wb-kv wb-warn">The stepper run has <b>{steps:,}</b> steps: above {STEP_LIMIT:,} it is '
                "left out by default (replaying and storing every step can take minutes and make a very large "
                "page)." + (" Included: the export runs in the background, and Cancel stops it."
                            if self.with_stepper.value else " Tick the box to include it anyway.") + "</div>")
        else:
            self.steps_note.object = f'<div class="wb-muted">The stepper run has {steps:,} step(s).</div>'

    # -- background work ---------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.bg.busy("export")

    def _working(self, on: bool, what: str = "") -> None:
        self.progress.param.update(visible=on, value=0)
        self.progress_text.param.update(visible=on, object=f'<span class="wb-export-msg">{esc(what)}</span>')
        self.cancel_button.visible = on
        self.download.disabled = on or not self._can_export() or self.counting
        self.preview_button.disabled = on or not self.redact.value

    def _report(self, done: int, total: int, text: str) -> None:
        self.progress.value = max(self.progress.value, int(100 * done / max(total, 1)))
        self.progress_text.object = f'<span class="wb-export-msg">{esc(text)}</span>'

    def cancel(self) -> None:
        """Stop the running preview or export (nothing is downloaded)."""
        self.bg.cancel("export")
        self._working(False)
        notify("Export cancelled", "info")

    def _submit(self, what: str, work: Callable[[Task], Any], done: Callable[[Any], None],
                failed: Callable[[BaseException], None] | None = None) -> Task:
        self.bg.cancel("export")  # one at a time: a new request replaces the one under way
        self._working(True, what + "…")

        def finished(value: Any) -> None:
            self._working(False)
            done(value)

        def gave_up(exc: BaseException) -> None:
            self._working(False)
            notify(f"{what}: {describe(exc)}", "error")
            if failed is not None:
                failed(exc)

        self._task = self.bg.submit(work, what=what, done=finished, failed=gave_up, progress=self._report,
                                    lane="export")
        return self._task

    def _redactor(self) -> Redactor | None:
        return Redactor(extra_patterns(self.patterns.value or "")) if self.redact.value else None

    def _on_redact(self) -> None:
        on = bool(self.redact.value)
        self.patterns.disabled = self.preview_button.disabled = not on or self.busy
        self.download.label = "Export redacted HTML" if on else "Export HTML"
        if on:
            self.run_preview()
        else:
            self.preview.object = ""

    def run_preview(self) -> Task | None:
        """Build the export's redacted copy without writing it and show what it replaces (the count
        first), in the background."""
        state, with_stepper = self.state, bool(self.with_stepper.value)
        try:
            redactor = Redactor(extra_patterns(self.patterns.value or ""))
        except Exception as exc:  # a bad pattern: reported, never a traceback
            notify(f"Redaction preview: {describe(exc)}", "error")
            self.preview.object = '<div class="wb-muted">No preview: see the message.</div>'
            return None

        def work(task: Task) -> Redaction:
            report: list[Redaction] = []
            export_bytes(state, with_stepper=with_stepper, redactor=redactor, report=report, dry_run=True,
                         progress=task.progress)
            return report[0]

        def shown(found: Redaction) -> None:
            self.preview.object = preview_html(found)

        def no_preview(exc: BaseException) -> None:
            self.preview.object = '<div class="wb-muted">No preview: see the message.</div>'

        self.preview.object = '<div class="wb-muted">Building the preview…</div>'
        return self._submit("Redaction preview", work, shown, no_preview)

    def start_export(self) -> Task:
        """Build the file in the background; when it is built the browser downloads it."""
        state, with_stepper, redactor = self.state, bool(self.with_stepper.value), self._redactor()

        def work(task: Task) -> tuple[bytes, str, list[Redaction]]:
            report: list[Redaction] = []
            data, name = export_bytes(state, with_stepper=with_stepper, redactor=redactor, report=report,
                                      progress=task.progress)
            task.check()  # cancelled while the page was being written: nothing is downloaded
            return data, name, report

        def built(value: tuple[bytes, str, list[Redaction]]) -> None:
            data, name, report = value
            self.save.filename = name
            self.save._sync_data(io.BytesIO(data))  # hands the browser the file; auto: it downloads it
            redacted = f", {report[0].total} value(s) redacted" if report else ""
            notify(f"Exported {name} ({len(data):,} bytes{redacted})", "success")

        return self._submit("Export", work, built)

    def _export(self) -> io.BytesIO | None:
        """The export built at once (no browser: tests, a notebook); the page uses ``start_export``."""
        if self.steps is None:
            self.count_steps()  # what the dialog counts when it opens: a run above the limit is left out
        with reporting("Export"):
            report: list[Redaction] = []
            data, name = export_bytes(self.state, with_stepper=self.with_stepper.value, redactor=self._redactor(),
                                      report=report)
            self.save.filename = name
            return io.BytesIO(data)
        return None

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Row(self.open_button, self.copy, self.link, margin=0)
