"""A catastrophic regex must not hang a replay: the rule is reported at its step and disabled."""

from __future__ import annotations

import threading
import time

from tests.replay.conftest import prose_turn, rule, stream_of
from workbench.replay import ReplayConfig, Stepper, run_session

# Exponential backtracking on a run of "a" ending in "b" but no digit. (`(a+)+c` no longer hangs
# the engine on text without "c": the literal prefilter answers without running the regex.)
SLOW = rule("slow", r"(a+)+b\d")
UNWRAP = rule("no-unwrap", r"\.unwrap\(")


def _stream():
    return stream_of(prose_turn("a" * 8, "a" * 40 + "b", " done"), prose_turn("x.unwrap("), prose_turn("ok"))


def test_stepper_reports_the_slow_rule_and_goes_on_without_it():
    stream = _stream()
    started = time.monotonic()
    st = Stepper(stream, [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5))
    hang_step = 3  # turn_start, message_start, a short delta, then the long run of "a"
    assert set(st.disabled) == {"slow"} and "step 3" in st.disabled["slow"]
    snap = st.seek(hang_step)
    assert [(e.type, e.rules) for e in snap.events] == [("time_bound", ("slow",))]
    state = snap.rule("slow")
    assert not state.registered and "time bound" in state.why
    fired = [e for s in st.snapshots() for e in s.events if e.type == "ttsr_triggered"]
    assert [e.rules for e in fired] == [("no-unwrap",)]
    assert time.monotonic() - started < 30


def test_run_session_reports_time_bound_events():
    result = run_session(_stream(), [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5))
    assert result.disabled.keys() == {"slow"}
    assert [e.type for e in result.events][:2] == ["time_bound", "ttsr_triggered"]
    assert result.events[0].step == 3


def test_fast_rules_are_not_disabled():
    result = run_session(stream_of(prose_turn("b" * 40, "ccc")), [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=1.0))
    assert result.disabled == {}


def _guard_in_daemon(queue):
    result = run_session(_stream(), [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=1.0))
    queue.put(sorted(result.disabled))


def test_the_bound_works_inside_a_daemonic_process():
    # A Dask worker is daemonic; multiprocessing forbids it children, the plain fork used here does not.
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_guard_in_daemon, args=(queue,), daemon=True)
    proc.start()
    try:
        assert queue.get(timeout=60) == ["slow"]
    finally:
        proc.join(timeout=10)


def test_bounded_child_sends_results_and_reraises_errors():
    from workbench.replay.timebound import Bounded, wait_all

    def work(report):
        report({"n": 1})
        report()
        raise ValueError("boom in the child")

    run = Bounded(work)
    wait_all([run], 10.0)
    assert run.state == "failed" and run.results == [{"n": 1}] and run.progress == 2
    assert isinstance(run.error, ValueError) and "boom" in str(run.error)
    hung = Bounded(lambda report: time.sleep(30))
    wait_all([hung], 0.3)
    assert hung.state == "hung" and hung.progress == 0


def test_a_hung_child_logs_its_stack_before_it_is_killed(caplog):
    # a hang the machine caused (a lock the fork copied held) must be told apart from a slow rule
    import logging

    from workbench.replay.timebound import Bounded, wait_all

    def stuck_in_the_child(report):
        report()
        threading.Event().wait()  # never set: only SIGKILL ends it

    with caplog.at_level(logging.INFO, logger="workbench.replay.timebound"):
        run = Bounded(stuck_in_the_child)
        wait_all([run], 0.3)
    told = [r.getMessage() for r in caplog.records if "made no progress" in r.getMessage()]
    assert run.state == "hung" and run.progress == 1
    assert len(told) == 1 and "after 1 reports" in told[0] and "in stuck_in_the_child" in told[0]


