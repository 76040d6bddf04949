"""Recorded stream files (DESIGN "Recorded streams") for the three scenarios."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from typing import Any

from .chunking import clean, json_chunks, text_chunks
from .project import CWD
from .scenarios import SCENARIOS, Scenario
from .session import ms, tool_call_id, write_jsonl

STREAM_START = datetime(2026, 9, 15, 14, 0, 0, tzinfo=timezone.utc)
# The session each stream belongs to (ttsr-fired.jsonl replays the first two).
SESSION_OF = {
    "prose-unwrap": "ttsr-fired.jsonl",
    "tool-console-log": "ttsr-fired.jsonl",
    "ast-as-any": "ast-as-any (not saved as a session)",
}


def call_ids(scenario: Scenario) -> list[list[str]]:
    """Stable tool-call ids per turn; ``ttsr-fired.jsonl`` uses the same ones."""
    out, n = [], 0
    for turn in scenario.turns:
        ids = []
        for _ in turn.calls:
            n += 1
            ids.append(tool_call_id(f"{scenario.key}:call:{n}"))
        out.append(ids)
    return out


def events(scenario: Scenario, start: datetime) -> list[dict[str, Any]]:
    clock = start
    out: list[dict[str, Any]] = [
        {"type": "stream", "version": 1, "cwd": CWD, "session": SESSION_OF[scenario.key], "note": scenario.note},
        # The user's prompt (workbench extension event), so a retry's conversation starts where the agent's did.
        {"type": "user_message", "content": [{"type": "text", "text": scenario.prompt}]},
    ]
    for turn, ids in zip(scenario.turns, call_ids(scenario)):
        clock += timedelta(seconds=3)
        out.append({"type": "turn_start"})
        out.append({"type": "message_start", "role": "assistant", "timestamp": ms(clock)})
        index = 0
        if turn.thinking:
            for piece in text_chunks(turn.thinking):
                out.append({"type": "thinking_delta", "contentIndex": index, "delta": piece})
            index += 1
        if turn.text:
            for piece in text_chunks(turn.text):
                out.append({"type": "text_delta", "contentIndex": index, "delta": piece})
            index += 1
        for call, cid in zip(turn.calls, ids):
            out.append({"type": "toolcall_start", "contentIndex": index, "id": cid, "name": call.name})
            for piece in json_chunks(call.args):
                out.append({"type": "toolcall_delta", "contentIndex": index, "delta": piece})
            out.append({"type": "toolcall_end", "contentIndex": index, "arguments": call.args})
            index += 1
        out.append({"type": "message_end", "stopReason": turn.stop})
        for call, cid in zip(turn.calls, ids):
            out.append(
                {
                    "type": "tool_result",
                    "toolCallId": cid,
                    "toolName": call.name,
                    "content": [{"type": "text", "text": call.result}],
                    "isError": call.is_error,
                }
            )
        out.append({"type": "turn_end"})
    # The SPLIT marker only shapes chunk boundaries; make sure none leaked into the data.
    assert all(clean(str(e)) == str(e) for e in out)
    return out


def write_streams(root: str) -> list[str]:
    folder = os.path.join(root, "streams")
    os.makedirs(folder, exist_ok=True)
    written = []
    for i, scenario in enumerate(SCENARIOS):
        name = f"streams/{scenario.key}.stream.jsonl"
        write_jsonl(os.path.join(root, name), events(scenario, STREAM_START + timedelta(hours=i)))
        written.append(name)
    return written
