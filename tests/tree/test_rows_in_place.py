"""``TreeList.rows_in_place_of``: the rows that stand where an entry without a row of its own would be."""

from __future__ import annotations

from workbench.tree.treelist import TreeList


def _msg(id_: str, parent: str | None, role: str, content: list[dict], ts: int) -> dict:
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": f"2026-01-01T00:00:{ts:02d}.000Z",
            "message": {"role": role, "content": content}}


def _call(n: int) -> dict:
    return {"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": {"command": f"echo {n}"}}


def _result(id_: str, parent: str, n: int, ts: int) -> dict:
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": f"2026-01-01T00:00:{ts:02d}.000Z",
            "message": {"role": "toolResult", "toolCallId": f"c{n}", "toolName": "bash",
                        "content": [{"type": "text", "text": str(n)}]}}


def test_a_tool_call_only_message_is_stood_in_for_by_its_children_in_order():
    entries = [
        _msg("a1", "gone", "assistant", [_call(1), _call(2)], 1),  # lost its parent; tool calls only
        _result("r1", "a1", 1, 2),
        _result("r2", "a1", 2, 3),
        _msg("a2", "r2", "assistant", [_call(3)], 4),  # tool calls only again: its child stands in
        _result("r3", "a2", 3, 5),
        _msg("u1", "r3", "user", [{"type": "text", "text": "thanks"}], 6),  # the leaf
    ]
    for flavor in ("omp", "pi", "omp18"):
        tl = TreeList(entries, flavor=flavor, filter_mode="all")
        assert "a1" not in tl.visible_ids and "r1" in tl.visible_ids
        assert tl.rows_in_place_of("a1") == ["r1", "r2"], flavor
        assert tl.rows_in_place_of("a2") == ["r3"]
        assert tl.rows_in_place_of("r2") == ["r2"]
        assert tl.rows_in_place_of("missing") == []
