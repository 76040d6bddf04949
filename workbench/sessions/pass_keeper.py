"""Big served sessions' first passes made ahead, in a process of their own, while nobody waits for them.

The app's first open of a big session spends most of its load on the first pass over the file
(``workbench.sessions.first_pass``). When the app takes files in (its roots when the server starts, or
what the Sessions tab adds), the newest big session files among them that have no kept pass get one
from a child process at the lowest scheduling priority (``nice`` 19):
it takes only CPU time that the server and the browsers leave idle, and never the server's GIL (made
in the server, or at a higher priority, such a pass slowed the page a user was loading:
docs/benchmark-history.md). A page that opens such a file before its pass is kept makes its own, as
without the keeper. Run as ``python -m workbench.sessions.pass_keeper FILE ...``.
"""

from __future__ import annotations

import argparse
import atexit
import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.sessions.first_pass import PassCache
from workbench.sessions.loader import LINE_BY_LINE_BYTES, keep_first_pass


def big_files(paths: Iterable[Path], from_bytes: int, most: int) -> list[Path]:
    """The files of at least ``from_bytes`` bytes among ``paths``, newest first, at most ``most``."""
    sized = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:  # gone or unreadable: the page that opens it says why
            continue
        if st.st_size >= from_bytes:
            sized.append((st.st_mtime_ns, path))
    return [p for _, p in sorted(sized, key=lambda x: x[0], reverse=True)[:most]]


def keep_passes(paths: Iterable[Path], passes: PassCache) -> int:
    """Keep a first pass for each of ``paths`` (see ``keep_first_pass``); how many are kept now."""
    kept = 0
    for path in paths:
        try:
            kept += keep_first_pass(path, passes)
        except (OSError, ValueError, WorkbenchError) as exc:  # changed meanwhile: the page's own load says how
            print(f"{path}: no first pass kept: {exc}", file=sys.stderr)
    return kept


def start(paths: Iterable[Path]) -> subprocess.Popen[bytes] | None:
    """Start the keeper for the big files among ``paths`` (None when there are none, or no cache). It is
    reaped when it is done, and killed if this process exits first."""
    passes = PassCache.default()
    files = big_files(paths, LINE_BY_LINE_BYTES, passes.keep) if passes is not None else []
    if not files:
        return None
    child = subprocess.Popen([sys.executable, "-m", "workbench.sessions.pass_keeper", *map(str, files)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    threading.Thread(target=child.wait, name="pass-keeper-reaper", daemon=True).start()
    atexit.register(child.kill)  # (nothing to do once it has exited)
    return child


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.sessions.pass_keeper", description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if hasattr(os, "nice"):
        os.nice(19)  # first: only the CPU time nobody else wants
    passes = PassCache.default()
    if passes is not None:  # (the files were chosen by ``start``; a small one has no pass to keep)
        keep_passes(args.files, passes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
