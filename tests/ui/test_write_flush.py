"""The queued-write guard: a message queued after Panel's last flush cleared the block is still sent."""

from __future__ import annotations

import asyncio
import threading

import pytest
from bokeh.document import Document
from panel.io import document as pdoc

from workbench.ui import write_flush


class _Socket:
    """A websocket stand-in: Panel hands queued messages to the handler registered for its type."""


class _Conn:
    def __init__(self) -> None:
        self._socket = _Socket()


def _run(coroutine) -> None:
    """Run ``coroutine`` to its end on a loop of its own thread: the browser tests' Playwright keeps
    an event loop running in the main thread, where ``asyncio.run`` refuses to start."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


@pytest.fixture
def queued():
    """A document in the state the race leaves: a message queued, no write block, nothing to send it."""
    sent: list[str] = []
    pdoc.extra_socket_handlers[_Socket] = lambda conn, msg=None: sent.append(msg) or []
    doc, conn = Document(), _Conn()
    pdoc._WRITE_MSGS[doc] = {conn: ["the list's patch"]}
    pdoc._WRITE_BLOCK.pop(doc, None)
    yield doc, sent
    pdoc._WRITE_MSGS.pop(doc, None)
    pdoc._WRITE_BLOCK.pop(doc, None)
    pdoc.extra_socket_handlers.pop(_Socket, None)


def test_plain_panel_leaves_the_queued_message_unsent(queued):
    # Panel's own dispatcher returns early without a block: the state the lost key was in. If a
    # later Panel sends it, this fails and the guard can go.
    write_flush.install()
    doc, sent = queued
    _run(pdoc._dispatch_msgs.__wrapped__(doc))
    assert sent == [] and pdoc._WRITE_MSGS[doc]


def test_guard_sends_the_queued_message_and_clears_the_block(queued):
    assert write_flush.install()
    doc, sent = queued
    _run(pdoc._dispatch_msgs(doc))
    assert sent == ["the list's patch"]
    assert doc not in pdoc._WRITE_MSGS and doc not in pdoc._WRITE_BLOCK


def test_guard_leaves_an_empty_queue_alone(queued):
    write_flush.install()
    doc, sent = queued
    pdoc._WRITE_MSGS.pop(doc)
    _run(pdoc._dispatch_msgs(doc))
    assert sent == [] and doc not in pdoc._WRITE_BLOCK


def test_install_wraps_once():
    assert write_flush.install() and write_flush.install()
    assert not getattr(pdoc._dispatch_msgs.__wrapped__, write_flush._MARK, False)
