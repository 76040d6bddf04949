"""The background runner: lanes in order, results on the document's tick, cancel, forward-only progress."""

from __future__ import annotations

import queue
import threading
import time

from workbench.errors import UsageError
from workbench.ui import notify
from workbench.ui.background import Background, Cancelled, Task


class FakeDoc:
    """Stands in for a served Bokeh document: next-tick callbacks queue up until ``run_ticks``."""

    session_context = object()

    def __init__(self) -> None:
        self.ticks: queue.Queue = queue.Queue()
        self.doc_thread = threading.get_ident()

    def add_next_tick_callback(self, fn):
        self.ticks.put(fn)

    def run_ticks(self, until, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < deadline, "timed out waiting for background work"
            try:
                self.ticks.get(timeout=0.05)()
            except queue.Empty:
                pass


def test_not_served_runs_inline_in_order():
    bg = Background()
    seen = []
    bg.submit(lambda task: 1, what="a", done=seen.append)
    bg.submit(lambda task: 2, what="b", done=seen.append, lane="x")
    assert seen == [1, 2] and not bg.served


def test_not_served_shows_only_the_reports_of_the_thread_running_the_work():
    # In a notebook the work runs inline; a thread it starts (the stepper's pre-check) may report
    # too, and changing the views from there races the kernel's own changes.
    bg = Background()
    shown: list[tuple[int, str]] = []

    def work(task: Task) -> int:
        task.progress(1, 4, "here")
        helper = threading.Thread(target=task.progress, args=(2, 2, "from another thread"))  # complete: never throttled
        helper.start()
        helper.join()
        task.progress(4, 4, "here again")
        return task.done_count

    done: list[int] = []
    bg.submit(work, what="w", done=done.append, progress=lambda d, t, s: shown.append((d, s)))
    assert shown == [(1, "here"), (4, "here again")]
    assert done == [4]


def test_served_work_runs_off_the_document_thread_and_returns_on_its_tick():
    doc = FakeDoc()
    bg = Background(doc)
    where: dict[str, int] = {}

    def work(task: Task) -> str:
        where["work"] = threading.get_ident()
        return "ok"

    results = []
    bg.submit(work, what="w", done=lambda r: (results.append(r), where.setdefault("done", threading.get_ident())))
    doc.run_ticks(lambda: results)
    assert results == ["ok"]
    assert where["work"] != doc.doc_thread and where["done"] == doc.doc_thread


def test_a_lane_keeps_submission_order_even_when_later_work_is_faster():
    doc = FakeDoc()
    bg = Background(doc)
    order: list[str] = []
    started, release, slow_finished = threading.Event(), threading.Event(), threading.Event()
    fast_saw_slow_finished: list[bool] = []

    def slow(task: Task) -> str:
        started.set()
        assert release.wait(10)  # held until the faster work has been submitted behind it
        slow_finished.set()
        return "slow"

    def fast(task: Task) -> str:
        fast_saw_slow_finished.append(slow_finished.is_set())
        return "fast"

    bg.submit(slow, what="1", lane="tree", done=order.append)
    assert started.wait(10)
    bg.submit(fast, what="2", lane="tree", done=order.append)
    assert bg.busy("tree")
    release.set()
    doc.run_ticks(lambda: len(order) == 2)
    assert order == ["slow", "fast"] and fast_saw_slow_finished == [True] and not bg.busy("tree")


def test_an_interactive_lane_runs_while_long_work_holds_every_general_worker():
    # A search typed as a big session opened queued behind that page's graph and conversation, which
    # held both general workers; the keys have workers of their own.
    doc = FakeDoc()
    bg = Background(doc)
    release = threading.Event()
    running = threading.Semaphore(0)

    def long_work(task: Task) -> str:
        running.release()
        assert release.wait(10)
        return "long"

    results: list[str] = []
    for n in range(2):
        bg.submit(long_work, what=f"graph {n}", lane=f"follow-up {n}", done=results.append)
    for _ in range(2):
        assert running.acquire(timeout=10)  # both general workers are taken
    bg.submit(lambda task: "key", what="search", lane="tree", interactive=True, done=results.append)
    try:
        doc.run_ticks(lambda: "key" in results)
        assert results == ["key"]
    finally:
        release.set()
    doc.run_ticks(lambda: len(results) == 3)


def test_cancel_stops_at_the_next_check_and_reports_nothing():
    doc = FakeDoc()
    bg = Background(doc)
    started, outcomes = threading.Event(), []

    def work(task: Task) -> int:
        started.set()
        for i in range(1000):
            time.sleep(0.01)
            task.progress(i, 1000, "working")
        return 1

    task = bg.submit(work, what="long", done=outcomes.append, failed=outcomes.append, lane="x")
    assert started.wait(10)
    task.cancel()
    assert task.wait(10)
    doc.run_ticks(lambda: doc.ticks.empty())
    assert outcomes == [] and task.cancelled


def test_progress_never_runs_backwards():
    heard = []
    task = Task("t", lambda d, t, s: heard.append(d))
    task._last_report = -1e9
    for done in (1, 5, 3, 7):
        task._last_report = -1e9  # deliver every report (the runner throttles to a few per second)
        task.progress(done, 10)
    assert heard == [1, 5, 7]


def test_a_failure_becomes_a_notification_naming_the_work():
    bg = Background()

    def work(task: Task) -> None:
        raise UsageError("bad input on line 3")

    bg.submit(work, what="Open session")
    assert notify.history()[-1] == ("error", "Open session: bad input on line 3")


def test_check_raises_cancelled_once_cancelled():
    task = Task("t", None)
    task.check()
    task.cancel()
    try:
        task.check()
    except Cancelled:
        pass
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("check() did not raise after cancel()")
