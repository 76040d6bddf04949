"""A whole stream replayed headless: the time bound first, then every event through a simulated session.

Its own module because the time bound (``timebound``) replays with ``SimulatedSession`` itself: the
run sits above both, and neither needs to import the other back.
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.replay.config import ReplayConfig, ReplaySource, as_source
from workbench.replay.events import ReplayResult
from workbench.replay.session import SimulatedSession
from workbench.replay.stream import Stream
from workbench.replay.timebound import guard
from workbench.rules import Rule


def run_session(source: ReplaySource | Stream, rules: Iterable[Rule], config: ReplayConfig | None = None) -> ReplayResult:
    """Run a whole stream; rules whose regex exceeds ``config.time_bound`` seconds are disabled and reported.

    ``config.judge`` answers judged rules (none: they are never delivered); an ``ask`` judge cannot
    answer here, so it raises ``JudgePending`` (step with a ``Stepper`` instead). The time bound runs
    without the judge: it must not ask anyone anything."""
    stream = as_source(source).stream
    rules = list(rules)
    config = (ReplayConfig() if config is None else config).for_stream(stream)
    disabled, bound_events = guard(stream, rules, config)
    sim = SimulatedSession(rules, config, disabled_rules=disabled, stream=stream)
    sim.events.extend(bound_events)
    for i, ev in enumerate(stream.events):
        sim.feed(i, ev)
    return sim.finish()
