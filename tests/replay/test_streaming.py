"""The streaming assistant message: blocks by contentIndex and the aborted form."""

from __future__ import annotations

import json
import random

import workbench.replay.engine as engine
from workbench.replay.streaming import StreamingMessage


def test_blocks_grow_and_aborted_drops_incomplete_tool_calls():
    msg = StreamingMessage(5)
    msg.append_text(0, "thinking", "hm")
    msg.append_text(1, "text", "Let me ")
    msg.append_text(1, "text", "edit.")
    msg.start_tool(2, "a", "read")
    msg.append_tool(2, '{"path": "x')
    msg.end_tool(2, None)
    msg.start_tool(3, "b", "edit")
    msg.append_tool(3, '{"path": "y.ts", "new_string": "con')
    snap = msg.snapshot()
    full = snap.message("stop")
    assert full["content"][1] == {"type": "text", "text": "Let me edit."}
    assert full["content"][2]["arguments"] == {"path": "x"}  # parsed from the partial JSON at end
    assert full["content"][3]["arguments"] == {"path": "y.ts", "new_string": "con"}
    aborted, completed = snap.aborted("why")
    assert [b.get("id") for b in aborted["content"]] == [None, None, "a"]
    assert aborted["stopReason"] == "aborted" and aborted["errorMessage"] == "why"
    assert [b.id for b in completed] == ["a"] and [b.id for b in msg.incomplete_tools()] == ["b"]
    msg.append_text(1, "text", " more")
    assert snap.message("stop")["content"][1]["text"] == "Let me edit."  # snapshots do not move


def test_text_without_content_index_continues_the_last_block():
    msg = StreamingMessage(0)
    msg.append_text(None, "text", "a")
    msg.append_text(None, "text", "b")
    msg.append_text(None, "thinking", "t")
    assert [b.to_content() for b in msg.snapshot().blocks] == [
        {"type": "text", "text": "ab"},
        {"type": "thinking", "thinking": "t"},
    ]


def test_tool_surfaces_at_every_delta_are_those_of_a_full_re_parse():
    # The arguments are parsed incrementally (one parser per call); what the rules see at each delta,
    # the edit and write tools' paths, digest and per-file entries, must be what a re-parse of the
    # whole text so far gives.
    rng = random.Random(25)
    lines = ["const a = 1;", 'say("hi \\ there")', "\u00e9t\u00e9 \U0001F600", "\ttab", "}", "x" * 30]
    for n in range(120):
        body = "\n".join(rng.choice(lines) for _ in range(rng.randint(0, 12)))
        name, args = rng.choice([
            ("write", {"path": "src/a.ts", "content": body}),
            ("edit", {"path": "src/b.ts", "old_string": rng.choice(lines), "new_string": body}),
            ("edit", {"path": "src/c.rs", "edits": [{"old_text": "a", "new_text": body}]}),
            ("edit", {"input": "*** Begin Patch\n*** Update File: d.ts\n@@\n-a\n+" + body + "\n*** End Patch"}),
        ])
        text = json.dumps(args, ensure_ascii=n % 2 == 0)
        msg = StreamingMessage(0)
        msg.start_tool(0, "c", name)
        pos = 0
        while pos < len(text):
            step = rng.choice([1, 3, 8, 20])
            msg.append_tool(0, text[pos : pos + step])
            pos = min(len(text), pos + step)
            full = engine.parse_partial(text[:pos])
            assert msg.partial_arguments(0) == full
            got = engine.tool_surface(name, msg.partial_arguments(0), "/proj", None)
            assert got == engine.tool_surface(name, full, "/proj", None), text[:pos]
