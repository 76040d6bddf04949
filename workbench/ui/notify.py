"""Errors and long work reach the user as notifications, never as tracebacks in the page.

``reporting()`` wraps a UI callback: a ``WorkbenchError`` becomes an error toast with its own message
(it names file and line); any other exception becomes a short toast and is logged with its traceback
on the server. In a notebook (no notification area) the message goes to a fallback sink instead.
"""

from __future__ import annotations

import logging
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

import panel as pn

from workbench.errors import WorkbenchError

log = logging.getLogger("workbench.ui")

Level = Literal["info", "success", "warning", "error"]

_KEPT = 200
# What was announced, per browser session (its Bokeh document), so tests and notebooks can read it
# without a browser. One session never sees another's messages; a document's history goes with it.
_by_document: weakref.WeakKeyDictionary[Any, deque[tuple[Level, str]]] = weakref.WeakKeyDictionary()
# Outside a served page (a notebook, a test) there is no document: one history for the process.
_unserved: deque[tuple[Level, str]] = deque(maxlen=_KEPT)


def _history_here() -> deque[tuple[Level, str]]:
    doc = pn.state.curdoc
    if doc is None:
        return _unserved
    if doc not in _by_document:
        _by_document[doc] = deque(maxlen=_KEPT)
    return _by_document[doc]


def notify(message: str, level: Level = "info", duration: int = 4000) -> None:
    """Show a toast in the current browser session (or log it when there is none)."""
    _history_here().append((level, message))
    area = getattr(pn.state, "notifications", None)
    if area is None:
        log.log(logging.ERROR if level == "error" else logging.INFO, message)
        return

    def show() -> None:
        try:
            getattr(area, level)(message, duration=12000 if level == "error" else duration)
        except Exception:  # a closed session: nothing to show it in
            log.info(message)

    # Panel's notification area shows the notifications that arrive once it is drawn in the page:
    # one sent while the page is still loading (the Stepper's first build of a deep link, say) was
    # kept on the server and never shown. Such a toast waits for the page's load (docs/architecture.md, "The app").
    if pn.state.curdoc is not None and not pn.state.loaded:
        pn.state.onload(show)
    else:
        show()


def history() -> list[tuple[Level, str]]:
    """What was announced in the current browser session (outside one: in this process), oldest first."""
    return list(_history_here())


def describe(exc: BaseException) -> str:
    if isinstance(exc, WorkbenchError):
        return str(exc)
    return f"Unexpected error: {type(exc).__name__}: {exc}"


@contextmanager
def reporting(what: str) -> Iterator[None]:
    """Run a block; turn any failure into one notification naming ``what`` was being done."""
    try:
        yield
    except WorkbenchError as exc:
        notify(f"{what}: {exc}", "error")
    except Exception as exc:  # never let a traceback reach the page
        log.exception("%s failed", what)
        notify(f"{what}: {describe(exc)}", "error")


def guarded(what: str) -> Callable[[Callable[..., object]], Callable[..., None]]:
    """Decorator form of ``reporting`` for widget callbacks and param watchers."""

    def wrap(fn: Callable[..., object]) -> Callable[..., None]:
        def inner(*args: object, **kwargs: object) -> None:
            with reporting(what):
                fn(*args, **kwargs)

        inner.__name__ = getattr(fn, "__name__", "callback")
        inner.__doc__ = fn.__doc__
        return inner

    return wrap
