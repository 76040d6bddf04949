"""Time bounds for rule conditions: a catastrophic regex must not hang a replay or a backtest.

JavaScript-semantics regexes run in native code that cannot be interrupted from Python, and the engine
(``workbench.ttsr``) stays pure, so the bound lives here: the work runs in a forked child (``Bounded``)
that counts its progress in shared memory and sends its results through a pipe. When the count stops
moving for ``seconds``, the parent kills the child; ``culprits`` then finds the rules responsible by
re-running with each rule disabled in turn (in parallel children), and the caller goes on without them.

For a replay (``guard``) the real run then happens in-process with those rules disabled, and cannot
hang. Rules whose regex conditions are provably linear (``workbench.ttsr.linearity``; AST conditions,
checked once per finished call, count as linear there) cannot hang: when
every rule is, there is no pre-check at all, and they are never suspects. ``PreCheck`` runs the
guard in a background thread and says how many events it has verified, so a stepper can show its
first step at once and go no further than what is verified. The backtest (``workbench.backtest``) keeps its whole batch in the child and collects outcomes.

Children are forked with ``os.fork`` rather than ``multiprocessing``, because multiprocessing forbids
daemonic processes (a Dask worker) to have children and the bound is needed there too. A child only
replays, writes to its pipe and leaves with ``os._exit`` (no ``atexit`` handlers, no buffered output
of the parent flushed twice); on Linux it is killed with the thread that forked it, and a child that
hangs writes its stack for the log before it is killed.
"""

from __future__ import annotations

import ctypes
import faulthandler
import gc
import logging
import mmap
import os
import pickle
import select
import signal
import struct
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import IO, Any, Literal, NoReturn

from workbench.errors import TimeBoundError
from workbench.replay.config import ReplayConfig
from workbench.replay.engine import provably_linear
from workbench.replay.events import ReplayEvent
from workbench.replay.session import SimulatedSession
from workbench.replay.stream import Stream
from workbench.rules import Rule
from workbench.sessions import gc_freeze_lock

_POLL = 0.01
_STACK_WAIT = 0.5  # seconds a hung child is given to write its stack before it is killed
_MAX_PARALLEL = 8
_RETRIES = 2  # hangs that do not reproduce (a loaded machine) before giving up
_COUNT = struct.Struct("q")
_FRAME = struct.Struct("!I")

