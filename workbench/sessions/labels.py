"""Writing a label the way the agent does: one appended ``label`` entry, never a rewrite (docs/flavours.md, "The branch tree and labels").

The read-leaf-then-append step holds a ``filelock`` lock so two workbench writers cannot chain off the
same leaf, and the line goes out in one ``os.write`` on an ``O_APPEND`` descriptor so a concurrently
appending agent never sees a torn line. The lock file lives in the temporary folder, named for the
session's real path: nothing is created beside the user's session, and the package imports no
platform-only module (``fcntl``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from filelock import FileLock

from workbench.errors import NotFoundError, SessionFileError
from workbench.sessions.loader import parse_session_bytes


def _lock_for(name: str) -> FileLock:
    real = os.path.realpath(name)
    folder = Path(tempfile.gettempdir()) / "workbench-label-locks"
    folder.mkdir(exist_ok=True)
    return FileLock(folder / (hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".lock"))


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def append_label(
    path: str | os.PathLike[str], target_id: str, label: str | None, *, parent_id: str | None = None
) -> dict[str, Any]:
    """Append ``{"type":"label", targetId, label}`` to the session file and return the entry written.

    ``label`` is trimmed like the agent's label editor; an empty or ``None`` label clears (the key is
    left out, as the agent writes it). The parent is the file's current leaf (its last entry) unless
    ``parent_id`` is given. Raises ``NotFoundError`` for an unknown target, ``SessionFileError`` for a
    file that is not a version ≥ 2 session.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        raise SessionFileError("file not found", path=name) from None
    except OSError as exc:
        raise SessionFileError(f"cannot open for appending: {exc.strerror or exc}", path=name) from None
    try:
        with _lock_for(name):
            return _append(fd, name, target_id, label, parent_id)
    finally:
        os.close(fd)


def _append(fd: int, name: str, target_id: str, label: str | None, parent_id: str | None) -> dict[str, Any]:
    """Read the file, check the ids and append the entry (the caller holds the lock)."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0) if size else b""
    session = parse_session_bytes(data, path=name)
    if session.original_version < 2:
        raise SessionFileError(
            "version 1 file: its entry ids exist only in memory, so a label could not point at them",
            path=name, field="version")
    if target_id not in session.by_id:
        raise NotFoundError(f"Entry {target_id} not found in {name}")
    if parent_id is not None and parent_id not in session.by_id:
        raise NotFoundError(f"Entry {parent_id} not found in {name}")
    used = set(session.by_id)
    new_id = uuid.uuid4().hex[:8]
    while new_id in used:
        new_id = uuid.uuid4().hex[:8]
    entry: dict[str, Any] = {
        "type": "label",
        "id": new_id,
        "parentId": parent_id if parent_id is not None else session.leaf_id,
        "timestamp": _now_iso(),
        "targetId": target_id,
    }
    text = label.strip() if isinstance(label, str) else ""
    if text:
        entry["label"] = text
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
    # Never glue our line onto a partial last line the agent may still be writing.
    payload = (b"\n" if data and not data.endswith(b"\n") else b"") + line.encode("utf-8")
    written = os.write(fd, payload)
    if written != len(payload):
        raise SessionFileError(f"short write ({written} of {len(payload)} bytes)", path=name)
    os.fsync(fd)
    return entry
