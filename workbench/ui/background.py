"""The one way the app runs long work: on a worker thread, coming back to the browser's document.

Loading a session, building its tree and graph, searching a large list, the stepper's pre-check,
"Next trigger" and backtests must not run on the server's event loop: while one browser session
waits for them every other browser session would wait too. ``Background`` (one per browser session
or view) hands work to a small process-wide thread pool and delivers its outcome, progress reports
included, on the document's next tick, i.e. under the document lock, where editing models is safe.

Work is a function of a ``Task``; it reports with ``task.progress(done, total, text)`` and stops
early at ``task.check()`` once the task was cancelled (``Cancelled`` is then swallowed, not shown).
Tasks in the same ``lane`` run one after another in submission order (the tree's key presses must
apply in the order they were typed); ``busy(lane)`` says whether any is still pending.

Outside a served page (unit tests, a notebook without a server) there is no event loop to keep
free, so the work runs inline and the callbacks are called at once: the same code path, in order.
Only from the thread that runs the work, though: a notebook's views are sent to the browser over
the kernel's comms by whichever thread changes them, and Panel's document holds are not safe to
enter from two threads at once, so a report from another thread the work started (the stepper's
time-bound pre-check reports from its own) is counted but not shown.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import panel as pn
from panel.io.state import set_curdoc
from tornado.ioloop import IOLoop

from workbench.errors import WorkbenchError
from workbench.sessions import give_way, install_give_way
from workbench.ui.notify import describe, notify, reporting

log = logging.getLogger("workbench.ui")

# Two workers: the machine the app runs on may have two cores, and the work is mostly Python (the GIL
# lets one run at a time anyway); a second worker keeps one browser session's long task from queueing
# another session's short one.
_LOG = logging.getLogger(__name__)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="workbench-bg")
# The keys' own workers (``submit(interactive=True)``: the tree's searches, filters and moves): a search
# typed as a 100,000-entry session opened queued for two seconds behind that page's own follow-up work
# (its branch graph and conversation held both workers above). The GIL still shares the CPU; what
# this removes is the wait for a free worker (docs/large-sessions.md).
_KEYS_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="workbench-keys")
_PROGRESS_EVERY = 0.2  # seconds between progress reports delivered to the page
# Background work of every page, for ``quiet_for`` (when the server's owed garbage collection may run:
# ``workbench.ui.collector``): how many tasks run now, and when one last started or ended.
_ACTIVITY = threading.Lock()
_running = 0
_last_change = time.monotonic()


def _work_began() -> None:
    global _running, _last_change
    with _ACTIVITY:
        _running += 1
        _last_change = time.monotonic()


def _work_ended() -> None:
    global _running, _last_change
    with _ACTIVITY:
        _running -= 1
        _last_change = time.monotonic()


def quiet_for(seconds: float) -> bool:
    """No page's background work runs now, and none started or ended in the last ``seconds``."""
    with _ACTIVITY:
        return _running == 0 and time.monotonic() - _last_change >= seconds


# Giving way (workbench.sessions.giving_way; docs/large-sessions.md, "Giving way"): a worker running a page's
# long follow-up work asks the server's event loop to answer a no-op callback and waits for it,
# at most once per ``_GIVE_WAY_GAP`` s. An idle loop answers within a fraction of a millisecond; a
# loop busy with another page (or waiting for the GIL this worker holds) answers once it gets to
# it, up to ``_GIVE_WAY_MOST`` s: meanwhile the loop has the GIL to itself.
_GIVE_WAY_GAP = 0.01
_GIVE_WAY_MOST = 0.25
_giving = threading.local()  # .loop: the event loop this worker gives way to (None: none); .last: when


def _wait_for_loop() -> None:
    loop = getattr(_giving, "loop", None)
    if loop is None:
        return
    now = time.monotonic()
    if now - _giving.last < _GIVE_WAY_GAP:
        return
    answered = threading.Event()
    try:
        loop.add_callback(answered.set)
    except RuntimeError:  # the loop was closed (the server stops)
        _giving.loop = None
        return
    answered.wait(_GIVE_WAY_MOST)
    _giving.last = time.monotonic()