_log = logging.getLogger(__name__)
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _find_prctl() -> Callable[..., int] | None:
    """Linux's ``prctl``, looked up once here rather than in every child."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _find_prctl()

Report = Callable[..., None]
RunState = Literal["running", "done", "hung", "failed"]


@dataclass(frozen=True, slots=True)
class TimeBound:
    """A rule disabled because a condition ran past the bound at ``step``."""

    rule: str
    step: int
    seconds: float

    @property
    def message(self) -> str:
        return f"rule condition exceeded the {self.seconds:g}s time bound at step {self.step} (catastrophic backtracking?)"


class _Failure:
    """What a child sends when its work raised: the exception if it pickles, else its traceback."""

    def __init__(self, exc: BaseException) -> None:
        try:
            pickle.dumps(exc)
            self.exc: BaseException = exc
        except Exception:  # noqa: BLE001 - an unpicklable exception still says what went wrong
            self.exc = RuntimeError("".join(traceback.format_exception(exc)))


class Bounded:
    """``work(report)`` running in a forked child.

    The child calls ``report()`` after each unit of work (``report(value)`` also sends ``value``, which
    must pickle). In the parent, ``progress`` counts the reports, ``results`` holds the values in order
    and ``state`` says how it ended: ``done``, ``hung`` (killed after ``seconds`` without a report) or
    ``failed`` (the work raised: ``error``; or the child died: ``error`` is ``None``).
    """

    def __init__(self, work: Callable[[Report], Any]) -> None:
        counter = mmap.mmap(-1, _COUNT.size)  # anonymous and shared: the child's writes are seen here
        read_fd, write_fd = os.pipe()
        # where a child that hangs stands, written by the child on SIGUSR1 before it is killed (logged:
        # a hang caused by the machine rather than a rule must be told apart from a catastrophic regex)
        self._stack = _stack_file()
        # Frozen objects are never scanned by the child's collector, so it does not touch (and copy)
        # every page of the parent's heap, nor finalize the parent's garbage. What was frozen before
        # stays frozen (the served app manages its own freezing: workbench.ui.collector).
        parent = os.getpid()
        with gc_freeze_lock:
            managed = gc.get_freeze_count() > 0
            gc.freeze()
            pid = os.fork()
            if pid == 0:
                _child_main(work, counter, read_fd, write_fd, None if self._stack is None else self._stack.fileno(), parent)
            if not managed:
                gc.unfreeze()
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        self.pid = pid
        self.fd: int | None = read_fd
        self.state: RunState = "running"
        self.progress = 0
        self.results: list[Any] = []
        self.error: BaseException | None = None
        self._counter = counter
        self._buffer = bytearray()
        self._since = time.monotonic()

    def poll(self, seconds: float) -> bool:
        """Collect what the child sent and update ``state``; True while it is still running."""
        if self.state != "running":
            return False
        self._drain()
        count = _COUNT.unpack_from(self._counter)[0]
        now = time.monotonic()
        if count != self.progress:
            self.progress, self._since = count, now
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid:
            self._drain()  # everything the child wrote is in the pipe by now
            self.progress = _COUNT.unpack_from(self._counter)[0]
            failed = os.waitstatus_to_exitcode(status) != 0 or self.error is not None
            self._close("failed" if failed else "done")
        elif now - self._since > seconds:
            self.kill("hung")
        return self.state == "running"

    def kill(self, state: RunState = "failed") -> None:
        if self.state != "running":
            return
        if state == "hung":
            self._log_stack()
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        self._close(state)

    def _log_stack(self) -> None:
        """Ask the hung child for its stack (faulthandler writes it from the signal handler, also in
        native code) and log it: a catastrophic regex shows its match call, anything else is a lead."""
        if self._stack is None:
            return
        try:
            os.kill(self.pid, signal.SIGUSR1)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + _STACK_WAIT
        while os.fstat(self._stack.fileno()).st_size == 0 and time.monotonic() < deadline:
            time.sleep(_POLL / 5)
        time.sleep(_POLL / 5)  # the rest of a dump that had begun
        self._stack.seek(0)
        stack = self._stack.read().decode("utf-8", "replace").strip() or "(no stack came back)"
        _log.info("a time-bound child (pid %d) made no progress for %.1f s after %d reports; its stack:\n%s",
                  self.pid, time.monotonic() - self._since, self.progress, stack)

    def _drain(self) -> None:
        if self.fd is None:
            return
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            self._buffer += chunk
        while len(self._buffer) >= _FRAME.size:
            (size,) = _FRAME.unpack_from(self._buffer)
            if len(self._buffer) < _FRAME.size + size:
                break
            value = pickle.loads(bytes(self._buffer[_FRAME.size:_FRAME.size + size]))
            del self._buffer[:_FRAME.size + size]
            if isinstance(value, _Failure):
                self.error = value.exc
            else:
                self.results.append(value)

    def _close(self, state: RunState) -> None:
        self.state = state
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self._counter.close()
        if self._stack is not None:
            self._stack.close()


def _stack_file() -> IO[bytes] | None:
    """An unnamed file for a child's stack; ``None`` where none can be made (the bound works without)."""
    try:
        return tempfile.TemporaryFile()
    except OSError:
        return None


def _child_main(work: Callable[[Report], Any], counter: mmap.mmap, read_fd: int, write_fd: int,
                stack_fd: int | None, parent: int) -> NoReturn:
    code = 0
    try:
        # Only the parent kills a hung child: one whose parent was killed (a server stopped with
        # SIGKILL) would spin on a catastrophic regex for good, so it goes with the thread that forked
        # it (Linux; every caller waits for its children on the thread that started them).
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(3)
        os.close(read_fd)
        if stack_fd is not None:
            faulthandler.register(signal.SIGUSR1, file=stack_fd, all_threads=False)
        count = 0

        def send(value: Any) -> None:
            data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
            view = memoryview(_FRAME.pack(len(data)) + data)
            while view:
                view = view[os.write(write_fd, view):]

        def report(*value: Any) -> None:
            nonlocal count
            if value:
                send(value[0])
            count += 1
            _COUNT.pack_into(counter, 0, count)

        try:
            work(report)
        except BaseException as exc:  # noqa: BLE001 - handed to the parent, which decides
            code = 1
            send(_Failure(exc))
    except BaseException:  # noqa: BLE001 - never return into the parent's code
        code = 2
    finally:
        os._exit(code)


