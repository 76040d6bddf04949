"""The assistant message while it streams: content blocks by ``contentIndex``.

Text and raw tool-argument JSON grow in shared ropes (``TextView``), so every snapshot of the message
is a small tuple of frozen blocks whatever the length of the output. Tool arguments are parsed from the
raw JSON only when a message is materialised, or taken from ``toolcall_end`` when the call completed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import workbench.replay.engine as engine
from workbench.replay.conversation import Message, TextView
from workbench.replay.engine import PartialJsonParser

BlockKind = Literal["text", "thinking", "toolCall"]
_EMPTY = TextView.of("")


@dataclass(frozen=True, slots=True)
class Block:
    """One content block; for a tool call ``text`` is the raw argument JSON streamed so far."""

    index: int
    kind: BlockKind
    text: TextView = _EMPTY
    id: str = ""
    name: str = ""
    completed: bool = False
    arguments: Mapping[str, Any] | None = None

    @property
    def raw(self) -> TextView:
        return self.text

    def extended(self, delta: str) -> Block:
        """This block with ``delta`` appended (``dataclasses.replace`` costs more at every delta)."""
        return Block(self.index, self.kind, self.text.extend(delta), self.id, self.name, self.completed, self.arguments)

    def to_content(self) -> dict[str, Any]:
        if self.kind == "text":
            return {"type": "text", "text": str(self.text)}
        if self.kind == "thinking":
            return {"type": "thinking", "thinking": str(self.text)}
        args = self.arguments if self.arguments is not None else engine.parse_partial(str(self.text))
        return {"type": "toolCall", "id": self.id, "name": self.name, "arguments": dict(args)}


@dataclass(frozen=True, slots=True)
class PartialMessage:
    """An immutable picture of the streaming message at one step."""

    timestamp: int | float
    blocks: tuple[Block, ...]

    def message(self, stop: str, error: str | None = None, blocks: tuple[Block, ...] | None = None) -> Message:
        out: Message = {
            "role": "assistant",
            "content": [b.to_content() for b in (self.blocks if blocks is None else blocks)],
            "stopReason": stop,
            "timestamp": self.timestamp,
        }
        if error is not None:
            out["errorMessage"] = error
        return out

    def aborted(self, reason: str) -> tuple[Message, tuple[Block, ...]]:
        """The aborted message (incomplete tool calls dropped) and its completed tool calls."""
        kept = tuple(b for b in self.blocks if b.kind != "toolCall" or b.completed)
        completed = tuple(b for b in kept if b.kind == "toolCall")
        return self.message("aborted", reason, kept), completed


class StreamingMessage:
    """Mutable builder used by the session; ``snapshot()`` freezes it."""

    __slots__ = ("timestamp", "_blocks", "_args", "_parsed")

    def __init__(self, timestamp: int | float) -> None:
        self.timestamp = timestamp
        self._blocks: dict[int, Block] = {}
        # One incremental parser per tool call: the agent re-parses the whole argument text at every
        # delta, and resuming the scan gives the same answer without rescanning the text.
        self._args: dict[int, PartialJsonParser] = {}
        self._parsed: dict[int, Mapping[str, Any]] = {}

    def _index_for(self, index: int | None, kind: BlockKind) -> int:
        if index is not None:
            return index
        if self._blocks:  # no contentIndex: continue the last block of this kind, else open a new one
            last = self._blocks[max(self._blocks)]
            if last.kind == kind:
                return last.index
            return max(self._blocks) + 1
        return 0

    def append_text(self, index: int | None, kind: BlockKind, delta: str) -> Block:
        i = self._index_for(index, kind)
        block = self._blocks.get(i)
        if block is None or block.kind != kind:
            block = Block(i, kind, TextView.of(delta))
        else:
            block = block.extended(delta)
        self._blocks[i] = block
        return block

    def start_tool(self, index: int, call_id: str, name: str) -> None:
        self._blocks[index] = Block(index, "toolCall", TextView.of(""), call_id, name)
        self._args[index] = PartialJsonParser()
        self._parsed[index] = {}

    def partial_arguments(self, index: int) -> Mapping[str, Any]:
        """The tool call's arguments so far, parsed as the agent parses partial JSON."""
        return self._parsed.get(index, {})

    def append_tool(self, index: int, delta: str) -> Block | None:
        block = self._blocks.get(index)
        if block is None:  # no toolcall_start: keep the raw text, but the call has no id or name
            self._blocks[index] = Block(index, "toolCall", TextView.of(delta))
            return None
        if block.kind != "toolCall" or not (block.id or block.name):
            if block.kind == "toolCall":
                self._blocks[index] = block.extended(delta)
            return None  # a delta aimed at a text block is not a tool call (the text is left alone)
        block = block.extended(delta)
        self._blocks[index] = block
        value = self._args[index].feed(delta)
        self._parsed[index] = value if isinstance(value, Mapping) else {}
        return block

    def end_tool(self, index: int, arguments: Mapping[str, Any] | None) -> None:
        block = self._blocks.get(index)
        if block is None or block.kind != "toolCall":
            return
        args = arguments if arguments is not None else engine.parse_partial(str(block.text))
        self._blocks[index] = replace(block, completed=True, arguments=args)

    def incomplete_tools(self) -> list[Block]:
        return [b for b in self._ordered() if b.kind == "toolCall" and not b.completed]

    def _ordered(self) -> tuple[Block, ...]:
        return tuple(self._blocks[i] for i in sorted(self._blocks))

    def snapshot(self) -> PartialMessage:
        return PartialMessage(self.timestamp, self._ordered())

    def finalize(self, stop: str, error: str | None = None) -> Message:
        return self.snapshot().message(stop, error)

    def aborted(self, reason: str) -> tuple[Message, tuple[Block, ...]]:
        return self.snapshot().aborted(reason)
