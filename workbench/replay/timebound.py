"""Time bounds for rule conditions: a catastrophic regex must not hang a replay.

JavaScript-semantics regexes run in native code that cannot be interrupted from Python, and the engine
(``workbench.ttsr``) stays pure, so the bound lives here: the replay first runs in a forked child
process that reports its progress event by event. When the child stops making progress for
``seconds``, the parent kills it, finds the rule responsible by re-running up to that step with each
rule disabled in turn (in parallel children), disables it, reports it (a ``time_bound`` event) and
tries again. The real run then happens in-process with those rules disabled, and cannot hang.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from workbench.errors import TimeBoundError
from workbench.rules import Rule

_POLL = 0.01
_MAX_PARALLEL = 8


@dataclass(frozen=True, slots=True)
class TimeBound:
    """A rule disabled because a condition ran past the bound at ``step``."""

    rule: str
    step: int
    seconds: float

    @property
    def message(self) -> str:
        return f"rule condition exceeded the {self.seconds:g}s time bound at step {self.step} (catastrophic backtracking?)"


def _child(progress: Any, until: int, stream: Any, rules: list[Rule], settings: Any, options: dict[str, Any]) -> None:
    from workbench.replay import engine
    from workbench.replay.session import SimulatedSession

    options = dict(options)
    explain = options.pop("explain", False)
    sim = SimulatedSession(rules, settings, stream=stream, **options)
    if explain:  # the stepper also asks the manager why each rule did or did not fire
        sim.on_check = lambda ctx, method, matches: engine.explain(sim.manager, ctx)
    for i, ev in enumerate(stream.events[:until]):
        sim.feed(i, ev)
        progress.value = i + 1


class _Run:
    """One guarded child replaying ``stream`` up to event ``until`` with some rules disabled."""

    def __init__(self, ctx: Any, stream: Any, rules: list[Rule], settings: Any, options: dict[str, Any],
                 disabled: Mapping[str, str], until: int) -> None:
        self.progress = ctx.Value("q", 0, lock=False)
        opts = {**options, "disabled_rules": dict(disabled)}
        self.until = until
        self.proc = ctx.Process(target=_child, args=(self.progress, until, stream, rules, settings, opts), daemon=True)
        self.proc.start()
        self.seen = -1
        self.since = time.monotonic()
        self.result: int | None | str = "running"  # None = finished, int = step that hung

    def poll(self, seconds: float) -> bool:
        """Update ``result``; True while still running."""
        if self.result != "running":
            return False
        if not self.proc.is_alive():
            self.proc.join()
            self.result = None  # finished (an exception is re-raised by the in-process run)
            return False
        value = self.progress.value
        now = time.monotonic()
        if value != self.seen:
            self.seen, self.since = value, now
        elif now - self.since > seconds:
            self.proc.kill()
            self.proc.join()
            self.result = int(value)
            return False
        return True


def _wait(runs: Sequence[_Run], seconds: float) -> None:
    while any([r.poll(seconds) for r in runs]):
        time.sleep(_POLL)


def _context() -> Any:
    return mp.get_context("fork")


def first_hang(stream: Any, rules: list[Rule], settings: Any, options: dict[str, Any],
               disabled: Mapping[str, str], seconds: float, until: int | None = None) -> int | None:
    """The index of the first event whose processing does not finish within ``seconds``, or None."""
    run = _Run(_context(), stream, rules, settings, options, disabled, len(stream.events) if until is None else until)
    _wait([run], seconds)
    return run.result if isinstance(run.result, int) else None


def find_slow_rules(stream: Any, rules: list[Rule], settings: Any, options: dict[str, Any],
                    disabled: Mapping[str, str], step: int, seconds: float) -> list[str]:
    """Rules whose removal lets event ``step`` finish in time (else: rules that hang on their own)."""
    candidates = [r.name for r in rules if r.name not in disabled and (r.condition or r.ast_condition)]
    ctx = _context()

    slow: list[str] = []
    without = [(n, {**disabled, n: "trial"}) for n in candidates]
    for start in range(0, len(without), _MAX_PARALLEL):
        batch = without[start:start + _MAX_PARALLEL]
        runs = [_Run(ctx, stream, rules, settings, options, d, step + 1) for _, d in batch]
        _wait(runs, seconds)
        slow.extend(name for (name, _), run in zip(batch, runs) if run.result is None)
    if slow:
        return slow
    alone = [(n, {**disabled, **{o: "trial" for o in candidates if o != n}}) for n in candidates]
    for start in range(0, len(alone), _MAX_PARALLEL):
        batch = alone[start:start + _MAX_PARALLEL]
        runs = [_Run(ctx, stream, rules, settings, options, d, step + 1) for _, d in batch]
        _wait(runs, seconds)
        slow.extend(name for (name, _), run in zip(batch, runs) if isinstance(run.result, int))
    return slow


def guard(stream: Any, rules: Iterable[Rule], settings: Any, *, seconds: float | None, **options: Any
          ) -> tuple[dict[str, str], list[Any]]:
    """Rules to disable (name -> reason) and the ``time_bound`` events reporting them.

    ``options`` are ``SimulatedSession`` keywords, plus ``explain=True`` to exercise the manager's
    ``explain`` after every check as the stepper does.
    """
    from workbench.replay.session import ReplayEvent

    rules = list(rules)
    if seconds is None or not stream.events or not any(r.condition or r.ast_condition for r in rules):
        return {}, []
    if mp.current_process().daemon:
        # A daemonic worker (e.g. a multiprocessing pool running a backtest) may not start children;
        # the caller's own task timeout is the bound there.
        return {}, []
    disabled: dict[str, str] = {}
    events: list[Any] = []
    while True:
        step = first_hang(stream, rules, settings, options, disabled, seconds)
        if step is None:
            return disabled, events
        slow = find_slow_rules(stream, rules, settings, options, disabled, step, seconds)
        if not slow:
            raise TimeBoundError(
                f"event {step} of the stream exceeded the {seconds:g}s time bound and no single rule was found responsible"
            )
        for name in slow:
            disabled[name] = TimeBound(name, step, seconds).message
        events.append(ReplayEvent(step, "time_bound", tuple(slow), reason=TimeBound(slow[0], step, seconds).message,
                                  detail=MappingProxyType({"seconds": seconds})))