def test_the_bound_works_where_no_file_for_the_stack_can_be_made(monkeypatch, caplog):
    import logging
    import tempfile

    from workbench.replay.timebound import Bounded, wait_all

    def refused(*args, **kwargs):
        raise PermissionError("read-only temporary folder")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    with caplog.at_level(logging.INFO, logger="workbench.replay.timebound"):
        done, hung = Bounded(lambda report: report("ok")), Bounded(lambda report: threading.Event().wait())
        wait_all([done, hung], 0.3)
    assert done.state == "done" and done.results == ["ok"] and hung.state == "hung"
    assert not [r for r in caplog.records if "made no progress" in r.getMessage()]


def _gone(pid: int) -> bool:
    import pathlib

    status = pathlib.Path(f"/proc/{pid}/status")
    try:  # a zombie nobody reaps (the container's first process may not) counts as gone
        return "\nState:\tZ" in status.read_text()
    except FileNotFoundError:
        return True


def test_a_child_goes_with_the_parent_that_forked_it(tmp_path):
    # only the parent kills a hung child: if the parent itself is killed (a server stopped with
    # SIGKILL), the child must not spin for good
    import os
    import signal
    import subprocess
    import sys

    import pytest

    if not sys.platform.startswith("linux"):
        pytest.skip("the child's death signal is Linux's prctl")
    script = ("import sys, threading\n"
              "from workbench.replay.timebound import Bounded\n"
              "run = Bounded(lambda report: threading.Event().wait())\n"
              "print(run.pid, flush=True)\n"
              "threading.Event().wait()\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        child = int(parent.stdout.readline())
        assert not _gone(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(30)
        deadline = time.monotonic() + 30
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _gone(child), f"child {child} outlived its killed parent"
    finally:
        parent.kill()
        if child is not None and not _gone(child):
            os.kill(child, signal.SIGKILL)


def test_culprits_without_candidates_still_waits_for_the_control_run():
    from workbench.replay.timebound import Bounded, culprits

    slow, control = culprits([], {}, lambda plan: Bounded(lambda report: report("finished")), 5.0)
    assert slow is None and control.state == "done" and control.results == ["finished"]



def test_stepper_reports_time_bound_progress_through_the_stream():
    stream = stream_of(*(prose_turn(f"word {i} ", "and more ") for i in range(20)))
    seen: list[tuple[int, int]] = []
    spaced = rule("spaced", r"more\s+and")  # unbounded: not provably linear, so it is checked
    st = Stepper(stream, [spaced], ReplayConfig(cwd="/proj", time_bound=5.0), progress=lambda done, total: seen.append((done, total)))
    assert st.disabled == {}
    assert seen, "the time-bound pre-check never reported progress"
    assert {total for _, total in seen} == {len(stream.events)}
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] <= len(stream.events)


def test_background_precheck_gives_the_first_step_then_catches_the_slow_rule():
    stream = _stream()
    st = Stepper(stream, [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5), background=True)
    assert st.precheck is not None and st.precheck.needed
    first = st.seek(0)  # verified at once: the child is past event 0 in milliseconds
    assert first.index == 0
    snap = st.seek(3)  # waits for the check, which disables "slow" and restarts the snapshots
    assert set(st.disabled) == {"slow"} and st.generation == 1
    assert [(e.type, e.rules) for e in snap.events] == [("time_bound", ("slow",))]
    assert not snap.rule("slow").registered
    st.precheck.wait(30)
    assert st.precheck.state == "done"
    fired = [e for s in st.snapshots() for e in s.events if e.type == "ttsr_triggered"]
    assert [e.rules for e in fired] == [("no-unwrap",)]
    assert st.result().disabled.keys() == {"slow"}


def test_background_precheck_answers_like_the_synchronous_one():
    stream = _stream()
    sync = Stepper(stream, [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5))
    bg = Stepper(stream, [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5), background=True)
    assert [s.to_json() for s in bg.snapshots()] == [s.to_json() for s in sync.snapshots()]


def test_cancelled_precheck_refuses_unverified_steps():
    from workbench.errors import TimeBoundError

    stream = _stream()
    st = Stepper(stream, [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=5.0), background=True)
    st.precheck.cancel()
    st.precheck.wait(30)
    assert st.precheck.state == "cancelled"
    import pytest

    with pytest.raises(TimeBoundError, match="cancelled"):
        st.seek(len(st) - 1)


def test_linear_rules_need_no_precheck():
    from workbench.replay.timebound import may_hang

    assert not may_hang(UNWRAP) and may_hang(SLOW)
    st = Stepper(_stream(), [UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5), background=True)
    assert not st.precheck.needed and st.precheck.state == "done"
    assert run_session(_stream(), [UNWRAP], ReplayConfig(cwd="/proj", time_bound=0.5)).disabled == {}


def test_a_step_waiting_for_the_precheck_stops_when_its_interrupt_raises():
    # The pre-check sits on the slow event for the whole bound (60 s): a seek past it waits, and a
    # cancelled task's interrupt ends the wait instead of holding the caller until the check gets there.
    import pytest

    class Stop(Exception):
        pass

    st = Stepper(_stream(), [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=60.0), background=True)
    calls: list[int] = []

    def interrupt() -> None:
        calls.append(st.precheck.verified)
        if len(calls) == 2:
            raise Stop

    st.interrupt = interrupt
    try:
        with pytest.raises(Stop):
            st.seek(len(st) - 1)
        assert calls and max(calls) <= 3 and st.precheck.state == "running"  # stopped while the check waits at the slow step
    finally:
        st.precheck.cancel()
        st.precheck.wait(30)
    assert st.precheck.state == "cancelled"
    st.interrupt = None
    from workbench.errors import TimeBoundError

    with pytest.raises(TimeBoundError, match="cancelled"):
        st.seek(len(st) - 1)


def test_a_bounded_child_leaves_the_parents_freeze_as_it_found_it():
    # The child is forked with everything frozen; a heap nobody froze is unfrozen again after the fork,
    # and one the served app froze (workbench.ui.collector) stays frozen for the app's own pass.
    import gc

    from workbench.replay.timebound import Bounded, wait_all

    was = gc.get_freeze_count()
    gc.unfreeze()
    try:
        run = Bounded(lambda report: report())
        wait_all([run], 10)
        assert run.state == "done" and gc.get_freeze_count() == 0
        held = [[n] for n in range(10)]
        gc.freeze()
        run = Bounded(lambda report: report())
        wait_all([run], 10)
        assert run.state == "done" and gc.get_freeze_count() >= len(held)
    finally:
        gc.unfreeze()
        if was:
            gc.freeze()


def test_a_wait_on_a_check_that_does_not_move_logs_where_the_check_stands(monkeypatch, caplog):
    # The check sits on the slow event for its whole 60 s bound: a seek past it logs, once, how far the
    # check got and the stack of its thread (a Stepper stall seen in CI was never reproduced alone).
    import logging

    import pytest

    from workbench.replay import timebound

    class Stop(Exception):
        pass

    monkeypatch.setattr(timebound, "STALL_REPORT", 0.3)
    st = Stepper(_stream(), [SLOW, UNWRAP], ReplayConfig(cwd="/proj", time_bound=60.0), background=True)
    told: list[bool] = []

    def interrupt() -> None:
        told.append(any("not moved" in r.getMessage() for r in caplog.records))
        if told[-1] or len(told) > 200:
            raise Stop

    st.interrupt = interrupt
    try:
        with caplog.at_level(logging.WARNING, logger="workbench.replay.timebound"), pytest.raises(Stop):
            st.seek(len(st) - 1)
    finally:
        st.precheck.cancel()
        st.precheck.wait(30)
    stalls = [r.getMessage() for r in caplog.records if "not moved" in r.getMessage()]
    # where the thread stands depends on the machine's load (in CI it was once still forking): the
    # stack names the check's own function, whatever line it has reached
    assert len(stalls) == 1 and "its thread is at:" in stalls[0] and ", in _run\n" in stalls[0]
