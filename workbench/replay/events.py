"""What a replay reports: the events the simulated session emitted and the summary of a run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from workbench.replay.conversation import Message
from workbench.replay.stream import thaw
from workbench.rules import Rule

ReplayEventType = Literal["ttsr_triggered", "abort", "retry", "reminder", "injection", "time_bound"]
StepStatus = Literal["live", "skipped", "ended"]
NO_CONTINUATION = "interrupted, no recorded continuation"
OTHER_CALL_REASON = "TTSR interrupt on another tool call"
CheckHook = Callable[[Any, str, list[Rule]], None]


@dataclass(frozen=True, slots=True)
class ReplayEvent:
    """Something the simulated session did; ``step`` is the index of the stream event that caused it."""

    step: int
    type: ReplayEventType
    rules: tuple[str, ...] = ()
    delta: str | None = None
    source: str | None = None
    stream_key: str | None = None
    tool_call_id: str | None = None
    reason: str | None = None
    content: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "type": self.type, "rules": list(self.rules), "delta": self.delta}
        for key in ("source", "stream_key", "tool_call_id", "reason", "content"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out.update(thaw(dict(self.detail)))
        return out


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """A finished run: what happened, what was persisted and what the model would see next."""

    events: tuple[ReplayEvent, ...]
    injected: tuple[str, ...]
    context: tuple[Message, ...]
    status: str
    stream_calls: int
    entries: tuple[Mapping[str, Any], ...]
    disabled: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "events": [e.to_json() for e in self.events],
            "injected": list(self.injected),
            "status": self.status,
            "stream_calls": self.stream_calls,
            "disabled": dict(self.disabled),
            "final": {"context": [thaw(m) for m in self.context]},
        }
