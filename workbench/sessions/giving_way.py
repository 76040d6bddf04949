"""Where long work lets the thread that serves pages go first (docs/large-sessions.md, "Giving way").

In the app, one thread (the server's event loop) builds and updates every user's page, while long
work (a session's parse, the Stepper's preparation) runs on worker threads of the same process.
They share one GIL, which Python hands back and forth every few milliseconds whoever asks: a second
user's page built while the first user's Stepper prepared took 1.5–3.6× as long as on an idle server.

Long loops call ``give_way()`` between pieces of their work. The app installs the hook that decides
(``workbench.ui.background``: a worker waits there while the event loop has work of its own);
elsewhere (the command line, notebooks, tests of the core) nothing is installed and a call costs a
global read. It lives with the sessions, whose parse is the longest such loop; the layers above
import it from here, and the UI only installs the hook.
"""

from __future__ import annotations

from collections.abc import Callable

# Items between two calls (a mask for ``if not i & GIVE_WAY_EVERY``): about 10 ms of parsing lines,
# so a served page waits that long at most, and an item costs no call.
GIVE_WAY_EVERY = 2047

_hook: Callable[[], None] | None = None


def give_way() -> None:
    """Let the page-serving thread run first, when the app asked for it (else return at once)."""
    hook = _hook
    if hook is not None:
        hook()


def install_give_way(hook: Callable[[], None] | None) -> None:
    """Make ``hook`` what ``give_way()`` calls (``None``: nothing)."""
    global _hook
    _hook = hook
