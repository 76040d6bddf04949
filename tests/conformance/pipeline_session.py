"""rules-pipeline.json handlers for the session layer: kind -> fn(case, whole_file).

``session_scenario`` cases describe the reference's mock model in prose (``input.model_script``).
The script is translated into a recorded stream (one turn per ``stream #N``) and played through the
simulated session; every ``expected`` key is asserted, and a key or script item this runner does not
understand fails the case (never a silent pass).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.conformance.pipeline_rules import rule_from_js
from workbench.replay import ReplayConfig, SimulatedSession, make_stream, parse_event
from workbench.replay.conversation import text_of

_STREAM = re.compile(r"stream\s*#(\d+)\s*:", re.I)
_QUOTED = r"'((?:[^'\\]|\\.)*)'"
_TOOL_RETURNS = re.compile(r"Tool\s+(\w+)\s+returns\s+text\s+" + _QUOTED + r"\s*\.?", re.I)


def _split_items(text: str) -> list[str]:
    """Split a stream script on top-level ``,`` / ``;`` (not inside quotes, braces or parentheses)."""
    items, depth, quote, cur = [], 0, False, []
    for ch in text:
        if ch == "'" and (not cur or cur[-1] != "\\"):
            quote = not quote
        elif not quote and ch in "{(":
            depth += 1
        elif not quote and ch in "})":
            depth -= 1
        if not quote and depth == 0 and ch in ",;":
            items.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    items.append("".join(cur).strip().rstrip("."))
    return [i for i in items if i]


def _js_object(text: str) -> dict[str, Any]:
    """The script's JS-ish object literals (``{id:'x', arguments:{k:'v'}}``) as a dict."""
    import json

    quoted = re.sub(_QUOTED, lambda m: json.dumps(m.group(1).replace("\\'", "'")), text)
    keyed = re.sub(r"([{,]\s*)([A-Za-z_]\w*)\s*:", r'\1"\2":', quoted)
    return json.loads(keyed)


def script_to_events(script: str) -> list[Any]:
    """Translate a ``model_script`` into stream events; raises ``ValueError`` on anything unknown."""
    tool_returns = {m.group(1): m.group(2) for m in _TOOL_RETURNS.finditer(script)}
    script = _TOOL_RETURNS.sub("", script)
    parts = _STREAM.split(script)
    if len(parts) < 3 or parts[0].strip():
        raise ValueError(f"cannot read model_script {script!r}: expected 'stream #N: ...' segments")
    events: list[Any] = []
    for body in parts[2::2]:
        events.append(parse_event({"type": "turn_start"}))
        calls: list[tuple[int, str, str, dict]] = []
        index = 0
        started = False

        def start() -> None:
            nonlocal started
            if not started:
                events.append(parse_event({"type": "message_start", "role": "assistant"}))
                started = True

        for item in _split_items(body):
            if item == "start":
                start()
            elif item == "continuation":
                start()
                events.append(parse_event({"type": "text_delta", "contentIndex": index, "delta": "continuation"}))
                events.append(parse_event({"type": "message_end", "stopReason": "stop"}))
            elif m := re.fullmatch(r"text_delta\s+" + _QUOTED, item):
                start()
                events.append(parse_event({"type": "text_delta", "contentIndex": index, "delta": m.group(1)}))
            elif m := re.fullmatch(r"toolCall\s*(\{.*\})", item, re.S):
                start()
                call = _js_object(m.group(1))
                index = len(calls)
                calls.append((index, str(call.get("id", "")), str(call["name"]), call.get("arguments") or {}))
                events.append(parse_event({"type": "toolcall_start", "contentIndex": index, "id": calls[-1][1], "name": calls[-1][2]}))
            elif m := re.fullmatch(r"toolcall_delta\s+" + _QUOTED, item):
                if not calls:
                    raise ValueError(f"toolcall_delta before any toolCall in {item!r}")
                events.append(parse_event({"type": "toolcall_delta", "contentIndex": calls[-1][0], "delta": m.group(1).replace("\\'", "'")}))
            elif m := re.fullmatch(r"done\((\w+)(?:\s*,\s*" + _QUOTED + r")?\)", item):
                start()
                if m.group(2) is not None:
                    events.append(parse_event({"type": "text_delta", "contentIndex": len(calls), "delta": m.group(2)}))
                for ci, _cid, _name, args in calls:
                    events.append(parse_event({"type": "toolcall_end", "contentIndex": ci, "arguments": args}))
                events.append(parse_event({"type": "message_end", "stopReason": m.group(1)}))
                for _ci, cid, name, _args in calls:
                    if name not in tool_returns:
                        raise ValueError(f"the script does not say what tool {name!r} returns")
                    events.append(parse_event({"type": "tool_result", "toolCallId": cid, "toolName": name,
                                               "content": [{"type": "text", "text": tool_returns[name]}]}))
            else:
                raise ValueError(f"cannot interpret model_script item {item!r}")
        events.append(parse_event({"type": "turn_end"}))
    return events


def _tool_results(context: list[dict]) -> list[dict]:
    return [m for m in context if m.get("role") == "toolResult"]


def _check(key: str, value: Any, sim: SimulatedSession, result: Any, events: list[Any]) -> None:
    context = list(result.context)
    injections = [e for e in result.events if e.type == "injection"]
    checks: dict[str, Callable[[], None]] = {
        "stream_calls_at_least": lambda: _eq(result.stream_calls >= value, True, key),
        "stream_calls_exactly": lambda: _eq(result.stream_calls, value, key),
        "isStreaming_after": lambda: _eq(sim.streaming is not None or result.status == "running", value, key),
        "continuation_completed_before_prompt_returns": lambda: _eq(
            bool(injections) and result.status == "completed"
            and any(ev.type == "message_end" for ev in events[injections[-1].step + 1:])
            and context[-1].get("role") == "assistant",
            value, key),
        "tool_executed": lambda: _eq(
            any(not text_of(m).startswith("Tool execution was aborted") for m in _tool_results(context)), value, key),
        "toolResult_text_contains": lambda: [
            _eq(needle in "\n".join(text_of(m) for m in _tool_results(context)), True, f"{key} {needle!r}")
            for needle in value
        ],
        "reminder_before_tool_output": lambda: _eq(_reminder_first(context), value, key),
    }
    if key not in checks:
        pytest.fail(f"session_scenario: unknown expected key {key!r}")
    checks[key]()


def _reminder_first(context: list[dict]) -> bool:
    for message in _tool_results(context):
        blocks = message.get("content") or []
        if len(blocks) >= 2 and blocks[0].get("text", "").startswith("<system-reminder"):
            return True
    return False


def _eq(actual: Any, expected: Any, key: str) -> None:
    assert actual == expected, f"{key}: expected {expected!r}, got {actual!r}"


def run_session_scenario(case: dict, whole: dict) -> None:
    inp = case["input"]
    if inp.get("action", "prompt") != "prompt":
        pytest.fail(f"session_scenario: unknown action {inp.get('action')!r}")
    try:
        events = script_to_events(inp["model_script"])
    except ValueError as exc:
        pytest.fail(f"session_scenario: {exc}")
    stream = make_stream(events, cwd="/tmp")
    rules = [rule_from_js(r) for r in inp.get("rules", [])]
    sim = SimulatedSession(rules, ReplayConfig.of(inp.get("settings"), cwd="/tmp"), stream=stream)
    for i, ev in enumerate(stream.events):
        sim.feed(i, ev)
    result = sim.finish()
    for key, value in case["expected"].items():
        _check(key, value, sim, result, events)


HANDLERS: dict = {"session_scenario": run_session_scenario}
