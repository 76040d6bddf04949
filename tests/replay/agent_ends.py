"""Test support: the agent's ``agent_end`` settles along a replay, derived from what the simulated
session did (the agent-session tests check them; the workbench itself shows no settles).

The agent emits ``agent_end`` whenever its loop stops. A TTSR abort stops it with the retry already
scheduled (the session still has its abort pending), so that settle carries ``willContinue: true``;
the loop the retry starts stops like any other, when a turn ends with no tool call to run and no
queued hidden follow-up to deliver, and that settle does not continue (the agent waits for the user).
A user abort (a turn recorded with ``stopReason: "aborted"``) settles the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workbench.replay.config import ReplayConfig
from workbench.replay.events import ReplayResult
from workbench.replay.session import SimulatedSession
from workbench.replay.stream import Stream
from workbench.rules import Rule


@dataclass(frozen=True, slots=True)
class AgentEnd:
    """One settle of the agent loop: the stream step that caused it and whether a retry follows."""

    step: int
    will_continue: bool

    def to_json(self) -> dict[str, Any]:
        return {"type": "agent_end", "step": self.step, "willContinue": self.will_continue}


class AgentEndLog:
    """Feeds a ``SimulatedSession`` and records the ``agent_end`` settles its events imply."""

    def __init__(self, sim: SimulatedSession) -> None:
        self.sim = sim
        self.ends: list[AgentEnd] = []

    def feed(self, index: int, ev: Any) -> str:
        sim = self.sim
        had_tools = sim.turn_had_tools
        before = len(sim.events)
        status = sim.feed(index, ev)
        new = sim.events[before:]
        if any(e.type == "abort" for e in new):
            self.ends.append(AgentEnd(index, True))
        elif status == "live" and ev.type == "turn_end" and not had_tools:
            delivered = any(e.type == "injection" and e.detail.get("deferred") for e in new)
            if not delivered:
                self.ends.append(AgentEnd(index, False))
        return status


def replay_with_agent_ends(stream: Stream, rules: Iterable[Rule], config: ReplayConfig | None = None
                           ) -> tuple[ReplayResult, tuple[AgentEnd, ...], SimulatedSession]:
    """Run ``stream`` (no time bound) and return the result, the settles and the finished session."""
    sim = SimulatedSession(list(rules), config, stream=stream)
    log = AgentEndLog(sim)
    for i, ev in enumerate(stream.events):
        log.feed(i, ev)
    return sim.finish(), tuple(log.ends), sim
