"""Small stream builders shared by the replay tests: each helper names the shape it builds."""

from __future__ import annotations

from typing import Any

from workbench.replay import make_stream, parse_event
from workbench.rules import Rule


def ev(kind: str, **fields: Any):
    return parse_event({"type": kind, **fields})


def prose_turn(*deltas: str, stop: str = "stop") -> list:
    """turn_start, one assistant message streaming ``deltas`` as text, message_end, turn_end."""
    return [
        ev("turn_start"),
        ev("message_start", role="assistant"),
        *[ev("text_delta", contentIndex=0, delta=d) for d in deltas],
        ev("message_end", stopReason=stop),
        ev("turn_end"),
    ]


def tool_turn(call_id: str, name: str, deltas: list[str], arguments: dict, result: str) -> list:
    """A turn with one tool call streamed as raw JSON ``deltas``, completed, and its result."""
    return [
        ev("turn_start"),
        ev("message_start", role="assistant"),
        ev("toolcall_start", contentIndex=0, id=call_id, name=name),
        *[ev("toolcall_delta", contentIndex=0, delta=d) for d in deltas],
        ev("toolcall_end", contentIndex=0, arguments=arguments),
        ev("message_end", stopReason="toolUse"),
        ev("tool_result", toolCallId=call_id, toolName=name, content=[{"type": "text", "text": result}]),
        ev("turn_end"),
    ]


def stream_of(*turns: list, cwd: str = "/proj"):
    return make_stream([e for t in turns for e in t], cwd=cwd)


def rule(name: str, *conditions: str, **kw: Any) -> Rule:
    return Rule(name, f"/proj/.omp/rules/{name}.md", kw.pop("content", f"Rule {name} body."), condition=list(conditions), **kw)