def wait_all(runs: Sequence[Bounded], seconds: float, tick: Callable[[], None] | None = None) -> None:
    """Poll ``runs`` until each has ended (``tick()`` after each round); kill them all if the wait
    itself is interrupted."""
    try:
        while any([run.poll(seconds) for run in runs]):
            if tick is not None:
                tick()
            fds = [run.fd for run in runs if run.fd is not None]
            if fds:
                select.select(fds, [], [], _POLL)
            else:
                time.sleep(_POLL)
    finally:
        for run in runs:
            run.kill()


def culprits(candidates: Sequence[str], disabled: Mapping[str, str], start: Callable[[dict[str, str]], Bounded],
             seconds: float, tick: Callable[[], None] | None = None) -> tuple[list[str] | None, Bounded]:
    """The rules responsible for a hang of ``start(disabled)``, and the control run.

    ``start`` begins one bounded run with the given rules disabled. A control run with nothing more
    disabled goes first: when it finishes in time the hang was not the rules' doing (a loaded
    machine) and the answer is ``None``. Otherwise: the rules whose removal lets the run finish in
    time, else those that hang on their own (``[]`` when none does). Trials run up to eight at a time.
    """
    control = start(dict(disabled))

    def trial(plans: list[tuple[str, dict[str, str]]], first_run: list[Bounded]) -> Iterable[tuple[str, Bounded]]:
        batches = [plans[i:i + _MAX_PARALLEL] for i in range(0, len(plans), _MAX_PARALLEL)] or [[]]
        for batch in batches:  # at least one round, so that the control run is always waited for
            runs = [start(plan) for _, plan in batch]
            wait_all([*first_run, *runs], seconds, tick)
            first_run = []
            yield from ((name, run) for (name, _), run in zip(batch, runs))

    without = [(n, {**disabled, n: "trial"}) for n in candidates]
    finished = [name for name, run in trial(without, [control]) if run.state != "hung"]
    if control.state != "hung":
        return None, control
    if finished:
        return finished, control
    alone = [(n, {**disabled, **{o: "trial" for o in candidates if o != n}}) for n in candidates]
    return [name for name, run in trial(alone, []) if run.state == "hung"], control


def has_condition(rule: Rule) -> bool:
    """Only rules with a condition run code that could exceed the bound."""
    return bool(rule.condition or rule.ast_condition)


def may_hang(rule: Rule) -> bool:
    """A rule the bound must watch: it has a condition that is not provably linear."""
    return has_condition(rule) and not provably_linear(rule)


# --- the replay's guard ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Trial:
    """One bounded replay's inputs: the stream, the rules and the configuration (never a judge: the
    time bound must not ask anyone anything), and whether the manager explains every check as the
    stepper's does."""

    stream: Stream
    rules: tuple[Rule, ...]
    config: ReplayConfig
    explain: bool = False

    def start(self, disabled: Mapping[str, str], until: int) -> Bounded:
        """A bounded child replaying the stream up to event ``until`` with ``disabled`` rules."""
        def work(report: Report) -> None:
            sim = SimulatedSession(self.rules, self.config, stream=self.stream, disabled_rules=dict(disabled))
            if self.explain:  # the stepper also asks the manager why each rule did or did not fire
                sim.on_check = lambda ctx, method, matches: sim.manager.explain(ctx)
            for i, ev in enumerate(self.stream.events[:until]):
                sim.feed(i, ev)
                report()

        return Bounded(work)


def _trial(stream: Stream, rules: Iterable[Rule], config: ReplayConfig | None, explain: bool) -> _Trial:
    config = (ReplayConfig() if config is None else config).for_stream(stream).unjudged()
    return _Trial(stream, tuple(rules), config, explain)


def first_hang(trial: _Trial, disabled: Mapping[str, str], seconds: float, until: int | None = None,
               progress: Callable[[int, int], None] | None = None,
               tick: Callable[[], None] | None = None) -> int | None:
    """The index of the first event whose processing does not finish within ``seconds``, or None.

    ``progress(done, total)`` hears how many events the child has replayed so far; ``tick()`` is
    called at every poll (it may raise to stop the run).
    """
    total = len(trial.stream.events) if until is None else until
    run = trial.start(disabled, total)

    def poll() -> None:
        if tick is not None:
            tick()
        if progress is not None:
            progress(run.progress, total)

    wait_all([run], seconds, poll)
    if progress is not None:  # the last count, also when the child finished before the first poll
        progress(run.progress, total)
    return run.progress if run.state == "hung" else None


