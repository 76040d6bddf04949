"""Backtesting a rule set over an archive of sessions: "how often would my rule have fired?".

Every session file is one task: the session's active branch is derived into a stream (each recorded
assistant message re-chunked into deltas, ``workbench.replay.derive_stream``; a recorded stream
file is used as it is) and played through a
``workbench.replay.SimulatedSession`` holding the whole rule set, so every turn reaches the engine
exactly as the stepper presents it. To see *every* turn that would trigger, the probe neutralises
what would change the recording's flow: rules are run with ``interruptMode: never`` (nothing aborts,
so the rest of a turn is still seen) and ``repeatMode: after-gap`` with gap 0 (an earlier injection
never silences a rule). Each hit still says whether the rule *would have interrupted* under its own
``interruptMode`` (default ``always``). ``mode="agent"`` instead replays as the agent would under
given settings (interrupts skip the rest of a turn, the repeat policy silences injected rules):
fewer hits, the literal "how often would it have fired".

Tasks run in local worker processes (``concurrent.futures``, forkserver or spawn; the calling process
takes batches too while the pool starts; a worker leaves once that process is gone, however it stopped)
by default, or on a Dask distributed cluster given a scheduler address; the task function is the same
pure function and the results are aggregated in input order, so both give identical results. Results
can be written to a DuckDB file and Parquet (``write_results``).

A catastrophic regex must not hang a worker: each batch runs under the time bound of
``workbench.replay.timebound`` (a forked child the task can kill); in probe mode a small file is
probed and played there, a big one goes there only when a rule that may hang can fire in it. A rule
that keeps a session from progressing for ``time_bound`` seconds is disabled and reported
(``BacktestResult.disabled``), and the result is made as if it had been disabled for every session,
whichever worker met it first.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import select
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal, TypeVar

from workbench.backtest.probe import ProbeStream, probe_firings, probe_stream, warm
from workbench.backtest.results import (
    DEFAULT_SAMPLES,
    TABLES,
    BacktestResult,
    Hit,
    RuleSummary,
    SessionOutcome,
    aggregate,
    write_results,
)
from workbench.errors import NotFoundError, UsageError, WorkbenchError, WorkerFileError
from workbench.replay import (
    Bounded,
    ChunkPolicy,
    FiringRecorder,
    LastRuleSet,
    ReplayConfig,
    chunk_text,
    culprits,
    interrupts,
    may_hang,
    open_stream,
    record_firings,
    tally_session,
    wait_all,
)
from workbench.rules import MAIN_AGENT, InterruptMode, Rule, agent_from_session, resolve_rules, rules_for_agent
from workbench.sessions import Progress, session_files
from workbench.ttsr import TtsrSettings

__all__ = [
    "DEFAULT_SAMPLES", "TABLES", "BacktestOptions", "BacktestResult", "Hit", "RuleSummary", "SessionOutcome",
    "aggregate", "backtest_batch", "backtest_session", "load_rule_set", "load_stream", "run_backtest",
    "write_results",
]

# The probe: nothing aborts (the rest of a turn is still seen) and no injection silences a rule.
PROBE_SETTINGS = TtsrSettings.of(interrupt_mode="never", repeat_mode="after-gap", repeat_gap=0)
# Eight words per delta: a turn fires (or not) the same way as with one word per delta except for
# streaming-only partial states, and replay work drops several-fold (partial JSON is re-parsed at
# every tool-call delta). ``--chunk-size 1`` gives the stepper's default granularity.
DEFAULT_CHUNK_WORDS = 8
DEFAULT_TIME_BOUND = 2.0


BacktestMode = Literal["probe", "agent"]
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class BacktestOptions:
    """How sessions become streams and what the replay may change.

    ``mode="probe"`` (default) reports every turn that would trigger (nothing aborts, nothing is
    silenced by an earlier injection); ``interrupt_mode`` is the global default each hit's
    ``interrupts`` is judged against. ``mode="agent"`` replays as the agent would with
    ``settings`` (``TtsrSettings``: ``repeat_mode``, ``repeat_gap``...; the global interrupt mode is
    ``interrupt_mode``): an
    interrupt skips the rest of its turn and the retry consumes the next recorded turn, and a rule
    injected once is gated by the repeat policy, so the counts are "how often it would have fired".
    ``time_bound``: seconds a session may go without progress before the rule responsible is
    disabled (``None``: no bound).
    """

    policy: ChunkPolicy = "words"
    size: int | None = DEFAULT_CHUNK_WORDS
    interrupt_mode: InterruptMode = "always"
    mode: BacktestMode = "probe"
    settings: TtsrSettings = field(default_factory=TtsrSettings, hash=False)
    time_bound: float | None = DEFAULT_TIME_BOUND
    judge: Any = field(default=None, hash=False)  # answers judged rules (workbench.replay.judge.judges); None: never asked
    edit_mode: str | None = None  # the edit tool's mode for every call; None: read from each call (auto)
    agent: str | None = None  # the agent ``agents:`` is checked against; None: each session's own (else main)

    def replay_settings(self) -> TtsrSettings:
        if self.mode == "probe":
            return PROBE_SETTINGS
        return replace(self.settings, interrupt_mode=self.interrupt_mode)

    def interrupt_default(self) -> str:
        value = self.replay_settings().interrupt_mode if self.mode == "agent" else self.interrupt_mode
        return value if isinstance(value, str) else "always"


# --- the task ---------------------------------------------------------------------------------------


def backtest_session(path: str, rules: Sequence[Rule], options: BacktestOptions = BacktestOptions(),
                     tick: Callable[[], None] | None = None) -> SessionOutcome:
    """The task: replay every assistant turn of one session file through ``rules``, in this process and
    without a time bound (``backtest_batch`` adds it, hearing ``tick()`` after every event). Pure apart
    from reading the file; a file that is not a usable session becomes an outcome with ``error``."""
    if _probing(rules, options):
        probe = _probe(path, rules, options)
        return probe if isinstance(probe, SessionOutcome) else _probe_outcome(path, probe, rules, options, tick)
    rules = _agent_rules(path, rules, options)
    try:
        stream = load_stream(path, options)
    except WorkbenchError as exc:
        return SessionOutcome(path, 0, (), str(exc))
    except (OSError, ValueError) as exc:
        return SessionOutcome(path, 0, (), f"{path}: {exc}")
    config = ReplayConfig(options.replay_settings(), cwd=stream.cwd or "/", judge=options.judge,
                          edit_mode=options.edit_mode or "auto", time_bound=None)
    sim, recorder = record_firings(stream, _played(rules, options), config, tick=tick)
    judged = tally_session(sim.judge_rounds, sim.judged_rule_names()) if sim.judged_rule_names() else None
    return _outcome(path, stream.turn_count(), recorder.firings, sim.finish().status, rules, options, judged)


def _probing(rules: Sequence[Rule], options: BacktestOptions) -> bool:
    # Judged rules are asked about whole outputs after each message, so a rule set with any of them
    # plays every turn; otherwise probe mode skips what cannot fire (workbench.backtest.probe).
    return options.mode == "probe" and not any(r.question for r in rules)


def _probe(path: str, rules: Sequence[Rule], options: BacktestOptions) -> ProbeStream | SessionOutcome:
    """What the probe of one file plays (reading and deciding cannot hang), or its error outcome."""
    try:
        return probe_stream(path, _played(_agent_rules(path, rules, options), options), policy=options.policy,
                            size=options.size)
    except WorkbenchError as exc:
        return SessionOutcome(path, 0, (), str(exc))
    except (OSError, ValueError) as exc:
        return SessionOutcome(path, 0, (), f"{path}: {exc}")


def _probe_outcome(path: str, probe: ProbeStream, rules: Sequence[Rule], options: BacktestOptions,
                   tick: Callable[[], None] | None) -> SessionOutcome:
    """Play ``probe`` holding only those of its rules that ``rules`` still has (a rule disabled by
    the time bound after the probe was made is left out: probe-mode rules do not interact)."""
    names = {r.name for r in rules}
    if any(r.name not in names for r in probe.rules):
        probe = replace(probe, rules=tuple(r for r in probe.rules if r.name in names))
    cwd = (probe.stream.cwd if probe.stream is not None else None) or "/"
    config = ReplayConfig(options.replay_settings(), cwd=cwd, edit_mode=options.edit_mode or "auto",
                          time_bound=None)
    status, firings = probe_firings(probe, config, recorder=FiringRecorder, tick=tick)
    return _outcome(path, probe.turns, firings, status, rules, options, None)


def _outcome(path: str, turns: int, firings: Sequence[Any], status: str, rules: Sequence[Rule],
             options: BacktestOptions, judged: Any) -> SessionOutcome:
    originals = {r.name: r for r in rules}
    default = options.interrupt_default()
    hits = tuple(Hit.of(path, f, _interrupts(originals.get(f.rule), f.source, default)) for f in firings)
    return SessionOutcome(path, turns, hits, None, status, judged=judged)


# The probe's copies of the last rule set (rules with ``interruptMode: never``), made once per rule set
# rather than once per session: the same objects each time, so the probe's own memo of them holds too.
_never_interrupting: LastRuleSet[tuple[Rule, ...]] = LastRuleSet(
    lambda rules: tuple(replace(r, interrupt_mode="never") for r in rules))


def _agent_rules(path: str, rules: Sequence[Rule], options: BacktestOptions) -> Sequence[Rule]:
    """The rules that apply to the agent the session ran as: ``options.agent``, else the session's own
    (``agent_from_session``, as ``replay`` derives it for ``--agent``), else ``main``."""
    if not any(r.agents for r in rules):
        return rules
    return rules_for_agent(rules, options.agent or _session_agent(path))


def _session_agent(path: str) -> str:
    """The agent of a session file from its header and ``session_init`` entries (only those lines are parsed)."""
    header: Any = None
    inits: list[Any] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f):
                if n and '"session_init"' not in line:
                    continue
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if isinstance(data, dict) and n == 0 and data.get("type") == "session":
                    header = data
                elif isinstance(data, dict) and data.get("type") == "session_init":
                    inits.append(data)
    except OSError:
        return MAIN_AGENT
    return agent_from_session(SimpleNamespace(header=header, entries=inits))[0]


def _played(rules: Sequence[Rule], options: BacktestOptions) -> list[Rule]:
    return list(_never_interrupting(rules)) if options.mode == "probe" else list(rules)


def _interrupts(rule: Rule | None, source: str, default: str) -> bool:
    return interrupts((rule.interrupt_mode if rule is not None else None) or default, source)


def load_stream(path: str, options: BacktestOptions = BacktestOptions()) -> Any:
    """A recorded stream file as is; any other file as a session, derived into a stream."""
    return open_stream(path, policy=options.policy, size=options.size)[0]


# Sessions probed ahead of one bounded child: enough that forking is paid rarely, few enough that
# the probes waiting for the child stay small in memory.
_PROBE_CHUNK = 512
# Files up to this size are probed in the bounded child itself, which then plays them: a probe made
# here and handed to the child would have its pages copied there as the play touches them (a 1 GB
# archive took 74.5 CPU s that way, 65.7 this way: docs/benchmark-history.md). A bigger file is
# probed here: reading and planning it reports no progress, and could outlast the bound on a loaded
# machine.
_PROBE_IN_CHILD_BYTES = 8 << 20


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # (the probe says what is wrong with it)


def backtest_batch(paths: Sequence[str], rules: Sequence[Rule], options: BacktestOptions,
                   on_outcome: Callable[[SessionOutcome], None] | None = None) -> list[SessionOutcome]:
    """Several tasks in one call (fewer round trips to a worker); same answers as one by one.

    With ``options.time_bound`` the sessions run in a forked child (``workbench.replay.timebound``).
    When a session makes no progress for that long, the child is killed, the rules responsible are
    found and the batch goes on from that session without them; its outcome names them in ``slow``.
    In probe mode a file of up to ``_PROBE_IN_CHILD_BYTES`` is probed and played in the child; a
    bigger one is probed here first (reading it and finding the rules that can fire cannot hang), and
    played here too when the rules that can fire in it are all provably linear.
    ``on_outcome`` is called in this process as each outcome arrives.
    """
    bound = options.time_bound
    hanging = {r.name for r in rules if may_hang(r)}  # once per batch: the linearity test is not cheap
    if bound is None or not hanging:  # provably linear rules: no child needed
        out = []
        for path in paths:
            out.append(backtest_session(path, rules, options))
            if on_outcome is not None:
                on_outcome(out[-1])
        return out
    state = _Bound(list(rules), bound)
    if not _probing(rules, options):
        return state.run(list(paths), lambda i, active, report: backtest_session(paths[i], active, options, report),
                         None if on_outcome is None else lambda i, outcome: on_outcome(outcome))
    results: list[SessionOutcome | None] = [None] * len(paths)
    heard = 0  # outcomes are heard in input order, as without the probe

    def settle(i: int, outcome: SessionOutcome) -> None:
        nonlocal heard
        results[i] = outcome
        while heard < len(results) and results[heard] is not None:
            if on_outcome is not None:
                on_outcome(results[heard])  # type: ignore[arg-type]  # not None: tested above
            heard += 1

    if not any(r.agents for r in rules):
        # The probes' memo of the rule set, made before the bound forks: each child inherits it rather
        # than making it again (about 0.1 CPU s a child with the bundled rules; a 1 GB archive forks
        # dozens). With rules for some agents, what a session plays depends on its agent.
        warm(_played(rules, options))
    for start in range(0, len(paths), _PROBE_CHUNK):
        # sessions a rule that may hang can fire in, with their probe; or small ones, probed there
        later: list[tuple[int, ProbeStream | None]] = []
        for i in range(start, min(len(paths), start + _PROBE_CHUNK)):
            if _size(paths[i]) <= _PROBE_IN_CHILD_BYTES:
                later.append((i, None))
                continue
            probe = _probe(paths[i], state.active(), options)
            if isinstance(probe, ProbeStream) and any(r.name in hanging for r in probe.rules):
                later.append((i, probe))
                continue
            played = probe if isinstance(probe, SessionOutcome) else _probe_outcome(paths[i], probe, rules, options, None)
            settle(i, state.arrived(played))
        if later:
            state.run([paths[i] for i, _ in later],
                      lambda j, active, report: _play_later(paths[later[j][0]], later[j][1], active, options,  # noqa: B023 - called here
                                                            report),
                      lambda j, outcome: settle(later[j][0], outcome))  # noqa: B023 - called here
    return [o for o in results if o is not None]


def _play_later(path: str, probe: ProbeStream | None, rules: Sequence[Rule], options: BacktestOptions,
                report: Callable[[], None]) -> SessionOutcome:
    """In the bounded child: the session's given probe played, or (``None``) the session probed and played."""
    if probe is None:
        return backtest_session(path, rules, options, report)
    return _probe_outcome(path, probe, rules, options, report)