def _forked() -> None:
    # a child forked by this worker (a time-bound replay or backtest) has no loop of its own: its
    # callbacks would never be answered, and each wait would last ``_GIVE_WAY_MOST``
    _giving.loop = None


install_give_way(_wait_for_loop)
os.register_at_fork(after_in_child=_forked)


class Cancelled(Exception):
    """Raised by ``Task.check()`` inside the work once the task was cancelled."""


def _loop_of(doc: Any) -> IOLoop | None:
    """The event loop of the server that serves ``doc`` (None outside a server)."""
    context = getattr(doc, "session_context", None)
    application = getattr(getattr(context, "server_context", None), "application_context", None)
    return getattr(application, "io_loop", None)


def _add_next_tick(doc: Any, run: Callable[[], None]) -> None:
    try:
        doc.add_next_tick_callback(run)
    except Exception:  # the browser session closed: nobody is left to show it to
        log.debug("document gone; dropped a callback")


class Task:
    """One piece of background work: its progress, its cancel flag and, once done, its outcome."""

    def __init__(self, what: str, on_progress: Callable[[int, int, str], None] | None,
                 only_from: int | None = None) -> None:
        self.what = what
        self._only_from = only_from  # the thread whose reports are shown (inline work), or any
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._on_progress = on_progress
        self._last_report = 0.0
        self.done_count = 0
        self.total = 0
        self.text = ""

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def check(self) -> None:
        """Stop the work here if the task was cancelled (and give way to the pages first)."""
        give_way()
        if self._cancel.is_set():
            raise Cancelled(self.what)

    def progress(self, done: int, total: int, text: str = "") -> None:
        """Report progress (from the work); delivered a few times a second at most, never backwards."""
        self.check()
        if total == self.total and done < self.done_count:
            return  # a late or repeated report must not move the bar back
        self.done_count, self.total, self.text = done, total, text
        now = time.monotonic()
        if self._only_from is not None and threading.get_ident() != self._only_from:
            return  # inline work: another thread's report must not change the views (see the module doc)
        if self._on_progress is not None and (done >= total or now - self._last_report >= _PROGRESS_EVERY):
            self._last_report = now
            self._on_progress(done, total, text)

    def wait(self, timeout: float | None = None) -> bool:
        return self._finished.wait(timeout)


