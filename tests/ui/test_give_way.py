"""Long work gives way to the server's event loop (workbench.sessions.giving_way, ui/background.py)."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest
from tornado.ioloop import IOLoop

from workbench.sessions import give_way
from workbench.ui import background


@pytest.fixture
def loop():
    """A tornado event loop running on a thread of its own, as the server's."""
    ready = threading.Event()
    holder: dict[str, IOLoop] = {}

    def run() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        holder["loop"] = IOLoop.current()
        holder["loop"].add_callback(ready.set)
        holder["loop"].start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait()
    yield holder["loop"]
    holder["loop"].add_callback(holder["loop"].stop)
    thread.join()


class _Spy:
    """The loop, telling when (and how often) a worker has asked it for an answer."""

    def __init__(self, loop: IOLoop) -> None:
        self.loop, self.asked, self.times = loop, threading.Event(), 0

    def add_callback(self, fn, *args) -> None:
        self.loop.add_callback(fn, *args)
        self.times += 1
        self.asked.set()


def _worker(loop, seen: list, flag: dict) -> threading.Thread:
    def work() -> None:
        background._giving.loop, background._giving.last = loop, 0.0
        try:
            give_way()
            seen.append(flag["busy_done"])
        finally:
            background._giving.loop = None
        background._giving.last = 0.0
        give_way()  # the task is over: this thread gives way to no loop any more
        seen.append("after")
    return threading.Thread(target=work)


def test_a_worker_waits_while_the_loop_is_busy(loop, monkeypatch):
    monkeypatch.setattr(background, "_GIVE_WAY_MOST", 60.0)
    go, flag, seen = threading.Event(), {"busy_done": False}, []

    def busy() -> None:  # another page's work on the loop
        go.wait()
        flag["busy_done"] = True
    loop.add_callback(busy)
    spy = _Spy(loop)
    worker = _worker(spy, seen, flag)
    worker.start()
    spy.asked.wait()
    go.set()
    worker.join()
    assert seen == [True, "after"]  # it went on only once the loop had done its own work


def test_an_idle_loop_answers_and_a_finished_task_asks_nothing(loop):
    spy = _Spy(loop)
    seen: list = []
    worker = _worker(spy, seen, {"busy_done": "idle"})
    worker.start()
    worker.join()
    assert seen == ["idle", "after"] and spy.times == 1  # asked once, answered; not asked once the task was over


def test_a_forked_child_gives_way_to_no_loop(loop):
    background._giving.loop = loop
    try:
        pid = os.fork()
        if pid == 0:  # the child: its parent's loop is not its own
            os._exit(0 if getattr(background._giving, "loop", None) is None else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        background._giving.loop = None
