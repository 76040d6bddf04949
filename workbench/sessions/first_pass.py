"""A big session file's first pass, kept between opens: where its lines start and its big tool results' heads.

Reading a 1 GB session spends most of its time on a pass that touches every byte: it finds the line
starts and checks each big tool result's line with simdjson to keep its head (``records``). That pass
depends only on the file's bytes, so ``PassCache`` keeps its result in the user's cache folder, keyed
by what says the file is the same file with the same bytes (device, inode, size, modification and
change times; the change time moves on every write and cannot be set back by a user). Reopening the
file then reads only its small lines (docs/large-sessions.md, "The first pass, kept").

A cached pass is never trusted further than the loader trusts a pass of its own: every line the parse
reads is still checked to end where the pass said, and a record read back is still checked against
its head (``LineReader``). The cache never holds a byte of the session beyond those heads, is written
atomically and pruned to its most recently used passes; a cache file that does not read back whole is
ignored (and replaced on the next save). The session file itself is only ever read.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import time
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

# Bumped whenever what a pass holds, or how a head is made, changes: older files are then misses.
_FORMAT = b"workbench-first-pass 1\n"
# Passes kept (the most recently used); a 1 GB session's is about 7 MB.
KEEP = 16
# The environment variable that moves the cache (a folder) or switches it off ("off").
ENV = "WORKBENCH_INDEX_CACHE"
# A file written to within this many seconds is likely still being written (an agent appends to its
# session): its pass, which the next write makes useless, is not kept.
SETTLED_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class FirstPass:
    """What the loader's first pass over a file found: ``offsets`` (``FileLines.offsets``: each line's
    start, then the file's size + 1), ``heads`` (line index → the skim's head, or None where the skim
    refused the line) and ``last``, the file's last byte (empty for an empty file)."""

    offsets: array[int]
    heads: Mapping[int, dict[str, Any] | None]
    last: bytes


def identity(fd: int) -> tuple[int, ...]:
    """What says an open file still has the bytes it had: another value means it may not."""
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class PassCache:
    """First passes kept in ``folder`` (created with the first save, readable by its owner only)."""

    def __init__(self, folder: str | os.PathLike[str], keep: int = KEEP) -> None:
        self.folder = Path(folder)
        self.keep = keep

    @classmethod
    def default(cls) -> PassCache | None:
        """The user's cache: ``$WORKBENCH_INDEX_CACHE`` (``off``: none), else
        ``$XDG_CACHE_HOME/ttsr-workbench/first-pass`` (``~/.cache`` without it)."""
        chosen = os.environ.get(ENV, "").strip()
        if chosen.lower() == "off":
            return None
        if chosen:
            return cls(chosen)
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return cls(Path(base) / "ttsr-workbench" / "first-pass")

    @staticmethod
    def key(fd: int, size: int, window: int, least: int) -> str:
        """The name of the pass over the first ``size`` bytes of the open file ``fd``, made with
        ``window``-byte reads and heads of lines from ``least`` bytes."""
        facts = (*identity(fd), size, window, least)
        return hashlib.sha256(_FORMAT + repr(facts).encode()).hexdigest()

    @staticmethod
    def settled(fd: int, size: int) -> bool:
        """Whether a pass over the first ``size`` bytes of the open file ``fd`` is worth keeping: they
        are the whole file, and it was not written to for ``SETTLED_SECONDS``."""
        st = os.fstat(fd)
        return st.st_size == size and time.time() - st.st_mtime >= SETTLED_SECONDS

    def has(self, key: str) -> bool:
        """Whether a pass is saved under ``key`` (not read: ``load`` checks that it reads back whole)."""
        return (self.folder / f"{key}.pass").is_file()

    def load(self, key: str) -> FirstPass | None:
        """The pass saved under ``key``, or None (none saved, or one that does not read back whole)."""
        target = self.folder / f"{key}.pass"
        try:
            with open(target, "rb") as fh:
                found = _read(fh, key)
        except (OSError, ValueError, struct.error, orjson.JSONDecodeError):
            return None
        if found is not None:
            try:
                os.utime(target)  # most recently used: pruned last
            except OSError:
                pass
        return found

    def save(self, key: str, found: FirstPass) -> bool:
        """Keep ``found`` under ``key`` (written whole or not at all), then prune; False when the folder
        cannot be written (the cache is an aid: a load never fails for it)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, partial = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".partial")
            try:
                with os.fdopen(fd, "wb") as fh:
                    _write(fh, key, found)
                os.replace(partial, self.folder / f"{key}.pass")
            except BaseException:
                os.unlink(partial)
                raise
        except OSError:
            return False
        self._prune()
        return True

    def _prune(self) -> None:
        try:
            kept = sorted(self.folder.glob("*.pass"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for old in kept[self.keep:]:
                old.unlink(missing_ok=True)
        except OSError:  # another process pruned the same file meanwhile
            pass


def _write(fh: BinaryIO, key: str, found: FirstPass) -> None:
    lines = sorted(found.heads)
    heads = orjson.dumps([found.heads[k] for k in lines])
    offsets = found.offsets.tobytes()
    picks = array("q", lines).tobytes()
    fh.write(_FORMAT + key.encode() + b"\n")
    fh.write(struct.pack("<qqqB", len(offsets), len(picks), len(heads), len(found.last)) + found.last)
    for part in (offsets, picks, heads):  # (the arrays in this machine's byte order: the cache is its own)
        fh.write(part)


def _read(fh: BinaryIO, key: str) -> FirstPass | None:
    if fh.readline() != _FORMAT or fh.readline() != key.encode() + b"\n":
        return None
    n_offsets, n_picks, n_heads, n_last = struct.unpack("<qqqB", fh.read(25))
    last = fh.read(n_last)
    offsets, picks = array("q"), array("q")
    offsets.frombytes(fh.read(n_offsets))
    picks.frombytes(fh.read(n_picks))
    heads = orjson.loads(fh.read(n_heads))
    if (len(offsets) * 8 != n_offsets or len(picks) * 8 != n_picks or fh.read(1) or len(last) != n_last
            or type(heads) is not list or len(heads) != len(picks) or len(offsets) < 1):
        return None
    if any(type(h) is not dict and h is not None for h in heads) or not all(0 <= k < len(offsets) - 1 for k in picks):
        return None
    return FirstPass(offsets, dict(zip(picks, heads)), last)
