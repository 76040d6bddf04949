"""The Python side of ingest: which files to read, what an ingest reports, and the rows of parsed sessions.

``workbench.store.db`` owns DuckDB and every line of SQL; this module holds what needs neither:

* telling a changed file from an unchanged one
  (``FileStat.of``: size, mtime and a fingerprint of both ends);
* picking the files DuckDB may read itself (``has_v3_header``) and grouping them into reads of a
  bounded size (``size_batches``);
* the parser road: ``RowBatch.add_file`` reads one file with ``workbench.sessions`` and turns the
  result into the same ``entries`` / ``sessions`` / ``ingest_errors`` rows the DuckDB road writes;
* ``IngestError`` and ``IngestSummary``, what ``Store.ingest`` returns.
"""

from __future__ import annotations

import builtins  # RowBatch has a field named `bytes`, which shadows the type in its body
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from workbench.errors import SessionFileError
from workbench.sessions import parse_session_bytes
from workbench.store.search_text import json_str, search_text

if TYPE_CHECKING:
    from workbench.sessions.entries import Session

__all__ = [
    "FileStat",
    "IngestError",
    "IngestMode",
    "IngestSummary",
    "RowBatch",
    "has_v3_header",
    "size_batches",
    "to_columns",
]


IngestMode = Literal["fast", "python", "failed"]
"""How a file was read: by DuckDB, by the session parser, or not at all (not a session)."""

_FINGERPRINT_SPAN = 64 << 10
_HEADER_MAX = 1 << 20  # the header line is read up to this many bytes


@dataclass(frozen=True, slots=True)
class IngestError:
    """A problem found in a file while ingesting it (the file itself is never changed)."""

    path: str
    line: int | None
    kind: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.kind}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The error as a row of the ``ingest_errors`` table (and of ``--json`` output)."""
        return {"path": self.path, "line": self.line, "kind": self.kind, "message": self.message}


@dataclass(slots=True)
class IngestSummary:
    """What one ``Store.ingest`` call did."""

    files: int = 0  # files looked at
    skipped_files: int = 0  # unchanged since the last ingest
    sessions: int = 0
    entries: int = 0
    bytes: int = 0  # bytes of the files actually read
    seconds: float = 0.0
    fallback_files: int = 0  # read by workbench.sessions instead of DuckDB
    errors: list[IngestError] = field(default_factory=list)
    parquet: str | None = None
    paths: list[str] = field(default_factory=list)  # the files looked at (resolved), in order

    @property
    def mb_per_s(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files, "skipped_files": self.skipped_files, "sessions": self.sessions,
            "entries": self.entries, "bytes": self.bytes, "seconds": round(self.seconds, 3),
            "mb_per_s": round(self.mb_per_s, 1), "fallback_files": self.fallback_files,
            "errors": [e.to_dict() for e in self.errors], "parquet": self.parquet,
        }


@dataclass(frozen=True, slots=True)
class FileStat:
    """A file as the ``files`` table remembers it: an equal fingerprint means "skip, unchanged"."""

    path: str
    size: int
    mtime: float
    fingerprint: str

    @classmethod
    def of(cls, path: Path) -> FileStat:
        st = path.stat()
        return cls(str(path), st.st_size, st.st_mtime, _fingerprint(path, st.st_size, st.st_mtime_ns))


def _fingerprint(path: Path, size: int, mtime_ns: int) -> str:
    """Size, mtime and a hash of the first and last 64 KiB: cheap, and enough to see a rewrite or append."""
    h = hashlib.blake2b(f"{size}:{mtime_ns}".encode(), digest_size=16)
    with open(path, "rb") as fh:
        h.update(fh.read(_FINGERPRINT_SPAN))
        if size > _FINGERPRINT_SPAN:
            fh.seek(max(_FINGERPRINT_SPAN, size - _FINGERPRINT_SPAN))
            h.update(fh.read(_FINGERPRINT_SPAN))
    return h.hexdigest()


def has_v3_header(path: str) -> bool:
    """True when the first line is a v3+ session header: the only shape the DuckDB road takes."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(_HEADER_MAX)
        head = json.loads(first)
    except (OSError, ValueError):
        return False
    if not isinstance(head, dict) or not first.startswith(b"{"):
        return False
    version = head.get("version")
    return (head.get("type") == "session" and isinstance(head.get("id"), str)
            and isinstance(version, int) and not isinstance(version, bool) and version >= 3)


