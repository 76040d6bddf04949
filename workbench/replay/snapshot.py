"""What the stepper shows for one stream event: ``Snapshot``, with its ``BufferView``s and ``RuleState``s.

All three are immutable; a snapshot shares every piece that did not change with its predecessor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workbench.replay.conversation import Conversation, TextView
from workbench.replay.events import ReplayEvent, StepStatus
from workbench.replay.stream import StreamEvent

NOT_CHECKED = "not checked at this event"


class BufferView:
    """One stream buffer and the spans each rule's regex conditions matched in it.

    Immutable; ``spans`` is computed on first access (most steps are never displayed), from the
    rules' conditions compiled once per stepper.
    """

    __slots__ = ("key", "text", "_conditions", "_spans")
    key: str
    text: TextView
    _conditions: tuple[tuple[str, Any], ...]
    _spans: tuple[tuple[str, int, int], ...] | None

    def __init__(self, key: str, text: TextView, conditions: tuple[tuple[str, Any], ...] = ()) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_conditions", conditions)
        object.__setattr__(self, "_spans", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    @property
    def spans(self) -> tuple[tuple[str, int, int], ...]:
        """(rule, start, end) for every match of every condition, by rule then position."""
        if self._spans is None:
            text = str(self.text)
            found: list[tuple[str, int, int]] = []
            for name, conditions in self._conditions:
                spans: set[tuple[int, int]] = set()
                for cond in conditions:
                    spans.update(cond.spans(text))
                found.extend((name, a, b) for a, b in sorted(spans))
            object.__setattr__(self, "_spans", tuple(found))
        return self._spans  # type: ignore[return-value]  # set just above

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BufferView):
            return NotImplemented
        return self.key == other.key and self.text == other.text and self._conditions == other._conditions

    def __hash__(self) -> int:
        return hash((self.key, len(self.text)))

    def __repr__(self) -> str:
        return f"BufferView({self.key!r}, {str(self.text)!r})"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "text": str(self.text), "spans": [list(s) for s in self.spans]}


@dataclass(frozen=True, slots=True)
class RuleState:
    """A rule at one step: registration, repeat bookkeeping and why it did or did not fire."""

    name: str
    registered: bool
    rejected: str | None  # why it is not registered
    last_injected_at: int | float | None
    gap: int | float | None
    remaining: int | float | str | None  # turns until it may fire again, "spent" under once, None = never injected
    why: str | None  # first failed gate at this step; None = it matched
    matched: bool = False

    @property
    def status(self) -> str:
        """One word for a table: disabled, not registered, triggered, spent, waiting or armed."""
        if not self.registered:
            return "disabled" if (self.rejected or "").startswith("disabled") else "not registered"
        if self.matched:
            return "triggered"
        if self.remaining == "spent":
            return "spent"
        if isinstance(self.remaining, (int, float)) and self.remaining > 0:
            return "waiting"
        return "armed"

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__slots__}
        out["status"] = self.status
        return out


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything the workbench shows for one stream event."""

    index: int
    event: StreamEvent
    status: StepStatus
    session_status: str
    message_count: int | float
    buffers: tuple[BufferView, ...]
    rules: tuple[RuleState, ...]
    matched: tuple[str, ...]
    pending: tuple[str, ...]
    claims: tuple[tuple[str, tuple[str, ...]], ...]
    follow_ups: tuple[tuple[str, ...], ...]
    events: tuple[ReplayEvent, ...]
    # (kind, text): "injection" / "reminder" rendered this step, else "interrupt-preview" /
    # "reminder-preview" of what the rules matched at this step would render.
    rendered: tuple[tuple[str, str], ...]
    conversation: Conversation
    retry_keep: Conversation
    retry_discard: Conversation
    injected: tuple[str, ...]
    # Judged rules: the judge queue of the message completed at this step (``JudgeRound``s, usually
    # one), and the request an ``ask`` judge waits on here (the stepper goes no further until answered).
    judge_queue: tuple[Any, ...] = ()
    judge_waiting: Any = None
    # At a tool-call event of an edit call: the mode it was read with and why (stream_key, tool, mode, reason).
    edit_mode: Mapping[str, Any] | None = None

    @property
    def is_trigger(self) -> bool:
        return bool(self.matched) or any(e.type != "time_bound" for e in self.events) or (
            self.judge_waiting is not None)

    @property
    def buffer_map(self) -> dict[str, BufferView]:
        return {b.key: b for b in self.buffers}

    def buffer(self, key: str) -> BufferView | None:
        return next((b for b in self.buffers if b.key == key), None)

    def rule(self, name: str) -> RuleState | None:
        return next((r for r in self.rules if r.name == name), None)

    def to_json(self, *, conversations: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "event": self.event.to_json(),
            "status": self.status,
            "session_status": self.session_status,
            "message_count": self.message_count,
            "buffers": [b.to_json() for b in self.buffers],
            "rules": [r.to_json() for r in self.rules],
            "matched": list(self.matched),
            "pending": list(self.pending),
            "claims": {k: list(v) for k, v in self.claims},
            "follow_ups": [list(f) for f in self.follow_ups],
            "events": [e.to_json() for e in self.events],
            "rendered": [{"kind": k, "text": t} for k, t in self.rendered],
            "injected": list(self.injected),
            "judge_queue": [r.to_json() for r in self.judge_queue],
            "judge_waiting": self.judge_waiting.to_json() if self.judge_waiting is not None else None,
            "edit_mode": dict(self.edit_mode) if self.edit_mode is not None else None,
        }
        if conversations:
            out["conversation"] = self.conversation.messages()
            out["retry"] = {"keep": self.retry_keep.messages(), "discard": self.retry_discard.messages()}
        return out
