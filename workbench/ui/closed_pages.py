"""Keep a closed browser page from printing tracebacks on the server's console.

When a page is closed or reloaded while the server is still sending it an update, Tornado's write
task fails with ``WebSocketClosedError`` and, as nothing awaits that task, asyncio prints it as
"Task exception was never retrieved" with two tracebacks (holoviz/panel#3341). Nothing is lost (the
page is gone), but on the terminal of ``workbench serve`` it reads like a crash. The loop's
exception handler logs those at debug level and passes everything else on unchanged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

log = logging.getLogger("workbench.ui")
_MARK = "_workbench_closed_pages"


def is_closed_page(context: dict[str, Any]) -> bool:
    """True for a write to a page that is gone, as asyncio reports an unawaited task's failure."""
    return isinstance(context.get("exception"), (WebSocketClosedError, StreamClosedError))


def install(loop: asyncio.AbstractEventLoop | None = None) -> bool:
    """Wrap ``loop``'s exception handler (default: the running loop's) once; False without a loop."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not served (a notebook, a test building a page)
            return False
    previous = loop.get_exception_handler()
    if getattr(previous, _MARK, False):
        return True

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if is_closed_page(context):
            log.debug("a browser page closed while the server was writing to it: %s", context.get("message"))
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    setattr(handle, _MARK, True)
    loop.set_exception_handler(handle)
    return True


CLOSED_SEND = "Failed sending message as connection was closed"
_LOGGERS = ("bokeh.server.views.ws", "panel.io.document")
QUIET_SECONDS = 60.0


class ClosedSendFilter(logging.Filter):
    """Bokeh and Panel log ``CLOSED_SEND`` as a warning for every message queued to a page that is
    gone: one walk-through left 105 such lines. Nothing is lost (the page is closed), so the first
    one in ``QUIET_SECONDS`` is kept, reworded at info level, and the rest are counted, not printed."""

    def __init__(self, clock: Any = None) -> None:
        super().__init__()
        self._clock = clock or time.monotonic
        self._last: float | None = None
        self.dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() != CLOSED_SEND:
            return True
        now = self._clock()
        if self._last is not None and now - self._last < QUIET_SECONDS:
            self.dropped += 1
            return False
        self._last = now
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg, record.args = ("a browser page closed while the server was still sending it updates "
                                   f"(more of these within {QUIET_SECONDS:.0f} s are not logged; "
                                   f"{self.dropped} dropped so far)"), ()
        return True


def quiet_closed_sends() -> ClosedSendFilter:
    """Put one ``ClosedSendFilter`` on the loggers that print ``CLOSED_SEND`` (once per process)."""
    for name in _LOGGERS:
        for f in logging.getLogger(name).filters:
            if isinstance(f, ClosedSendFilter):
                return f
    shared = ClosedSendFilter()
    for name in _LOGGERS:
        logging.getLogger(name).addFilter(shared)
    return shared



# How long a page's browser may stay away before its work is stopped: a closed tab's replay (a large
# session's time-bound pre-check is a child process using a core for minutes) otherwise runs until
# Bokeh discards the session, 15-32 s later, beside the pages still open (docs/large-sessions.md).
LEFT_SECONDS = 3.0


class BrowserLeft:
    """Whether a served page's browser has gone: it was connected, and has had no connection for
    ``LEFT_SECONDS`` (a closed or reloaded tab; a reload is a new session). Asked by the page's poll."""

    def __init__(self, seconds: float = LEFT_SECONDS) -> None:
        self.seconds = seconds
        self.seen = False  # a browser has been connected to this session

    def __call__(self, doc: Any) -> bool:
        context = getattr(doc, "session_context", None)
        session = getattr(context, "session", None)
        if session is None:  # not served, or the session is not set up yet
            return False
        if session.connection_count:
            self.seen = True
            return False
        return self.seen and session.milliseconds_since_last_unsubscribe >= self.seconds * 1000
