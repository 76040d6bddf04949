"""A guard against a race in Panel's websocket writes that left a patch unsent (the "lost key").

Panel (1.9, ``panel/io/document.py``) writes a change to the browser at once unless a write is
already in flight; then it queues the message (``_WRITE_MSGS``), marks the document as blocked
(``_WRITE_BLOCK``) and schedules ``_dispatch_msgs`` to send the queue. The task that is finishing
the earlier write clears the block when its own queue is empty, without looking at messages queued
meanwhile; the newly scheduled task then finds no block and returns at once. The queued message
waits until some later change happens to schedule another flush, which may be never.

In the tree, a row click's answer (the selection) is usually still being written when a key pressed
right after it comes back with the new list: that list was the message left in the queue, and the
page showed the old rows forever (tests/ui/test_e2e_tree.py::test_filter_buttons_and_alt_keys,
one run in ten on a loaded machine). Logged on the server: the list's patch queued, then every
``_dispatch_msgs`` returning early with five messages pending.

The guard wraps ``_dispatch_msgs``: messages still queued when the block is gone set the block
again, so the task sends them (Panel's own code does the sending, in order, honouring the socket's
write lock). Panel has no public hook for this, so the wrapper reaches its module's internals; if
those names change in a later Panel, ``install`` leaves Panel alone and says so in the log.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import MutableMapping
from typing import Any

from panel.io import document as pdoc

log = logging.getLogger("workbench.ui")
_MARK = "_workbench_flush_guard"


def install() -> bool:
    """Wrap Panel's queued-write dispatcher once per process; False when Panel's internals differ."""
    original = getattr(pdoc, "_dispatch_msgs", None)
    if original is None or getattr(original, _MARK, False):
        return original is not None
    blocks, queued = getattr(pdoc, "_WRITE_BLOCK", None), getattr(pdoc, "_WRITE_MSGS", None)
    if not isinstance(blocks, MutableMapping) or not isinstance(queued, MutableMapping):
        log.warning("Panel's write queue changed; the queued-write guard is not installed")
        return False

    @functools.wraps(original)
    async def dispatch(doc: Any) -> Any:
        if doc not in blocks and any(queued.get(doc, {}).values()):
            blocks[doc] = True  # queued after the last flush cleared the block: send them now
        return await original(doc)

    setattr(dispatch, _MARK, True)
    pdoc._dispatch_msgs = dispatch  # the module-global name its tasks call
    return True