class _Bound:
    """The time bound over the bounded runs of one batch: the rules disabled so far carry over."""

    def __init__(self, rules: list[Rule], bound: float) -> None:
        self.rules, self.bound = rules, bound
        self.disabled: dict[str, str] = {}
        self.found: dict[str, tuple[tuple[str, str], ...]] = {}  # session -> rules found slow on it

    def active(self) -> list[Rule]:
        return [r for r in self.rules if r.name not in self.disabled] if self.disabled else self.rules

    def arrived(self, outcome: SessionOutcome, stamp: bool = True) -> SessionOutcome:
        """``outcome``, with (``stamp``) the rules disabled so far and those found slow on it."""
        if stamp and (self.disabled or outcome.session in self.found):
            outcome = replace(outcome, slow=self.found.get(outcome.session, ()), disabled=tuple(sorted(self.disabled)))
        return outcome

    def run(self, paths: list[str], play: Callable[[int, list[Rule], Any], SessionOutcome],
            heard: Callable[[int, SessionOutcome], None] | None) -> list[SessionOutcome]:
        """``play(i, active rules, report)`` for each of ``paths`` in a forked child, going on
        without the rules found slow when one hangs; ``heard(i, outcome)`` as each one arrives."""
        out: list[SessionOutcome] = []
        bound = self.bound

        def add(outcome: SessionOutcome) -> None:
            out.append(outcome)
            if heard is not None:
                heard(len(out) - 1, outcome)

        while len(out) < len(paths):
            active = self.active()
            first = len(out)
            # Progress is counted per event, so a long session on a loaded machine is not taken for a hang.
            # The closures below run within this iteration (Bounded and culprits call them before it ends).
            run = Bounded(lambda report: [report(play(i, active, report)) for i in range(first, len(paths))])  # type: ignore[func-returns-value]  # noqa: B023
            seen = 0

            def collect() -> None:
                nonlocal seen
                for outcome in run.results[seen:]:  # noqa: B023
                    add(self.arrived(outcome))
                seen = len(run.results)  # noqa: B023

            wait_all([run], bound, tick=collect)
            collect()
            if run.error is not None:  # the task itself raised: as without the bound, so does the batch
                raise run.error
            if len(out) == len(paths):
                break
            index = len(out)
            path = paths[index]
            if run.state == "failed":
                add(self.arrived(SessionOutcome(path, 0, (), f"{path}: the replay process died"), stamp=False))
                continue
            slow, control = culprits([r.name for r in active if may_hang(r)], {}, lambda plan: Bounded(
                lambda report: report(play(index, [r for r in active if r.name not in plan], report))),  # noqa: B023
                bound)
            if slow is None:  # it did not hang again (a loaded machine): the control run's outcome stands
                if control.error is not None:
                    raise control.error
                add(self.arrived(control.results[0]) if control.results else
                           self.arrived(SessionOutcome(path, 0, (), f"{path}: the replay process died"), stamp=False))
                continue
            if not slow:
                add(self.arrived(SessionOutcome(path, 0, (), f"{path}: exceeded the {bound:g}s time bound and "
                                                       "no single rule was found responsible"), stamp=False))
                continue
            why = f"exceeded the {bound:g}s time bound (catastrophic backtracking?)"
            self.found[path] = tuple((name, why) for name in slow)
            self.disabled.update((name, why) for name in slow)
        return out


