"""Session totals: tokens and cost by model, tool calls by tool, errors."""

from __future__ import annotations

import json

from workbench.sessions import parse_session_text
from workbench.sessions.usage import usage_totals


def _line(id_, parent, message):
    return json.dumps({"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z",
                       "message": message})


def test_totals_add_up_usage_by_model_and_skip_what_is_not_a_number() -> None:
    header = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"})
    text = "\n".join([
        header,
        _line("a", None, {"role": "user", "content": "go"}),
        _line("b", "a", {"role": "assistant", "model": "m1", "stopReason": "toolUse",
                         "content": [{"type": "toolCall", "id": "t", "name": "bash", "arguments": {}}],
                         "usage": {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.5}}}),
        _line("c", "b", {"role": "toolResult", "toolCallId": "t", "isError": True, "content": []}),
        _line("d", "c", {"role": "assistant", "model": "m2", "stopReason": "error", "content": [],
                         "usage": {"input": "lots", "output": 7, "cost": {"total": 0.25}}}),
        _line("e", "d", {"role": "assistant", "content": [], "usage": True}),
    ]) + "\n"
    totals = usage_totals(parse_session_text(text, path="s.jsonl").entries)
    assert totals.messages == 3 and totals.errors == 2
    assert totals.tokens["input"] == 10 and totals.tokens["output"] == 12 and totals.cost == 0.75
    assert [(m.model, m.messages, m.cost) for m in totals.by_model] == [("(unknown)", 1, 0.0), ("m1", 1, 0.5),
                                                                         ("m2", 1, 0.25)]
    assert totals.tool_calls == {"bash": 1}
    assert totals.to_json()["byModel"][1]["tokens"]["totalTokens"] == 15
