"""The stream as a timeline: one lane per turn with its deltas, and the session's acts marked on it.

What a trace viewer shows: where each turn starts and ends (in stream steps), how its output arrived
(text, thinking and tool-call deltas), and where the replay triggered, aborted, retried, injected or
reminded. Filters pick lanes by tool, by error, or by model. Pure: built from a stream and the events
a replay emitted (``ReplayResult.events`` or the stepper's), so the CLI, the app and notebooks share it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from workbench.replay.events import ReplayEvent
from workbench.replay.stream import Stream

DeltaKind = Literal["text", "thinking", "toolcall"]
_DELTA_KINDS: dict[str, DeltaKind] = {"text_delta": "text", "thinking_delta": "thinking", "toolcall_delta": "toolcall"}
MARKER_KINDS = ("ttsr_triggered", "abort", "retry", "injection", "reminder", "time_bound")


@dataclass(frozen=True, slots=True)
class Marker:
    step: int
    kind: str  # one of MARKER_KINDS
    rules: tuple[str, ...]
    label: str


@dataclass(frozen=True, slots=True)
class Lane:
    """One turn of the stream: steps ``start``..``end`` (inclusive)."""

    turn: int
    start: int
    end: int
    deltas: tuple[tuple[int, DeltaKind, int], ...]  # (step, kind, characters)
    markers: tuple[Marker, ...]
    tools: tuple[str, ...]
    models: tuple[str, ...]
    error: bool  # the message stopped with an error, or a tool result is an error

    @property
    def characters(self) -> int:
        return sum(n for _, _, n in self.deltas)


@dataclass(frozen=True, slots=True)
class Timeline:
    lanes: tuple[Lane, ...]
    steps: int

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(sorted({t for lane in self.lanes for t in lane.tools}))

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(sorted({m for lane in self.lanes for m in lane.models}))

    def filter(self, *, tool: str | None = None, error: bool | None = None, model: str | None = None) -> Timeline:
        """The lanes that use ``tool``, have (or lack) an error, or ran on ``model``."""
        lanes = [lane for lane in self.lanes
                 if (tool is None or tool in lane.tools) and (error is None or lane.error == error)
                 and (model is None or model in lane.models)]
        return replace(self, lanes=tuple(lanes))

    def lane_at(self, step: int) -> Lane | None:
        return next((lane for lane in self.lanes if lane.start <= step <= lane.end), None)


def _label(ev: ReplayEvent) -> str:
    rules = ", ".join(ev.rules)
    if ev.type == "ttsr_triggered":
        interrupt = ev.detail.get("interrupt")
        return f"triggered {rules}" + (" (interrupts)" if interrupt else " (no interrupt)" if interrupt is False else "")
    if ev.type == "abort":
        return f"abort: {ev.reason or rules}"
    if ev.type == "retry":
        mode = ev.detail.get("mode")
        return f"retry ({mode})" if mode else "retry"
    return f"{ev.type.replace('_', ' ')} {rules}".strip()


def build_timeline(stream: Stream, events: Iterable[ReplayEvent] = ()) -> Timeline:
    by_step: dict[int, list[ReplayEvent]] = {}
    for ev in events:
        by_step.setdefault(ev.step, []).append(ev)
    lanes: list[Lane] = []
    current: dict[str, Any] | None = None

    def close(end: int) -> None:
        nonlocal current
        if current is not None:
            markers = tuple(Marker(s, e.type, e.rules, _label(e)) for s in range(current["start"], end + 1)
                            for e in by_step.get(s, ()))
            lanes.append(Lane(len(lanes), current["start"], end, tuple(current["deltas"]), markers,
                              tuple(sorted(current["tools"])), tuple(sorted(current["models"])), current["error"]))
        current = None

    for step, item in enumerate(stream.events):
        if item.type == "turn_start" or current is None:
            close(step - 1)
            current = {"start": step, "deltas": [], "tools": set(), "models": set(), "error": False}
        kind = _DELTA_KINDS.get(item.type)
        if kind is not None:
            current["deltas"].append((step, kind, len(item.delta or "")))
        if item.type == "toolcall_start" and item.name:
            current["tools"].add(item.name)
        model = item.extra.get("model") if item.type == "message_start" else None
        if isinstance(model, str):
            current["models"].add(model)
        if (item.type == "message_end" and item.stop_reason == "error") or (item.type == "tool_result" and item.is_error):
            current["error"] = True
        if item.type == "turn_end":
            close(step)
    close(len(stream.events) - 1)
    return Timeline(tuple(lanes), len(stream.events))