def _without_slow_rules(files: list[str], rules: list[Rule], opts: BacktestOptions, outcomes: list[SessionOutcome],
                        run: Callable[[list[str], list[Rule]], list[SessionOutcome]]) -> list[SessionOutcome]:
    """Every outcome as if the rules that exceeded the bound anywhere had been disabled everywhere, so
    the result does not depend on how sessions were batched or on which worker found a slow rule."""
    while True:
        slow = {name for o in outcomes for name, _ in o.slow}
        stale = [i for i, o in enumerate(outcomes) if set(o.disabled) != slow]
        if not stale:
            return outcomes
        if opts.mode == "probe":
            # In probe mode rules do not interact (nothing aborts, no injection silences a rule), so
            # dropping a rule's hits gives what a replay without it would (tests/test_backtest.py).
            return [o.without(slow) for o in outcomes]
        again = run([files[i] for i in stale], [r for r in rules if r.name not in slow])
        for i, o in zip(stale, again):
            outcomes[i] = replace(o.without(slow), slow=outcomes[i].slow + o.slow)


# --- inputs -----------------------------------------------------------------------------------------


def load_rule_set(rules: str | os.PathLike[str] | Sequence[Rule], *, home: str | None = None) -> list[Rule]:
    """A rules folder (rule files, or a project discovered like the agent does) or ready rules."""
    if isinstance(rules, (str, os.PathLike)):
        if not Path(rules).exists():
            raise NotFoundError("no such file or directory", field="rules", value=rules)
        return resolve_rules([str(rules)], home=home)
    return list(rules)


