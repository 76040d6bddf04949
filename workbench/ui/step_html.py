"""HTML for one stepper snapshot: the buffers with matched spans and the rules table.

Colours follow the app's three meanings: a rule that fired is "triggered" (red), a rule held back
by its repeat policy ("spent" under once, "waiting" for its gap) is "suppressed" (amber).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.ui.entry_html import esc, highlight_spans, table_html

_BUFFER_TAIL = 1500
_SUPPRESSED = {"spent", "waiting"}


def no_buffer_words(snap: Any) -> str:
    """Why the Buffers panel is empty: nothing streamed yet, or no rule reads what did stream (a
    buffer exists only for text some rule's scope watches; "(no buffer yet)" read as broken there)."""
    if not snap.rules:
        return "No buffer: no rules are loaded, so no text is watched."
    if snap.index == 0:
        return "No buffer yet: no model text has streamed at this step."
    return ("No buffer: no rule watches the text streamed so far (a rule's scope says which text it "
            "reads; the Rules table's \"why now\" says why each did not look).")


def buffers_html(snap: Any) -> str:
    """Every stream buffer with the spans the rules' regexes matched (the tail of long buffers)."""
    if not snap.buffers:
        return f'<div class="wb-muted">{esc(no_buffer_words(snap))}</div>'
    parts = []
    for b in snap.buffers:
        text = str(b.text)
        fired = set(snap.matched)
        names = sorted({name for name, _a, _z in b.spans})
        cut = max(0, len(text) - _BUFFER_TAIL)
        shown = text[cut:]
        # spans of rules that fired here in the trigger colour; others (scope not monitored, spent)
        # are only underlined: the regex matches but the rule did not act on it
        local = [(a - cut, z - cut, "wb-match" if name in fired else "wb-match-other")
                 for name, a, z in b.spans if z > cut]
        head = "…" if cut else ""
        tag = "".join(f'<span class="wb-tag {"wb-tag-trigger" if n in fired else ""}" '
                      f'title="{"fired" if n in fired else "regex matches; rule did not fire"}">{esc(n)}</span>'
                      for n in names)
        parts.append(f'<div class="wb-card"><h4>{esc(b.key)} {tag}</h4>'
                     f'<div class="wb-pre">{head}{highlight_spans(shown, local)}</div></div>')
    return "".join(parts)


def rules_html(snap: Any, judged: Any = (), rejected: Mapping[str, str] | None = None) -> str:
    """The rules table: status, last injection, gap, turns left and why the rule did or did not fire.
    Rules named in ``judged`` (a ``question``: asked after each message, never matched) are marked.
    ``rejected``: rules discovery turned away (name → reason); they never reach the manager, so the
    snapshot does not know them, and they are listed as not registered rather than left out."""
    rows, classes = [], []
    judged = set(judged)
    for r in snap.rules:
        status = r.status
        cls = "wb-row-trigger" if status == "triggered" else "wb-row-suppressed" if status in _SUPPRESSED else ""
        last = "—" if r.last_injected_at is None else f"turn {r.last_injected_at}"
        why = "matched" if r.why is None and r.matched else (r.rejected if not r.registered else r.why) or ""
        rows.append([f"{r.name} (judged)" if r.name in judged else r.name, status.upper() if status == "triggered" else status, last,
                     "—" if r.gap is None else r.gap, "—" if r.remaining is None else r.remaining, why])
        classes.append(cls)
    known = {r.name for r in snap.rules}
    for name, reason in (rejected or {}).items():
        if name not in known:
            rows.append([name, "not registered", "—", "—", "—", f"invalid rule file: {reason}"])
            classes.append("wb-row-suppressed")
    if not rows:
        return '<div class="wb-muted">No rules: choose a rules folder.</div>'
    return table_html(["rule", "status", "last inj.", "gap", "left", "why now"], rows, classes)
