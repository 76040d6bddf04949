"""The streaming assistant message: blocks by contentIndex and the aborted form."""

from __future__ import annotations

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