def find_slow_rules(stream: Stream, rules: Iterable[Rule], config: ReplayConfig | None,
                    disabled: Mapping[str, str], step: int, *, explain: bool = False) -> list[str]:
    """Rules whose removal lets event ``step`` finish within ``config.time_bound`` (else: rules that
    hang on their own)."""
    trial = _trial(stream, rules, config, explain)
    seconds = trial.config.time_bound
    if seconds is None:
        return []
    candidates = [r.name for r in trial.rules if r.name not in disabled and may_hang(r)]
    slow, _control = culprits(candidates, disabled, lambda plan: trial.start(plan, step + 1), seconds)
    return [] if slow is None else slow


def guard(stream: Stream, rules: Iterable[Rule], config: ReplayConfig | None = None, *, explain: bool = False,
          progress: Callable[[int, int], None] | None = None,
          tick: Callable[[], None] | None = None,
          on_disable: Callable[[dict[str, str], list[Any]], None] | None = None,
          ) -> tuple[dict[str, str], list[Any]]:
    """Rules to disable (name -> reason) and the ``time_bound`` events reporting them.

    The bound is ``config.time_bound`` seconds per event (``None``: no check). ``explain=True``
    exercises the manager's ``explain`` after every check as the stepper does. ``progress(done,
    total)`` hears the events the bounded replay has got through (long streams take seconds);
    ``tick()`` runs at every poll and may raise to abandon the guard (its children are killed);
    ``on_disable(disabled, events)`` hears each time rules are disabled, before the replay starts
    again without them.
    """
    trial = _trial(stream, rules, config, explain)
    seconds = trial.config.time_bound
    if seconds is None or not stream.events or not any(may_hang(r) for r in trial.rules):
        return {}, []
    disabled: dict[str, str] = {}
    events: list[Any] = []
    retries = _RETRIES
    while True:
        step = first_hang(trial, disabled, seconds, progress=progress, tick=tick)
        if step is None:
            return disabled, events
        candidates = [r.name for r in trial.rules if r.name not in disabled and may_hang(r)]
        found, _control = culprits(candidates, disabled,
                                   lambda plan: trial.start(plan, step + 1),  # noqa: B023 - called here
                                   seconds, tick)
        if found is None and retries > 0:  # did not hang again: look again from the start
            retries -= 1
            continue
        slow = found or []
        if not slow:
            raise TimeBoundError(
                f"event {step} of the stream exceeded the {seconds:g}s time bound and no single rule was found responsible"
            )
        for name in slow:
            disabled[name] = TimeBound(name, step, seconds).message
        events.append(ReplayEvent(step, "time_bound", tuple(slow), reason=TimeBound(slow[0], step, seconds).message,
                                  detail=MappingProxyType({"seconds": seconds})))
        if on_disable is not None:
            on_disable(dict(disabled), list(events))


_WAIT_SLICE = 0.2  # seconds between interrupt() calls while a caller waits for a step to be verified
# Seconds a caller may wait for a step without the check's count moving before the check's thread is
# logged where it stands (once per wait): a check that stops polling its children is otherwise silent.
STALL_REPORT = 15.0


class _Cancelled(Exception):
    pass


