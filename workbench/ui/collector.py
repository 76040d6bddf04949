"""When the server collects cyclic garbage: once its pages' background work is quiet.

Panel runs a full ``gc.collect()`` on the server's event loop a few seconds after a browser session
is destroyed (``panel.io.document._garbage_collect``, debounced to one per 5 s). With big sessions
open the pass is long: 0.4 s with a 100,000-entry session loaded, 0.8 s with a 1 GB one beside it
(1.2 M tracked objects), all of it holding the GIL. It landed on other users' pages at random: a
second user's page waited for it while the first user's Stepper prepared. Python's own full passes
did the same: the first ones after a big load walk every container the load made, in whatever code
allocates next (the Stepper's count of a 100,000-entry session took 0.6-0.75 s instead of 0.26 s).

Here a closed page only *owes* the pass, and so does a loaded session, whose containers are moved
out of the collector's sight at once (``gc.freeze``: later automatic passes look only at what was
made since). A daemon thread runs the owed pass once no page's background work has run for ``QUIET``
seconds (``background.quiet_for``), or after ``MAX_WAIT`` seconds at the latest: it brings the frozen
objects back (``gc.unfreeze``), collects everything, and freezes what is left; every ``PERIOD``
seconds a pass is owed anyway, for cycles that open pages drop among frozen objects. So the memory of
closed pages (their documents hold cycles, and through them their sessions) is still given back, on a
server that is never idle too (docs/large-sessions.md).
"""

from __future__ import annotations

import gc
import threading
import time

from panel.io import document as panel_document

from workbench.sessions import gc_freeze_lock
from workbench.ui.background import quiet_for

__all__ = ["FREEZE_FROM", "MAX_WAIT", "PERIOD", "QUIET", "after_load", "install", "owe_collection"]

QUIET = 2.0  # seconds without background work before an owed collection runs
MAX_WAIT = 60.0  # seconds an owed collection waits at most
FREEZE_FROM = 5000  # entries of a loaded session (tens of thousands of containers) worth freezing
PERIOD = 600.0  # seconds after which a pass is owed anyway (garbage among frozen objects of open pages)
_POLL = 0.25  # seconds between looks at the quiet
_due = threading.Event()
_started = threading.Lock()
_thread: threading.Thread | None = None
collections = 0  # owed collections run so far (tests read it)


def owe_collection() -> None:
    """A page was destroyed: a full collection is due once the server is quiet."""
    _due.set()


def after_load(entries: int) -> None:
    """A session of ``entries`` entries was loaded in the served app: from ``FREEZE_FROM`` entries on,
    its containers leave the collector's automatic passes now, and the full pass that takes them in is
    owed (a smaller load makes passes that cost little, and owes none). Nothing happens outside a
    served app (a notebook has no collector thread to bring them back)."""
    if _thread is not None and entries >= FREEZE_FROM:
        with gc_freeze_lock:
            gc.freeze()
        _due.set()


def _collect_when_quiet() -> None:
    global collections
    while True:
        _due.wait(PERIOD)
        owed_since = time.monotonic()
        while not quiet_for(QUIET) and time.monotonic() - owed_since < MAX_WAIT:
            time.sleep(_POLL)
        _due.clear()  # pages destroyed from here on owe the next pass
        with gc_freeze_lock:  # no time-bound child is forked from an unfrozen heap meanwhile
            gc.unfreeze()
            gc.collect()
            gc.freeze()  # what is left is old: later automatic passes look only at what is made from now
        collections += 1


def install() -> bool:
    """Take over Panel's collection after destroyed documents (once per process); False when this
    Panel has no such hook (its collection then stays as it is)."""
    global _thread
    if not callable(getattr(panel_document, "_garbage_collect", None)):
        return False
    with _started:
        panel_document._garbage_collect = owe_collection  # what Panel schedules after a destroyed document
        if _thread is None:
            _thread = threading.Thread(target=_collect_when_quiet, name="workbench-collector", daemon=True)
            _thread.start()
    return True