_LEAST_BATCH, _MOST_BATCH = 16, 256  # files in a batch (``_Cutter``; ``_batches``, at most)


def _batches(paths: list[_T], workers: int) -> list[list[_T]]:
    # A Dask cluster's batches, cut up front: large enough that the forked time-bound child of each
    # batch is paid rarely, small enough to spread the work and report progress.
    size = max(1, min(_MOST_BATCH, len(paths) // max(1, workers * 4)))
    return [paths[i:i + size] for i in range(0, len(paths), size)]


# --- running ----------------------------------------------------------------------------------------


def run_backtest(
    rules_dir: str | os.PathLike[str] | Sequence[Rule],
    paths: Iterable[str | os.PathLike[str]],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    home: str | None = None,
    options: BacktestOptions | None = None,
    samples: int = DEFAULT_SAMPLES,
) -> BacktestResult:
    """Backtest the rules of ``rules_dir`` over session files / folders ``paths``.

    ``workers``: local processes (``None`` = all cores; ``1`` = in this process). ``scheduler``:
    a Dask scheduler address (``tcp://HOST:PORT``) instead of local processes. ``progress(done,
    total, path)`` is called as sessions finish.
    """
    if workers is not None and workers < 1:
        raise UsageError("must be at least 1", field="workers")
    opts = options or BacktestOptions()
    if opts.time_bound is not None and opts.time_bound <= 0:
        raise UsageError("the time bound must be a positive number of seconds")
    chunk_text("", opts.policy, opts.size)  # bad chunking options fail before any work starts
    rules = load_rule_set(rules_dir, home=home)
    files = [str(f) for f in session_files(paths)]
    if not files:
        raise NotFoundError("no session files (*.jsonl) found in " + ", ".join(str(p) for p in paths))
    started = time.perf_counter()
    used = workers or os.cpu_count() or 1

    transport: str | None = None

    def run(some: list[str], with_rules: list[Rule], report: Progress | None = None) -> list[SessionOutcome]:
        nonlocal used, transport
        if scheduler is None:
            return _run_local(some, with_rules, opts, used, report)
        outcomes, used, transport = _run_dask(scheduler, some, with_rules, opts, report)
        return outcomes

    outcomes = _without_slow_rules(files, rules, opts, run(files, rules, progress), run)
    elapsed = time.perf_counter() - started
    return aggregate(rules, outcomes, samples=samples, elapsed=elapsed, workers=used, scheduler=scheduler,
                     transport=transport, judge=opts.judge.label if opts.judge is not None else None)


def _run_local(files: list[str], rules: list[Rule], opts: BacktestOptions, workers: int,
               progress: Progress | None) -> list[SessionOutcome]:
    total = len(files)
    if workers == 1 or total == 1:
        done = 0

        def one_more(outcome: SessionOutcome) -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(done, total, outcome.session)

        return backtest_batch(files, rules, opts, on_outcome=one_more)
    results: dict[int, list[SessionOutcome]] = {}  # by the position of a batch's first file
    done = 0

    def finished(first: int, batch: list[str], outcomes: list[SessionOutcome]) -> None:
        nonlocal done
        results[first] = outcomes
        done += len(batch)
        if progress is not None:
            progress(done, total, batch[-1])

    # Never plain fork: the host may run threads (the web app, a Dask client). A forkserver imports
    # the workbench once and forks workers from that clean process; spawn where there is none.
    ctx: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["workbench.backtest.run", "workbench.replay.session", "workbench.sessions"])
    else:
        ctx = multiprocessing.get_context("spawn")
    # This process is one of the ``workers``: it takes batches from the end of the files while the
    # pool (which needs a second or so to start: a fresh interpreter imports the workbench) takes
    # them from the front, so the start-up is not time lost.
    todo = _Cutter(files, workers)
    running: dict[Future[list[SessionOutcome]], tuple[int, list[str]]] = {}
    size = workers - 1
    with ProcessPoolExecutor(max_workers=size, mp_context=ctx, initializer=_init_worker,
                             initargs=(rules, opts, os.getpid())) as pool:
        while todo or running:
            while todo and len(running) < 2 * size:  # one queued behind each busy worker
                first, batch = todo.front()
                running[pool.submit(_worker_batch, batch)] = (first, batch)
            ready, _ = wait(running, timeout=None if not todo else 0, return_when=FIRST_COMPLETED)
            for future in ready:
                finished(*running.pop(future), future.result())
            if todo:
                first, batch = todo.back()
                finished(first, batch, backtest_batch(batch, rules, opts))
    return [o for first in sorted(results) for o in results[first]]


class _Cutter:
    """The files not yet handed out, cut into batches as they are taken (from either end): a batch
    is a share of what is left, so the batches shrink toward the end and the last ones, which the
    other processes wait for, are short (guided self-scheduling). Each batch is one time-bound child
    (about 0.05 CPU s to start), so a batch holds at least ``_LEAST_BATCH`` files, or fewer when
    there are too few files for each process to get a couple of batches."""

    def __init__(self, files: list[str], workers: int) -> None:
        self.files, self.share = files, 4 * max(1, workers)
        self.least = max(1, min(_LEAST_BATCH, len(files) // (2 * max(1, workers))))
        self.lo, self.hi = 0, len(files)

    def __bool__(self) -> bool:
        return self.lo < self.hi

    def _size(self) -> int:
        left = self.hi - self.lo
        return min(left, max(self.least, min(_MOST_BATCH, -(-left // self.share))))

    def front(self) -> tuple[int, list[str]]:
        first = self.lo
        self.lo += self._size()
        return first, self.files[first:self.lo]

    def back(self) -> tuple[int, list[str]]:
        n = self._size()
        self.hi -= n
        return self.hi, self.files[self.hi:self.hi + n]


_WORKER_RULES: list[Rule] = []
_WORKER_OPTIONS = BacktestOptions()


def _init_worker(rules: list[Rule], options: BacktestOptions, parent: int) -> None:
    global _WORKER_RULES, _WORKER_OPTIONS
    _WORKER_RULES, _WORKER_OPTIONS = rules, options
    _leave_with(parent)


def _leave_with(parent: int) -> None:
    """Exit this worker once process ``parent`` is gone. A process stopped by a signal never shuts its
    pool down, and its workers, which hold both ends of their task queue, would wait for work for good
    (and keep the forkserver, which hands each of them its liveness pipe, alive with them)."""
    def watch() -> None:
        try:
            fd: int | None = os.pidfd_open(parent)  # readable once the process has exited (Linux 5.3)
        except ProcessLookupError:
            os._exit(0)
        except (AttributeError, OSError):
            fd = None
        if fd is not None:
            select.select([fd], [], [])
        else:  # elsewhere: ask every second
            while _alive(parent):
                time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="workbench-leave-with-parent", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        pass
    return True


def _worker_batch(paths: list[str]) -> list[SessionOutcome]:
    return backtest_batch(paths, _WORKER_RULES, _WORKER_OPTIONS)


def _run_dask(address: str, files: list[str], rules: list[Rule], opts: BacktestOptions,
              progress: Progress | None) -> tuple[list[SessionOutcome], int, str]:
    """The batches on a Dask cluster; also says how the sessions travelled ("paths" or "bytes").

    Paths leave the client absolute (a worker's folder is not the client's) and outcomes come back
    under the names the client was given, so the result is the local one. Before any work the
    workers are asked which files they can read: all of them, paths are sent; none of them (no
    storage shared with the client), the files' bytes are; some but not all, the run fails naming
    the worker and a file (``WorkerFileError``), as a worker that cannot read a path later does."""
    try:
        # Optional dependency (the `cluster` extra), only needed with a scheduler address.
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("needs the 'distributed' package (pip install ttsr-workbench[cluster])",
                         field="scheduler") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot connect ({exc})", field="scheduler", value=address) from None
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        results: list[SessionOutcome | None] = [None] * len(files)
        sources = [os.path.abspath(f) for f in files]
        remote: list[int] = []
        for i, source in enumerate(sources):
            if os.access(source, os.R_OK):
                remote.append(i)
            else:  # the client cannot read it either: its error outcome, as a local run gives it
                results[i] = backtest_session(files[i], rules, opts)
        readable = [sources[i] for i in remote]
        transport = _transport(client.run(_unreadable, readable), readable)
        batches = _batches(remote, workers)
        done = len(files) - len(remote)
        pending = deque(range(len(batches)))
        running: dict[Any, int] = {}
        queue = as_completed()

        def submit() -> None:
            # A window of batches in flight: with bytes, the client holds only those in memory.
            while pending and len(running) < 2 * workers:
                k = pending.popleft()
                items = [(files[i], sources[i] if transport == "paths" else Path(sources[i]).read_bytes())
                         for i in batches[k]]
                future = client.submit(_dask_batch, items, rules, opts, pure=False)
                running[future] = k
                queue.add(future)

        submit()
        for future in queue:
            k = running.pop(future)
            for i, outcome in zip(batches[k], future.result()):
                results[i] = outcome
            done += len(batches[k])
            if progress is not None:
                progress(done, len(files), files[batches[k][-1]])
            submit()
        return [o for o in results if o is not None], workers, transport
    finally:
        client.close()


def _unreadable(paths: list[str]) -> list[int]:
    """On a worker: the positions of the ``paths`` it cannot read."""
    return [i for i, p in enumerate(paths) if not os.access(p, os.R_OK)]


def _transport(unreadable: dict[str, list[int]], names: list[str]) -> str:
    """"paths" when every worker reads every file, "bytes" when some worker reads none of them."""
    if not names or all(not missing for missing in unreadable.values()):
        return "paths"
    if any(len(missing) == len(names) for missing in unreadable.values()):
        return "bytes"
    worker, missing = next((w, m) for w, m in sorted(unreadable.items()) if m)
    raise WorkerFileError(worker, names[missing[0]], "no such file, or not readable there")


def _dask_batch(items: list[tuple[str, str | bytes]], rules: list[Rule], options: BacktestOptions) -> list[SessionOutcome]:
    """On a worker: ``backtest_batch`` of sessions given as (name, absolute path or the file's bytes),
    the outcomes under their names."""
    if not items or isinstance(items[0][1], str):
        for _name, source in items:
            if not os.access(source, os.R_OK):
                raise WorkerFileError(_worker_name(), str(source), "no such file, or not readable there")
        paths = [str(source) for _, source in items]
        return [_named(o, p, name) for o, p, (name, _) in zip(backtest_batch(paths, rules, options), paths, items)]
    with tempfile.TemporaryDirectory(prefix="workbench-backtest-") as folder:
        paths = []
        for k, (name, data) in enumerate(items):
            path = os.path.join(folder, f"{k}-{os.path.basename(name)}")
            with open(path, "wb") as fh:
                fh.write(data)  # type: ignore[arg-type]  # bytes: tested above
            paths.append(path)
        return [_named(o, p, name) for o, p, (name, _) in zip(backtest_batch(paths, rules, options), paths, items)]


def _worker_name() -> str:
    try:
        # Optional dependency (the `cluster` extra): only called inside a Dask worker.
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "a worker"


def _named(outcome: SessionOutcome, actual: str, name: str) -> SessionOutcome:
    """``outcome`` of the file read at ``actual`` as the outcome of ``name``."""
    if actual == name:
        return outcome
    return replace(outcome, session=name, hits=tuple(replace(h, session=name) for h in outcome.hits),
                   error=None if outcome.error is None else outcome.error.replace(actual, name))
