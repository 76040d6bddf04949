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

Tasks run in local worker processes (``concurrent.futures``, forkserver or spawn) by default, or on a Dask
distributed cluster given a scheduler address; the task function is the same pure function and the
results are aggregated in input order, so both give identical results. Results can be written to a
DuckDB file and Parquet (``write_results``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from workbench.backtest_results import (
    DEFAULT_SAMPLES,
    TABLES,
    BacktestResult,
    Hit,
    RuleSummary,
    SessionOutcome,
    aggregate,
    write_results,
)
from workbench.errors import NotFoundError, UsageError, WorkbenchError
from workbench.firings import Firing, FiringRecorder
from workbench.rules import Rule

__all__ = [
    "DEFAULT_SAMPLES", "TABLES", "BacktestOptions", "BacktestResult", "Hit", "RuleSummary", "SessionOutcome",
    "aggregate", "backtest_batch", "backtest_session", "load_rule_set", "load_stream", "run_backtest",
    "session_files", "write_results",
]

Progress = Callable[[int, int], None]
PROBE_SETTINGS = {"interruptMode": "never", "repeatMode": "after-gap", "repeatGap": 0}
SESSION_SUFFIXES = (".jsonl",)
# Eight words per delta: a turn fires (or not) the same way as with one word per delta except for
# streaming-only partial states, and replay work drops several-fold (partial JSON is re-parsed at
# every tool-call delta). ``--chunk-size 1`` gives the stepper's default granularity.
DEFAULT_CHUNK_WORDS = 8


BacktestMode = Literal["probe", "agent"]


@dataclass(frozen=True, slots=True)
class BacktestOptions:
    """How sessions become streams and what the replay may change.

    ``mode="probe"`` (default) reports every turn that would trigger (nothing aborts, nothing is
    silenced by an earlier injection); ``interrupt_mode`` is the global default each hit's
    ``interrupts`` is judged against. ``mode="agent"`` replays as the agent would with
    ``settings`` (the ``ttsr.*`` mapping: ``interruptMode``, ``repeatMode``, ``repeatGap``...): an
    interrupt skips the rest of its turn and the retry consumes the next recorded turn, and a rule
    injected once is gated by the repeat policy, so the counts are "how often it would have fired".
    """

    policy: str = "words"
    size: int | None = DEFAULT_CHUNK_WORDS
    interrupt_mode: str = "always"
    mode: BacktestMode = "probe"
    settings: Mapping[str, Any] | None = field(default=None, hash=False)

    def replay_settings(self) -> dict[str, Any]:
        if self.mode == "probe":
            return dict(PROBE_SETTINGS)
        return {"interruptMode": self.interrupt_mode, **dict(self.settings or {})}

    def interrupt_default(self) -> str:
        value = self.replay_settings().get("interruptMode") if self.mode == "agent" else self.interrupt_mode
        return value if isinstance(value, str) else "always"


# --- the task ---------------------------------------------------------------------------------------


def _interrupts(rule: Rule | None, source: str, default: str) -> bool:
    """Spec §8.3 for one rule: would its effective interrupt mode abort on this source?"""
    mode = (rule.interrupt_mode if rule is not None else None) or default
    return mode == "always" or (mode == "prose-only" and source in ("text", "thinking")) or (
        mode == "tool-only" and source == "tool")


def backtest_session(path: str, rules: Sequence[Rule], options: BacktestOptions = BacktestOptions()) -> SessionOutcome:
    """The task: replay every assistant turn of one session file through ``rules``. Pure apart from
    reading the file; a file that is not a usable session becomes an outcome with ``error``."""
    from workbench.replay import SimulatedSession

    try:
        stream = load_stream(path, options)
    except WorkbenchError as exc:
        return SessionOutcome(path, 0, (), str(exc))
    except (OSError, ValueError) as exc:
        return SessionOutcome(path, 0, (), f"{path}: {exc}")
    originals = {r.name: r for r in rules}
    played = [replace(r, interrupt_mode="never") for r in rules] if options.mode == "probe" else list(rules)
    sim = SimulatedSession(played, options.replay_settings(), cwd=stream.cwd or "/", stream=stream)
    recorder = FiringRecorder(sim.manager)
    sim.on_check = recorder
    for i, ev in enumerate(stream.events):
        recorder.observe(i, ev)
        sim.feed(i, ev)
    status = sim.finish().status
    default = options.interrupt_default()
    hits = tuple(_hit(path, f, originals.get(f.rule), default) for f in recorder.firings)
    return SessionOutcome(path, stream.turn_count(), hits, None, status)


def load_stream(path: str, options: BacktestOptions = BacktestOptions()) -> Any:
    """A recorded stream file as is; any other file as a session, derived into a stream."""
    from workbench.replay import derive_stream, read_stream
    from workbench.sessions import load_session

    with open(path, encoding="utf-8", errors="replace") as fh:
        first = next((line for line in fh if line.strip()), "")
    if first.lstrip().startswith("{") and '"stream"' in first:
        try:
            is_stream = json.loads(first).get("type") == "stream"
        except (ValueError, AttributeError):
            is_stream = False
        if is_stream:
            return read_stream(path)
    return derive_stream(load_session(path), policy=options.policy, size=options.size)


def _hit(session: str, f: Firing, rule: Rule | None, default: str) -> Hit:
    return Hit(session, f.rule, f.turn, f.step, f.source, f.tool_name, f.stream_key, f.via, f.offset, f.end,
               f.fired_at, f.snippet, _interrupts(rule, f.source, default))


def backtest_batch(paths: Sequence[str], rules: Sequence[Rule], options: BacktestOptions) -> list[SessionOutcome]:
    """Several tasks in one call (fewer round trips to a worker); same answers as one by one."""
    return [backtest_session(p, rules, options) for p in paths]


_WORKER_RULES: list[Rule] = []
_WORKER_OPTIONS = BacktestOptions()


def _init_worker(rules: list[Rule], options: BacktestOptions) -> None:
    global _WORKER_RULES, _WORKER_OPTIONS
    _WORKER_RULES, _WORKER_OPTIONS = rules, options


def _worker_batch(paths: list[str]) -> list[SessionOutcome]:
    return backtest_batch(paths, _WORKER_RULES, _WORKER_OPTIONS)


# --- inputs -----------------------------------------------------------------------------------------


def session_files(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Session files named directly and every ``*.jsonl`` under named folders, sorted per folder."""
    out: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            out.append(str(p))
        elif p.is_dir():
            out += sorted(str(f) for f in p.rglob("*") if f.is_file() and f.suffix in SESSION_SUFFIXES)
        else:
            raise NotFoundError(f"{raw}: no such file or directory")
    return list(dict.fromkeys(out))


def load_rule_set(rules: str | os.PathLike[str] | Sequence[Rule], *, home: str | None = None) -> list[Rule]:
    """A rules folder (rule files, or a project discovered like the agent does) or ready rules."""
    if isinstance(rules, (str, os.PathLike)):
        from workbench.checks import resolve_rules

        if not Path(rules).exists():
            raise NotFoundError(f"--rules {rules}: no such file or directory")
        return resolve_rules([str(rules)], home=home)
    return list(rules)


def _batches(paths: list[str], workers: int) -> list[list[str]]:
    size = max(1, min(64, len(paths) // max(1, workers * 8)))
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
    total)`` is called as sessions finish.
    """
    if workers is not None and workers < 1:
        raise UsageError("--workers must be at least 1")
    opts = options or BacktestOptions()
    from workbench.replay.derive import chunk_text

    chunk_text("", opts.policy, opts.size)  # bad chunking options fail before any work starts
    rules = load_rule_set(rules_dir, home=home)
    files = session_files(paths)
    if not files:
        raise NotFoundError("no session files (*.jsonl) found in " + ", ".join(str(p) for p in paths))
    started = time.perf_counter()
    if scheduler is not None:
        outcomes, used = _run_dask(scheduler, files, rules, opts, progress)
    else:
        used = workers or os.cpu_count() or 1
        outcomes = _run_local(files, rules, opts, used, progress)
    elapsed = time.perf_counter() - started
    return aggregate(rules, outcomes, samples=samples, elapsed=elapsed, workers=used, scheduler=scheduler)


def _run_local(files: list[str], rules: list[Rule], opts: BacktestOptions, workers: int,
               progress: Progress | None) -> list[SessionOutcome]:
    total = len(files)
    if workers == 1 or total == 1:
        out = []
        for i, path in enumerate(files):
            out.append(backtest_session(path, rules, opts))
            if progress is not None:
                progress(i + 1, total)
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    batches = _batches(files, workers)
    results: list[list[SessionOutcome] | None] = [None] * len(batches)
    done = 0
    # Never plain fork: the host may run threads (the web app, a Dask client). A forkserver imports
    # the workbench once and forks workers from that clean process; spawn where there is none.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["workbench.backtest", "workbench.replay.session", "workbench.sessions"])
    else:
        ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(batches)), mp_context=ctx,
                             initializer=_init_worker, initargs=(rules, opts)) as pool:
        futures = {pool.submit(_worker_batch, batch): i for i, batch in enumerate(batches)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            done += len(batches[futures[future]])
            if progress is not None:
                progress(done, total)
    return [o for batch in results for o in (batch or [])]


def _run_dask(address: str, files: list[str], rules: list[Rule], opts: BacktestOptions,
              progress: Progress | None) -> tuple[list[SessionOutcome], int]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("--scheduler needs the 'distributed' package (pip install ttsr-workbench[cluster])") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--scheduler {address}: cannot connect ({exc})") from None
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        batches = _batches(files, workers)
        futures = client.map(backtest_batch, batches, rules=rules, options=opts, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[list[SessionOutcome] | None] = [None] * len(batches)
        done = 0
        for future in as_completed(futures):
            i = index[future.key]
            results[i] = future.result()
            done += len(batches[i])
            if progress is not None:
                progress(done, len(files))
        return [o for batch in results for o in (batch or [])], workers
    finally:
        client.close()
