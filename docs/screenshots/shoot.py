"""What every screenshot script here shares: serve the app on a free local port, wait until it answers,
and launch Debian's Chromium headless with the flags this machine needs (see docs/ for the set-up)."""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parents[1] / "sample_sessions"
STAGE = Path(tempfile.gettempdir()) / "ttsr-tour"  # where the repository's folders are served from


def staged(path: Path) -> Path:
    """A fresh copy of a folder of the repository under ``STAGE``; other paths as they are.

    The pictures show the served folders ("Serving: …"): served in place they showed the checkout's
    own path (a developer's worktree); and labels a script adds never touch the samples in git.
    """
    path = Path(path).resolve()
    if not path.is_relative_to(HERE.parents[1]):
        return path
    copy = STAGE / path.name
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(path, copy, symlinks=True)
    return copy
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def serve(paths: Sequence[Path], timeout: float = 60.0) -> str:
    """Serve ``create_app(paths)`` in a thread; the ``/app`` URL once the port accepts connections."""
    import panel as pn

    from workbench.ui.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pn.serve({"app": create_app([staged(p) for p in paths])}, port=port, address="127.0.0.1",
             websocket_origin=[f"127.0.0.1:{port}"], threaded=True, show=False)
    deadline = time.monotonic() + timeout
    while True:  # the server thread binds the port when it is ready: poll for that, not a fixed time
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    return f"http://127.0.0.1:{port}/app"


def launch(playwright: Any) -> Any:
    """Debian's Chromium (Playwright's own browser download is not available here)."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_FLAGS)


def stop() -> None:
    """Stop every server ``serve`` started."""
    import panel as pn

    pn.state.kill_all_servers()