class PreCheck:
    """``guard`` in a background thread, observable while it runs.

    ``verified`` counts the events known to finish in time with the rules ``disabled`` now (a
    replay with exactly those rules disabled may compute them); ``generation`` grows each time more
    rules get disabled (work done with the old set is stale). ``state`` is ``running``, ``done``,
    ``failed`` (``error``: no single rule was found responsible) or ``cancelled``.
    ``progress(done, total)`` is called from the background thread.
    """

    def __init__(self, stream: Stream, rules: Iterable[Rule], config: ReplayConfig | None = None, *,
                 explain: bool = False, progress: Callable[[int, int], None] | None = None) -> None:
        self.total = len(stream.events)
        self.verified = 0
        self.generation = 0
        self.disabled: dict[str, str] = {}
        self.events: list[Any] = []
        self.state: Literal["running", "done", "failed", "cancelled"] = "running"
        self.error: BaseException | None = None
        self._progress = progress
        self._cond = threading.Condition()
        self._cancel = threading.Event()
        self._polls, self._last_poll = 0, time.monotonic()  # the check's polls of its children (the stall report)
        rules = list(rules)
        config = ReplayConfig() if config is None else config
        if config.time_bound is None or not stream.events or not any(may_hang(r) for r in rules):
            self.state, self.verified = "done", self.total  # nothing can hang: nothing to check
            self._thread: threading.Thread | None = None
            return
        self._thread = threading.Thread(target=self._run, args=(stream, rules, config, explain),
                                        name="workbench-time-bound", daemon=True)
        self._thread.start()

    @property
    def needed(self) -> bool:
        """False when no rule can hang (no background work was started)."""
        return self._thread is not None

    def _run(self, stream: Stream, rules: list[Rule], config: ReplayConfig, explain: bool) -> None:
        try:
            disabled, events = guard(stream, rules, config, explain=explain, progress=self._on_progress,
                                     tick=self._tick, on_disable=self._on_disable)
            with self._cond:
                self.disabled, self.events = disabled, events
                self.verified, self.state = self.total, "done"
                self._cond.notify_all()
        except _Cancelled:
            with self._cond:
                self.state = "cancelled"
                self._cond.notify_all()
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
            with self._cond:
                self.error, self.state = exc, "failed"
                self._cond.notify_all()

    def _tick(self) -> None:
        self._polls, self._last_poll = self._polls + 1, time.monotonic()
        if self._cancel.is_set():
            raise _Cancelled

    def _on_progress(self, done: int, total: int) -> None:
        with self._cond:
            if done > self.verified:
                self.verified = done
                self._cond.notify_all()
        if self._progress is not None:
            self._progress(done, total)

    def _on_disable(self, disabled: dict[str, str], events: list[Any]) -> None:
        with self._cond:
            self.disabled, self.events = disabled, events
            self.generation += 1
            self.verified = 0
            self._cond.notify_all()

    def cancel(self) -> None:
        """Stop checking (children are killed within a poll); ``state`` becomes ``cancelled``."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end of the check; True if it has ended."""
        with self._cond:
            return self._cond.wait_for(lambda: self.state != "running", timeout)

    def _report_stall(self, index: int, waited: float) -> None:
        thread = self._thread
        frame = sys._current_frames().get(thread.ident) if thread is not None and thread.ident is not None else None
        where = "".join(traceback.format_stack(frame)) if frame is not None else "(the check's thread has ended)\n"
        _log.warning("the time-bound pre-check has verified %d of %d events and not moved for %.0f s "
                     "(waiting for event %d, state %s, generation %d; it polled its children %d times, "
                     "the last %.1f s ago); its thread is at:\n%s",
                     self.verified, self.total, waited, index, self.state, self.generation, self._polls,
                     time.monotonic() - self._last_poll, where)

    def wait_verified(self, index: int, timeout: float | None = None, *,
                      interrupt: Callable[[], None] | None = None) -> tuple[int, dict[str, str], list[Any]]:
        """Block until event ``index`` is verified; ``(generation, disabled, events)`` then.

        ``interrupt()`` is called every ``_WAIT_SLICE`` seconds of waiting and may raise to stop the
        wait (a cancelled task must not hold its thread until the check gets there). Raises the
        check's error if it failed, ``TimeBoundError`` if it was cancelled first.
        """
        def ready() -> bool:
            return self.verified > index or self.state != "running"

        deadline = None if timeout is None else time.monotonic() + timeout
        seen, since, told = self.verified, time.monotonic(), False
        with self._cond:
            while not ready():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                slice_ = _WAIT_SLICE if left is None else min(_WAIT_SLICE, left)  # slices: the stall report
                if not self._cond.wait_for(ready, slice_) and interrupt is not None:
                    interrupt()
                if self.verified != seen:
                    seen, since = self.verified, time.monotonic()
                elif not told and time.monotonic() - since >= STALL_REPORT:
                    told = True
                    self._report_stall(index, time.monotonic() - since)
            if self.state == "failed" and self.error is not None:
                raise self.error
            if self.verified <= index:
                if self.state == "cancelled":
                    raise TimeBoundError(f"the time-bound pre-check was cancelled before event {index}")
                raise TimeBoundError(f"event {index} is not verified yet (waited {timeout}s)")
            return self.generation, dict(self.disabled), list(self.events)
