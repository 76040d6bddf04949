"""A write to a closed page is logged quietly; every other failure of a task is reported as before."""

from __future__ import annotations

import asyncio
import logging
import threading

from tornado.websocket import WebSocketClosedError

from workbench.ui import closed_pages


def _report(loop: asyncio.AbstractEventLoop, exc: BaseException) -> None:
    loop.call_exception_handler({"message": "Task exception was never retrieved", "exception": exc})


def test_a_closed_page_is_logged_at_debug_and_other_errors_still_reach_asyncio(caplog):
    loop = asyncio.new_event_loop()
    try:
        assert closed_pages.install(loop) and closed_pages.install(loop)  # the second call changes nothing
        with caplog.at_level(logging.DEBUG):
            _report(loop, WebSocketClosedError())
            _report(loop, ValueError("a real bug"))
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [r.name for r in errors] == ["asyncio"] and "a real bug" in errors[0].getMessage() + str(errors[0].exc_info)
        quiet = [r for r in caplog.records if r.name == "workbench.ui"]
        assert len(quiet) == 1 and quiet[0].levelno == logging.DEBUG and "closed" in quiet[0].getMessage()
    finally:
        loop.close()


def test_a_handler_set_before_still_gets_everything_else():
    loop = asyncio.new_event_loop()
    seen: list[object] = []
    try:
        loop.set_exception_handler(lambda _loop, context: seen.append(context["exception"]))
        closed_pages.install(loop)
        _report(loop, WebSocketClosedError())
        bug = ValueError("a real bug")
        _report(loop, bug)
        assert seen == [bug]
    finally:
        loop.close()


def test_without_a_running_loop_nothing_is_installed():
    # in a thread of its own: the browser tests' Playwright keeps a loop running on the main thread
    out: list[bool] = []
    thread = threading.Thread(target=lambda: out.append(closed_pages.install()))
    thread.start()
    thread.join()
    assert out == [False]


def test_repeated_failed_sends_to_a_closed_page_are_one_info_line_per_minute():
    now = [0.0]
    quiet = closed_pages.ClosedSendFilter(clock=lambda: now[0])
    logger = logging.getLogger("test.closed_sends")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger.addFilter(quiet)
    logger.addHandler(Keep())
    logger.propagate = False
    try:
        for _ in range(105):  # one walk-through's worth
            logger.warning(closed_pages.CLOSED_SEND)
        logger.warning("Failed sending message due to following error: boom")  # other words pass as they are
        now[0] = closed_pages.QUIET_SECONDS + 1
        logger.warning(closed_pages.CLOSED_SEND)
    finally:
        logger.removeFilter(quiet)
        logger.propagate = True
    closed = [r for r in records if "browser page closed" in r.getMessage()]
    assert len(closed) == 2 and all(r.levelno == logging.INFO for r in closed)
    assert "104 dropped" in closed[1].getMessage()
    assert any(r.levelno == logging.WARNING and "boom" in r.getMessage() for r in records)
    assert not any(r.getMessage() == closed_pages.CLOSED_SEND for r in records)


def test_the_filter_sits_on_the_loggers_that_print_the_line_once():
    first = closed_pages.quiet_closed_sends()
    assert closed_pages.quiet_closed_sends() is first
    for name in ("bokeh.server.views.ws", "panel.io.document"):
        assert [f for f in logging.getLogger(name).filters if isinstance(f, closed_pages.ClosedSendFilter)] == [first]



def test_a_page_whose_browser_left_is_noticed_only_after_it_was_connected_and_stayed_away():
    from types import SimpleNamespace

    from workbench.ui.closed_pages import BrowserLeft

    session = SimpleNamespace(connection_count=0, milliseconds_since_last_unsubscribe=10_000)
    doc = SimpleNamespace(session_context=SimpleNamespace(session=session))
    left = BrowserLeft(seconds=3)
    assert not left(SimpleNamespace()) and not left(None)  # not served
    assert not left(doc)  # never connected yet: the page's scripts may still be loading
    session.connection_count = 1
    assert not left(doc)
    session.connection_count, session.milliseconds_since_last_unsubscribe = 0, 1_000
    assert not left(doc)  # away for a second: not yet
    session.milliseconds_since_last_unsubscribe = 3_000
    assert left(doc)