def size_batches(stats: Iterable[FileStat], limit: int) -> Iterator[list[FileStat]]:
    """Consecutive files grouped until a group holds at least ``limit`` bytes (the last may hold less)."""
    batch: list[FileStat] = []
    size = 0
    for s in stats:
        batch.append(s)
        size += s.size
        if size >= limit:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def to_columns(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> dict[str, Any]:
    """Dict rows as one object array per column: DuckDB scans a dict of numpy arrays as a table."""
    import numpy as np  # a dependency of duckdb's Python scans, so only loaded when rows are written

    out: dict[str, Any] = {}
    for col in columns:
        arr = np.empty(len(rows), dtype=object)
        arr[:] = [r.get(col) for r in rows]
        out[col] = arr
    return out


@dataclass(slots=True)
class RowBatch:
    """Rows of parser-road files waiting for one bulk write (keys are the store's column names)."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    files: list[tuple[FileStat, str | None, IngestMode]] = field(default_factory=list)
    bytes: int = 0

    def add_file(self, stat: FileStat, summary: IngestSummary) -> None:
        """Read one file with the session parser, add its rows, and count it in ``summary``.

        For files that need the parser (migrations, broken lines, odd structure). A file that is
        not a session, or cannot be read, leaves only error rows and a ``failed`` files row.
        """
        summary.fallback_files += 1
        errors: list[IngestError] = []
        session = None
        try:
            with open(stat.path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            errors.append(IngestError(stat.path, None, "unreadable", exc.strerror or str(exc)))
        else:
            try:
                session = parse_session_bytes(data, path=stat.path)
            except SessionFileError as exc:
                errors.append(IngestError(stat.path, exc.line, "not-a-session", exc.message))
        if session is not None:
            errors.extend(IngestError(stat.path, d.line, d.kind or "", d.message) for d in session.diagnostics
                          if not d.is_notice)  # notices (unknown type, newer version) are not load errors
            self._add_session(session, data, len(errors))
            summary.sessions += 1
            summary.entries += len(session.entries)
            self.files.append((stat, session.id, "python"))
        else:
            self.files.append((stat, None, "failed"))
        self.errors.extend(e.to_dict() for e in errors)
        self.bytes += stat.size
        summary.errors.extend(errors)

    def _add_session(self, session: Session, data: builtins.bytes, error_count: int) -> None:
        """The entries and session rows of one parsed session (the Python twin of the DuckDB road's SQL)."""
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]  # the parser drops a BOM before numbering lines; so do we
        lines = data.split(b"\n")
        labels: dict[str, Any] = {}
        for e in session.entries:  # labels (docs/flavours.md): global, file order, last write wins, falsy clears
            target = e.get("targetId")
            if e.type == "label" and isinstance(target, str):
                if e.get("label"):
                    labels[target] = e.get("label")
                else:
                    labels.pop(target, None)
        rows = []
        parents: set[str] = set()
        for e in session.entries:
            obj = e.obj
            if e.parent_id is not None and e.parent_id != e.id and e.parent_id in session.by_id:
                parents.add(e.parent_id)
            raw = lines[e.line - 1].decode("utf-8", errors="replace").strip() if 0 < e.line <= len(lines) else ""
            if not raw.startswith("{"):
                raw = json.dumps(e.raw, ensure_ascii=False)
            label = labels.get(e.id)
            rows.append({
                "session_id": session.id, "path": session.path, "id": e.id, "parent_id": e.parent_id,
                "type": e.type, "role": e.role, "custom_type": json_str(obj.get("customType")),
                "timestamp": json_str(obj.get("timestamp")), "label": json_str(label) if label else None,
                "text": search_text(obj), "line": e.line, "raw": raw,
            })
        self.entries.extend(rows)
        injections = sum(1 for r in rows if r["type"] == "ttsr_injection"
                         or (r["type"] == "custom_message" and r["custom_type"] == "ttsr-injection"))
        version = session.header.get("version") if session.version >= 3 else session.version
        self.sessions.append({
            "session_id": session.id, "path": session.path, "cwd": session.cwd,
            "title": session.title or session.name, "version": version if isinstance(version, int) else None,
            "created": json_str(session.timestamp), "entry_count": len(rows),
            "branch_count": sum(1 for e in session.entries if e.id not in parents),
            "label_count": sum(1 for r in rows if r["label"]), "injection_count": injections,
            "error_count": error_count,
        })
