"""The conversation the model sees, as persistent (structure-sharing) values.

Snapshots of a long stream must not copy the growing assistant text at every step, so text that grows
by appending lives in a ``Rope`` shared by every snapshot of the turn; a ``TextView`` is a prefix of it.
A ``Conversation`` is an immutable linked list of messages: appending shares the whole prefix.
Messages are plain dicts in the reference's ``AgentMessage`` shape, treated as read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]


class Rope:
    """Append-only text shared by the views of one growing block (prefixes never change)."""

    __slots__ = ("_parts", "_length", "_joined")

    def __init__(self, text: str = "") -> None:
        self._parts: list[str] = [text] if text else []
        self._length = len(text)
        self._joined: str | None = text

    def __len__(self) -> int:
        return self._length

    def text(self) -> str:
        if self._joined is None or len(self._joined) != self._length:
            self._joined = "".join(self._parts)
            self._parts = [self._joined] if self._joined else []
        return self._joined

    def append(self, suffix: str) -> None:
        if suffix:
            self._parts.append(suffix)
            self._length += len(suffix)


class TextView:
    """An immutable prefix of a ``Rope``."""

    __slots__ = ("_rope", "_length")

    def __init__(self, rope: Rope, length: int) -> None:
        self._rope = rope
        self._length = length

    @classmethod
    def of(cls, text: str) -> TextView:
        return cls(Rope(text), len(text))

    def __len__(self) -> int:
        return self._length

    @property
    def rope(self) -> Rope:
        """The growing text this view is a prefix of (views of one block share it)."""
        return self._rope

    def __str__(self) -> str:
        text = self._rope.text()
        return text if len(text) == self._length else text[: self._length]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TextView):
            return self._length == other._length and str(self) == str(other)
        if isinstance(other, str):
            return self._length == len(other) and str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return f"TextView({str(self)!r})"

    def extend(self, suffix: str) -> TextView:
        """This view plus ``suffix``; shares the rope when this view is its tip (the usual case)."""
        if not suffix:
            return self
        if self._length == len(self._rope):
            self._rope.append(suffix)
            return TextView(self._rope, self._length + len(suffix))
        return TextView.of(str(self) + suffix)


@dataclass(frozen=True, slots=True)
class LazyMessage:
    """A message built on demand (the partial assistant message of a snapshot)."""

    build: Callable[[], Message]

    def materialize(self) -> Message:
        return self.build()


class Conversation:
    """Immutable linked list of messages; ``append`` is O(1) and shares the prefix."""

    __slots__ = ("_prev", "_message", "_length")

    def __init__(self, prev: Conversation | None = None, message: Message | LazyMessage | None = None) -> None:
        self._prev = prev
        self._message = message
        self._length = 0 if prev is None and message is None else (len(prev) if prev else 0) + 1

    EMPTY: Conversation  # set below

    def __len__(self) -> int:
        return self._length

    def append(self, message: Message | LazyMessage) -> Conversation:
        return Conversation(self if self._length else None, message)

    def extend(self, messages: Iterable[Message | LazyMessage]) -> Conversation:
        out = self
        for m in messages:
            out = out.append(m)
        return out

    def _nodes(self) -> list[Conversation]:
        nodes: list[Conversation] = []
        node: Conversation | None = self
        while node is not None and node._length:
            nodes.append(node)
            node = node._prev
        nodes.reverse()
        return nodes

    def messages(self) -> list[Message]:
        """Materialize the messages, oldest first."""
        out = []
        for node in self._nodes():
            m = node._message
            out.append(m.materialize() if isinstance(m, LazyMessage) else m)
        return out  # type: ignore[return-value]

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages())

    def truncate(self, length: int) -> Conversation:
        """The first ``length`` messages (shares structure)."""
        node: Conversation = self
        while node._length > length:
            node = node._prev or Conversation.EMPTY
        return node

    def last(self) -> Message | None:
        if not self._length:
            return None
        m = self._message
        return m.materialize() if isinstance(m, LazyMessage) else m


Conversation.EMPTY = Conversation()


def text_of(message: Message) -> str:
    """Plain text of a message's content (for text output and searching)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "thinking":
            parts.append(block.get("thinking", ""))
        elif block.get("type") == "toolCall":
            parts.append(f"{block.get('name')}({block.get('arguments')})")
    return "\n".join(parts)
