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
CheckHook = Callable[[Any, str, list[Rule]], object]  # what a hook returns is not used


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
    # Judged rules: the judge's label (None: none configured, so judged rules are never delivered),
    # the registered judged rules and the judge queue of every completed message (``JudgeRound``).
    judge: str | None = None
    judged_rules: tuple[str, ...] = ()
    judge_rounds: tuple[Any, ...] = ()
    # Per edit-tool call: the stream key, the tool, the edit mode it was read with and why.
    edit_modes: tuple[Mapping[str, Any], ...] = ()
    # The chat notices ("Injecting rule: …"), consecutive triggers merged (``Notification``).
    notifications: tuple[Any, ...] = ()

    def judged_summary(self) -> dict[str, Any]:
        """Counts over the judge queue: outputs with candidates, requests answered, rules delivered."""
        items = [i for r in self.judge_rounds for i in r.items if i.candidates]
        return {
            "judge": self.judge,
            "rules": list(self.judged_rules),
            "requests": len(items),
            "questions": sum(len(i.candidates) for i in items),
            "asked": sum(1 for i in items if i.status == "answered"),
            "not_asked": sum(1 for i in items if i.status == "no judge"),
            "errors": sum(1 for i in items if i.status == "error"),
            "delivered": [n for i in items for n in i.claimed],
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "events": [e.to_json() for e in self.events],
            "injected": list(self.injected),
            "status": self.status,
            "stream_calls": self.stream_calls,
            "disabled": dict(self.disabled),
            "judged": {**self.judged_summary(), "queue": [r.to_json() for r in self.judge_rounds]},
            "edit_modes": [dict(m) for m in self.edit_modes],
            "notifications": [n.to_json() for n in self.notifications],
            "final": {"context": [thaw(m) for m in self.context]},
        }
