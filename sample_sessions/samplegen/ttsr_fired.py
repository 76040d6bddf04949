"""``ttsr-fired.jsonl``: what an oh-my-pi (17.4.x) session file holds after TTSR fired twice.

1. Prose interrupt (rule ``no-unwrap``, streams/prose-unwrap): the aborted assistant message
   (``stopReason: "aborted"``, the text streamed up to the matching delta), then the hidden
   ``custom_message`` (customType ``ttsr-injection``, display false, details.rules) carrying the
   rendered interrupt, then a ``ttsr_injection`` entry, then the retry (spec ttsr-and-rules §8.5).
2. Tool reminder (rule ``no-console-log``, ``interruptMode: never``, streams/tool-console-log): no
   abort; a ``ttsr_injection`` entry, then the edit's tool result with the rendered
   ``<system-reminder …>`` block prepended to the tool's own text (§8.4).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from .chunking import clean, prefix_through_match, text_chunks
from .project import CWD, rule_body
from .scenarios import PROSE_UNWRAP, TOOL_CONSOLE_LOG, Scenario
from .session import Session
from .streams import call_ids
from .templates import render_interrupt, render_reminder

UNWRAP_RULE = ".xcsh/rules/no-unwrap.md"
CONSOLE_RULE = ".omp/rules/no-console-log.md"


def _play(s: Session, scenario: Scenario, first_turn: int, ids: list[list[str]]) -> None:
    """Append the scenario's turns from ``first_turn`` on as completed assistant messages and results."""
    for turn, turn_ids in zip(scenario.turns[first_turn:], ids[first_turn:]):
        _, got = s.assistant(
            thinking=turn.thinking,
            text=clean(turn.text) if turn.text else None,
            calls=[(c.name, c.args) for c in turn.calls],
            call_ids=turn_ids,
            usage_in=9000 + 700 * len(s.entries),
        )
        for call, cid in zip(turn.calls, got):
            s.tool_result(cid, call.name, call.result, is_error=call.is_error)


def build() -> Session:
    s = Session(
        key="ttsr-fired",
        session_id="0199a8c4-7d21-7b3e-9f40-5e1a2c6d8b93",
        cwd=CWD,
        start=datetime(2026, 9, 15, 14, 0, 0, tzinfo=timezone.utc),
        flavour="omp",
        header_extra={"title": "Configurable Argon2 cost via env", "titleSource": "auto"},
    )
    s.model_change("anthropic", "claude-sonnet-4-5", role="default")
    s.thinking_level("medium")

    # ---- 1. prose interrupt ---------------------------------------------------------------------------
    ids = call_ids(PROSE_UNWRAP)
    s.user(PROSE_UNWRAP.prompt, after=5.0)
    first = PROSE_UNWRAP.turns[0]
    partial = prefix_through_match(text_chunks(first.text or ""), r"\.unwrap\(\)")
    s.assistant(
        thinking=first.thinking,
        text=partial,
        stop="aborted",
        error="TTSR matched rule: no-unwrap",
        usage_in=8200,
    )
    s.custom_message(
        "ttsr-injection",
        render_interrupt("no-unwrap", UNWRAP_RULE, rule_body(UNWRAP_RULE)),
        display=False,
        details={"rules": ["no-unwrap"]},
    )
    s.ttsr_injection(["no-unwrap"])
    _play(s, PROSE_UNWRAP, 1, ids)

    # ---- 2. tool-source match, interruptMode never: reminder folded into the tool result ----------------
    ids = call_ids(TOOL_CONSOLE_LOG)
    s.user(TOOL_CONSOLE_LOG.prompt)
    turn = TOOL_CONSOLE_LOG.turns[0]
    _, (cid,) = s.assistant(
        thinking=turn.thinking,
        text=turn.text,
        calls=[(c.name, c.args) for c in turn.calls],
        call_ids=ids[0],
        usage_in=14000,
    )
    s.ttsr_injection(["no-console-log"])
    reminder = render_reminder("no-console-log", CONSOLE_RULE, rule_body(CONSOLE_RULE))
    s.tool_result(
        cid,
        "edit",
        [{"type": "text", "text": reminder}, {"type": "text", "text": turn.calls[0].result}],
    )
    _play(s, TOOL_CONSOLE_LOG, 1, ids)
    assert re.search(r"\.unwrap\(\)", partial) and partial != clean(first.text or "")
    return s
