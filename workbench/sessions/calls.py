"""The tool call a tool result answers: the ``toolCall`` block with the result's ``toolCallId`` in the
assistant message above it on the branch.

omp 18's ``/tree`` shows a call and its result as one row (the result's), so the Entry view of that row
needs the call's arguments (an edit's diff) from the entry above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.sessions.entries import Entry

__all__ = ["answered_call"]

_LOOK_UP = 64  # entries walked up the branch: a result follows its call within one turn


def answered_call(by_id: Mapping[str, Entry], entry: Entry) -> tuple[Entry, Mapping[str, Any]] | None:
    """``(assistant entry, toolCall block)`` answered by the tool result ``entry``; ``None`` otherwise."""
    msg = entry.message
    call_id = msg.get("toolCallId") if msg is not None and msg.get("role") == "toolResult" else None
    if not isinstance(call_id, str) or not call_id:
        return None
    current: Entry | None = entry
    for _ in range(_LOOK_UP):
        parent = current.parent_id if current is not None else None
        current = by_id.get(parent) if parent is not None else None
        if current is None:
            return None
        found = current.message
        if found is None or found.get("role") != "assistant" or not isinstance(found.get("content"), (list, tuple)):
            continue
        for block in found["content"]:
            if isinstance(block, Mapping) and block.get("type") == "toolCall" and block.get("id") == call_id:
                return current, block
    return None
