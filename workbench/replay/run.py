"""A whole stream replayed headless: the time bound first, then every event through a simulated session.

Its own module because the time bound (``timebound``) replays with ``SimulatedSession`` itself: the
run sits above both, and neither needs to import the other back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workbench.replay.events import ReplayResult
from workbench.replay.judges import Judge
from workbench.replay.session import SimulatedSession
from workbench.replay.stream import Stream
from workbench.replay.timebound import guard
from workbench.rules import Rule


def run_session(stream: Stream, rules: Iterable[Rule], settings: Any = None, *, cwd: str | None = None,
                home: str | None = None, templates: Any = None, resume: Any = None,
                edit_mode: str | None = None, time_bound: float | None = 2.0,
                judge: Judge | None = None) -> ReplayResult:
    """Run a whole stream; rules whose regex exceeds ``time_bound`` seconds are disabled and reported.

    ``judge`` answers judged rules (none: they are never delivered); an ``ask`` judge cannot answer
    here, so it raises ``JudgePending`` (step with a ``Stepper`` instead). The time bound runs
    without the judge: it must not ask anyone anything."""
    rules = list(rules)
    where = cwd or stream.cwd or "/"
    disabled, bound_events = guard(stream, rules, settings, cwd=where, home=home, templates=templates,
                                   resume=resume, edit_mode=edit_mode, seconds=time_bound)
    sim = SimulatedSession(rules, settings, cwd=where, home=home, templates=templates, resume=resume,
                           disabled_rules=disabled, edit_mode=edit_mode, stream=stream, judge=judge)
    sim.events.extend(bound_events)
    for i, ev in enumerate(stream.events):
        sim.feed(i, ev)
    return sim.finish()
