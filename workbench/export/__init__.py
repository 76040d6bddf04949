"""Shareable exports: a session's tree and entries, or a stepper run, as one self-contained HTML file.

- ``session_payload(session, *, leaf=None, flavor="omp")`` / ``stepper_payload(stepper, *, step=0)``:
  the data a page carries, as plain JSON (compact: see ``payload``).
- ``render_page(payload, *, title)``: the HTML document (data inert, viewer inline, a CSP that allows
  no request at all, so the file works offline and nothing from a session can run).
- ``conversation_markdown(session, leaf)`` / ``path_json(session, leaf)`` / ``FORMATS``: ``--format md|json``.
- ``Redactor(extra)`` / ``Redaction``: secrets, mail and home paths replaced in the export's copy.
- ``export_html(out, *, session=None, stepper=None, step=0, leaf=None, flavor="omp")``: both, written
  to ``out`` atomically; refuses to write over a file the export reads.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from workbench.errors import UsageError
from workbench.export.formats import FORMATS, conversation_markdown, path_json
from workbench.export.page import embed_json, render_page
from workbench.export.payload import session_payload, stepper_payload, triggers
from workbench.export.redact import Redaction, Redactor
from workbench.replay import Stepper
from workbench.sessions import Session

__all__ = ["FORMATS", "Redaction", "Redactor", "conversation_markdown", "embed_json", "export_html", "path_json", "render_page", "session_payload", "stepper_payload", "triggers"]


def export_html(out: str | os.PathLike[str], *, session: Session | None = None, stepper: Stepper | None = None,
                step: int = 0, leaf: str | None = None, flavor: str = "omp", inputs: tuple[str, ...] = (),
                redactor: Redactor | None = None, report: list[Redaction] | None = None,
                dry_run: bool = False, progress: Callable[[int, int], None] | None = None) -> Path:
    """Write one HTML file holding ``session`` and/or ``stepper``; returns its path.

    ``redactor``: the page carries a redacted copy (what was found is appended to ``report``);
    ``dry_run``: build and redact, write nothing (the preview)."""
    target = Path(out)
    if target.suffix.lower() not in (".html", ".htm"):
        raise UsageError("the export is an HTML file; give a name ending in .html", field="out", value=out)
    read = {Path(p).resolve() for p in inputs if p} | ({Path(session.path).resolve()} if session else set())
    if target.resolve() in read:
        raise UsageError("that is an input of the export; it is never overwritten", field="out", value=out)
    if session is None and stepper is None:
        raise UsageError("nothing to export: give a session, a stream, or both")
    payload: dict = {"meta": {
        "title": f"{Path(session.path).name if session else 'stream'} — TTSR Workbench export",
        "source": Path(session.path).name if session else None,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "openAt": "stepper" if stepper is not None else "tree",
    }}
    if session is not None:
        payload["session"] = session_payload(session, leaf=leaf, flavor=flavor)
    if stepper is not None:
        payload["stepper"] = stepper_payload(stepper, step=step, progress=progress)
    if redactor is not None:
        payload, found = redactor.redact(payload)
        payload["meta"]["redacted"] = found.counts
        if report is not None:
            report.append(found)
    if dry_run:
        return target
    text = render_page(payload, title=payload["meta"]["title"])
    target.parent.mkdir(parents=True, exist_ok=True)
    # Atomic: a reader never sees half a page, and a failed write leaves any older export intact.
    fd, tmp = tempfile.mkstemp(prefix=".export-", suffix=".html", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; an export is meant to be shared
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