class Background:
    """Runs work off the event loop for one document and brings the results back to it."""

    def __init__(self, doc: Any = None) -> None:
        self._doc = doc
        self._lanes: dict[str, list[Task]] = {}
        self._pending: dict[str, list[Callable[[], None]]] = {}
        self._guard = threading.Lock()

    # -- where callbacks run -------------------------------------------------------------------------
    def _document(self) -> Any:
        if self._doc is None:

            doc = pn.state.curdoc
            if doc is not None and getattr(doc, "session_context", None) is not None:
                self._doc = doc
        return self._doc

    @property
    def served(self) -> bool:
        return self._document() is not None

    def call_soon(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the document's next tick (under its lock); inline when not served.

        From a worker thread the callback is first handed to the server's event loop, which adds it
        to the document: added from the worker itself, it was lost now and then (86 of 200,000 in a
        stress run), because the notice Bokeh sends the session for it is held while Panel handles a
        browser event on the loop, and Panel's release of those held notices is not safe against a
        thread appending meanwhile. A lost callback left a page at its last progress message for good
        (docs/architecture.md, "Results go through the event loop")."""
        doc = self._document()
        if doc is None:
            fn()
            return

        def run() -> None:
            with set_curdoc(doc):  # notifications and pn.state reach this browser session
                fn()

        loop = _loop_of(doc)
        if loop is None or IOLoop.current(instance=False) is loop:
            _add_next_tick(doc, run)
        else:
            loop.add_callback(_add_next_tick, doc, run)  # tornado's one thread-safe entry point

    # -- submitting ----------------------------------------------------------------------------------
    def submit(
        self,
        work: Callable[[Task], Any],
        *,
        what: str,
        done: Callable[[Any], None] | None = None,
        failed: Callable[[BaseException], None] | None = None,
        progress: Callable[[int, int, str], None] | None = None,
        lane: str | None = None,
        interactive: bool = False,
    ) -> Task:
        """Run ``work(task)`` off the event loop; ``done(result)`` / ``failed(exc)`` / ``progress(...)``
        are called on the document. A cancelled task calls neither ``done`` nor ``failed``.

        ``failed`` defaults to an error notification naming ``what``. ``interactive``: the answer to a key
        the user is waiting for, run on workers that long follow-up work (graphs, conversations, the
        stepper's preparation) never occupies; every task of a lane passes the same value.
        """
        served = self.served
        def deliver(done_count: int, total: int, text: str) -> None:
            if not task.cancelled:  # a report already on its way when the task was cancelled is dropped
                progress(done_count, total, text)  # type: ignore[misc]

        task = Task(what, (lambda d, t, s: self.call_soon(partial(deliver, d, t, s))) if progress and served
                    else progress, only_from=None if served else threading.get_ident())
        if lane is not None:
            queue = self._lanes.setdefault(lane, [])
            queue[:] = [t for t in queue if not t.finished] + [task]

        def report_failure(exc: BaseException) -> None:
            if failed is not None:
                failed(exc)
            else:

                notify(f"{what}: {describe(exc)}", "error")

        def finish(ok: bool, value: Any) -> None:
            if task.cancelled:
                return

            with reporting(what):  # a failing callback is a notification too, never a traceback
                if ok:
                    if done is not None:
                        done(value)
                else:
                    report_failure(value)

        def run() -> None:
            _work_began()
            # follow-up work gives way to the pages; the answer to a key does not (the user waits for it)
            _giving.loop, _giving.last = (None if interactive else _loop_of(self._document())), 0.0
            try:
                task.check()
                value, ok = work(task), True
            except Cancelled:
                task._finished.set()
                return
            except Exception as exc:
                if not isinstance(exc, _expected_errors()):
                    log.exception("%s failed", what)
                value, ok = exc, False
            finally:
                _giving.loop = None
                _work_ended()
            task._finished.set()  # before delivery: the callbacks see the lane as it is after this task
            if served:
                self.call_soon(partial(finish, ok, value))
            else:
                finish(ok, value)

        if not served:
            run()
        elif lane is None:
            (_KEYS_POOL if interactive else _POOL).submit(run)
        else:
            self._enqueue(lane, run, _KEYS_POOL if interactive else _POOL)
        return task

    def _enqueue(self, lane: str, run: Callable[[], None], pool: ThreadPoolExecutor) -> None:
        """Lane tasks run one at a time, in order, without holding a pool worker while they wait."""
        with self._guard:
            pending = self._pending.setdefault(lane, [])
            pending.append(run)
            if len(pending) > 1:
                return  # the lane's drain is running and will get to it

        def drain() -> None:
            while True:
                with self._guard:
                    job = self._pending[lane][0]
                try:
                    job()
                except Exception:  # a task reports its own errors; one failing must not stop its lane
                    _LOG.exception("background lane %s", lane)
                with self._guard:
                    self._pending[lane].pop(0)
                    if not self._pending[lane]:
                        return

        pool.submit(drain)

    def cancel(self, lane: str) -> None:
        """Cancel every unfinished task of ``lane``."""
        for task in self._lanes.get(lane, []):
            task.cancel()

    def busy(self, lane: str) -> bool:
        return any(not t.finished and not t.cancelled for t in self._lanes.get(lane, []))


def _expected_errors() -> tuple[type[BaseException], ...]:

    return (WorkbenchError,)
