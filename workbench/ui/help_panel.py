"""What the app is for, how to start, and the ``?`` panel: keys and a glossary of the stepper's words.

The landing text says in one sentence what the workbench does and offers one first step: the
sample session where a rule fires, opened in the Stepper at the trigger. The glossary explains the
rules table: a rule's *status* at a step and the *why now* column (the first gate that kept a rule
from firing at that event, as the engine's ``explain()`` reports it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.ui.entry_html import esc

PURPOSE = ("TTSR Workbench replays coding-agent sessions through Time Traveling Stream Rules: it shows, event by "
           "event, where a rule would interrupt the model's stream, why it did or did not fire, and what the "
           "retry would see.")

KEYS = [
    ("Tree", "↑/↓", "move the selection"), ("Tree", "←/→", "page up / down"),
    ("Tree", "Alt+D/T/U/L/A", "filter: default, no-tools, user, labeled, all"), ("Tree", "Ctrl+O", "cycle the filter"),
    ("Tree", "Shift+L", "label the selected entry (empty clears)"), ("Tree", "type", "search the list"),
    ("Tree", "Esc", "clear the search (box and list)"),
    ("Stepper", "←/→", "step back / forward"), ("Stepper", "Space", "play / pause"),
    ("Stepper", "N / Shift+N", "next / previous trigger"), ("Stepper", "Home", "back to step 0"),
    ("anywhere", "?", "this help"),
]

STATUSES = [
    ("TRIGGERED", "a condition of the rule matched at this event: the rule fires (and interrupts, unless its "
                  "interrupt mode says otherwise)"),
    ("armed", "registered and allowed to fire; nothing matched yet"),
    ("waiting", "fired before; the repeat gap has not passed yet (\"left\" counts the turns to go)"),
    ("spent", "fired before under repeat mode \"once\": it will not fire again in this session"),
    ("disabled", "switched off, e.g. by the time-bound pre-check (its regex took too long on this stream)"),
    ("not registered", "the rule has no usable condition or was rejected when loading (the reason is shown)"),
]

WHY_NOW = [
    ("matched", "the rule fired at this event"),
    ("repeat: once, injected at turn N", "already injected once; repeat mode \"once\" blocks it"),
    ("repeat gap G < N", "only G messages since its last injection; it needs N"),
    ("scope: … not monitored", "the event's buffer (text, thinking, a tool's arguments) is outside the rule's scope"),
    ("scope: tool … not in […]", "a tool-call buffer for a tool or paths the rule does not watch"),
    ("path gate: no glob matched", "the files the tool call touches match none of the rule's globs"),
    ("no condition matched", "in scope, but none of the rule's regexes matches the buffer so far"),
    ("no regex condition (AST only)", "the rule only has AST conditions, checked on complete tool arguments"),
    ("…; the agent checks ast-grep rules when the call is complete",
     "at a tool-call delta: the rule's AST conditions are checked once, at the call's end (toolcall_end), as in the agent"),
    ("not checked at this event", "this event fed no buffer the rule reads"),
]


def _table(head: list[str], rows: Sequence[tuple[str, ...]]) -> str:
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return ("<table class=\"wb-table\"><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head)
            + f"</tr></thead><tbody>{body}</tbody></table>")


def help_html() -> str:
    return (f'<div class="wb-help"><p>{esc(PURPOSE)}</p><h3>Keys</h3>{_table(["where", "key", "does"], KEYS)}'
            f'<h3>Rule status (Stepper, Rules table)</h3>{_table(["status", "meaning"], STATUSES)}'
            f'<h3>"why now" (the first gate that held the rule back)</h3>{_table(["shown", "meaning"], WHY_NOW)}'
            "<p class=\"wb-muted\">Close with × at the top right.</p></div>")


def first_step(roots: Any) -> dict[str, Any] | None:
    """State for "open the sample where a rule fires, at the trigger", when the served roots hold it.

    The sample is the recorded stream whose rule interrupts mid-delta (``prose-unwrap``) with the
    session that records what TTSR left behind (``ttsr-fired``) and the project's rules; without those
    files, the first recorded stream and the first rules folder found.
    """
    streams = list(roots.stream_files())
    rule_dirs = list(roots.rule_dirs())
    if not streams or not rule_dirs:
        return None
    stream = next((s for s in streams if s.name.startswith("prose-unwrap")), streams[0])
    step: dict[str, Any] = {"stream": roots.display(stream), "rules_dir": roots.display(rule_dirs[0]),
                            "tab": "stepper", "step": 0, "goal": "first-trigger"}
    session = next((f for f in roots.session_files() if Path(f).name == "ttsr-fired.jsonl"), None)
    if session is not None:
        step["session"] = roots.display(session)
    return step
