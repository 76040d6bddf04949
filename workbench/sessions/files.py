"""Which files are sessions: the one walker behind ``ingest``, ``backtest`` and the app.

A session file is a ``*.jsonl`` file that is not a recorded stream (``*.stream.jsonl``,
docs/stream-format.md). Folders are walked recursively in sorted order, passing over hidden folders
(``.git``, and the agents' own ``.omp`` / ``.xcsh`` folders that hold rules and settings) and
``node_modules``. A file named directly is always taken, whatever its name: reading it is how the user
hears that it is not a session (or, for the backtest and the stepper, a stream is played as it is).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from workbench.errors import NotFoundError

__all__ = ["SESSION_SUFFIX", "STREAM_SUFFIX", "Progress", "is_session_name", "session_files"]

Progress = Callable[[int, int, str], None]
"""``progress(done, total, path)``: the one progress callback of work done file by file (ingest, backtest)."""

SESSION_SUFFIX = ".jsonl"
STREAM_SUFFIX = ".stream.jsonl"
_SKIPPED_DIRS = frozenset({"node_modules"})


def is_session_name(name: str) -> bool:
    """``*.jsonl`` and not ``*.stream.jsonl``."""
    return name.endswith(SESSION_SUFFIX) and not name.endswith(STREAM_SUFFIX)


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in _SKIPPED_DIRS]
        found.extend(Path(dirpath) / name for name in filenames if is_session_name(name))
    return sorted(found)


def session_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named directly, and the session files under named folders (sorted per folder), each once
    in argument order. A path that does not exist is a ``NotFoundError``."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            out.extend(_walk(path))
        elif path.exists():
            out.append(path)
        else:
            raise NotFoundError(f"{raw}: no such file or directory")
    return list(dict.fromkeys(out))
