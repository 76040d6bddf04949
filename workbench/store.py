"""The DuckDB store: session files loaded into tables, queried for the CLI and the app.

This is the only module that imports ``duckdb`` or holds SQL. Tables:

* ``files``          one row per ingested file: size, mtime, fingerprint, when, how (``fast``/``python``/``failed``)
* ``sessions``       one row per session file: header fields, title and counts
* ``entries``        one row per entry: typed columns, a search text and the raw JSON line verbatim
* ``ingest_errors``  every problem found while reading, with path and 1-based line

Ingest has two roads. Well-formed v3 files (the bulk of any archive) are read by DuckDB itself: the
lines come in through ``read_csv`` with a delimiter JSON text cannot hold (so nothing is split and no
line is parsed twice), and one multi-path ``json_extract_string`` per line, wrapped in ``TRY``, both
types the columns and flags the lines that are not JSON. That keeps the load near DuckDB's own
``read_json_objects`` speed (``benchmarks/ingest.py``). ``raw`` is a VARCHAR holding the line exactly
as written (DuckDB's JSON functions take it as is; a JSON-typed column would validate it again).

A file that needs anything else (a v1/v2 migration, an omp title slot, a malformed, blank or CRLF
line, bytes that are not UTF-8, duplicate ids, a parent that is not an earlier entry) goes through
``workbench.sessions``, the parser the rest of the workbench uses; its rows reach DuckDB as columnar
batches. Both roads produce the same rows (tests hold them to it). Nothing is inserted row by row:
DuckDB's ``executemany`` costs about 1 ms a row (env-notes §5).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import wraps
from pathlib import Path
from typing import Any, Literal

import duckdb

from workbench.errors import NotFoundError, SessionFileError, StoreError

__all__ = [
    "IngestError",
    "IngestSummary",
    "Progress",
    "Store",
    "iter_session_files",
]

Progress = Callable[[int, int, str], None]
"""``progress(done, total, path)``: called after each file of an ingest."""

IngestMode = Literal["fast", "python", "failed"]

_BATCH_BYTES = 256 << 20  # per DuckDB read; bounds memory on a large archive
_FINGERPRINT_SPAN = 64 << 10
_MAX_OBJECT = 1 << 30  # one JSON line may hold a huge tool output

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path VARCHAR, size BIGINT, mtime DOUBLE, fingerprint VARCHAR, ingested_at TIMESTAMP,
    session_id VARCHAR, mode VARCHAR
);
CREATE TABLE IF NOT EXISTS sessions (
    session_id VARCHAR, path VARCHAR, cwd VARCHAR, title VARCHAR, version INTEGER, created VARCHAR,
    entry_count BIGINT, branch_count BIGINT, label_count BIGINT, injection_count BIGINT, error_count BIGINT
);
CREATE TABLE IF NOT EXISTS entries (
    session_id VARCHAR, path VARCHAR, id VARCHAR, parent_id VARCHAR, type VARCHAR, role VARCHAR,
    custom_type VARCHAR, timestamp VARCHAR, label VARCHAR, text VARCHAR, line INTEGER, raw VARCHAR
);
CREATE TABLE IF NOT EXISTS ingest_errors (path VARCHAR, line INTEGER, kind VARCHAR, message VARCHAR);
"""
_CORE_TABLES = frozenset({"files", "sessions", "entries", "ingest_errors"})
_ENTRY_COLUMNS = ("session_id", "path", "id", "parent_id", "type", "role", "custom_type", "timestamp",
                  "label", "text", "line", "raw")
_SESSION_COLUMNS = ("session_id", "path", "cwd", "title", "version", "created", "entry_count", "branch_count",
                    "label_count", "injection_count", "error_count")

# The JSON paths the fast road pulls out of every line in one parse (rarer fields are read from
# ``raw`` only for the rows that need them); _F names their 1-based slots. The text of the first four
# content blocks comes in the same parse; a fifth block (rare) sends the row to a wildcard read.
_PATHS = ("$.type", "$.id", "$.parentId", "$.timestamp", "$.message.role", "$.customType",
          "$.message.content[0].text", "$.message.content[1].text", "$.message.content[2].text",
          "$.message.content[3].text", "$.message.content[4].type")
_F = {name: i + 1 for i, name in enumerate(
    ("type", "id", "parent", "ts", "role", "custom", "b0", "b1", "b2", "b3", "more"))}
_CUT = 200  # search text keeps the first 200 characters of a content, like the tree's search (spec §8.9)


def _f(name: str, alias: str = "s") -> str:
    return f"{alias}.f[{_F[name]}]"


def _raw(path: str) -> str:
    return f"json_extract_string(s.raw, '{path}')"


# Search text, after the tree's searchable text (spec §8.9): for a message the text blocks of its
# content joined and cut to 200 characters (tool output included; thinking and tool calls are not;
# the role has a column of its own), or a bash execution's command; for other entries their kind in
# words and what a person would look for in them (summaries in full). ``_search_text`` is the same
# rule in Python for the fallback road; a test holds the two together.
_FIRST_BLOCKS = " ".join(f"left({_f(b)}, {_CUT})," for b in ("b0", "b1", "b2", "b3")).rstrip(",")
_TEXT_SQL = f"""CASE {_f('type')}
    WHEN 'message' THEN CASE
        WHEN {_f('more')} IS NOT NULL THEN CASE WHEN len({_raw('$.message.content[*].text')}) > 0
             THEN left(array_to_string({_raw('$.message.content[*].text')}, ''), {_CUT}) END
        WHEN coalesce({_f('b0')}, {_f('b1')}, {_f('b2')}, {_f('b3')}) IS NOT NULL
             THEN left(concat({_FIRST_BLOCKS}), {_CUT})
        WHEN json_type(s.raw, '$.message.content') = 'VARCHAR' THEN left({_raw('$.message.content')}, {_CUT})
        WHEN {_f('role')} = 'bashExecution' THEN {_raw('$.message.command')} END
    WHEN 'custom_message' THEN concat_ws(' ', {_f('custom')},
        CASE json_type(s.raw, '$.content')
             WHEN 'VARCHAR' THEN {_raw('$.content')}
             WHEN 'ARRAY' THEN CASE WHEN len({_raw('$.content[*].text')}) > 0
                  THEN left(array_to_string({_raw('$.content[*].text')}, ''), {_CUT}) END END)
    WHEN 'compaction' THEN concat_ws(' ', 'compaction', {_raw('$.summary')})
    WHEN 'branch_summary' THEN concat_ws(' ', 'branch summary', {_raw('$.summary')})
    WHEN 'model_change' THEN concat_ws(' ', 'model', coalesce({_raw('$.model')}, {_raw('$.modelId')}))
    WHEN 'thinking_level_change' THEN concat_ws(' ', 'thinking', {_raw('$.thinkingLevel')})
    WHEN 'custom' THEN concat_ws(' ', 'custom', {_f('custom')})
    WHEN 'label' THEN concat_ws(' ', 'label', {_raw('$.label')})
    WHEN 'session_info' THEN concat_ws(' ', 'session info', {_raw('$.name')})
    WHEN 'ttsr_injection' THEN concat_ws(' ', 'ttsr injection',
        CASE WHEN len({_raw('$.injectedRules[*]')}) > 0 THEN array_to_string({_raw('$.injectedRules[*]')}, ' ') END)
    ELSE replace({_f('type')}, '_', ' ') END"""

_INJECTION_WHERE = "(type = 'ttsr_injection' OR (type = 'custom_message' AND custom_type = 'ttsr-injection'))"


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

    @property
    def mb_per_s(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files, "skipped_files": self.skipped_files, "sessions": self.sessions,
            "entries": self.entries, "bytes": self.bytes, "seconds": round(self.seconds, 3),
            "mb_per_s": round(self.mb_per_s, 1), "fallback_files": self.fallback_files,
            "errors": [{"path": e.path, "line": e.line, "kind": e.kind, "message": e.message} for e in self.errors],
            "parquet": self.parquet,
        }


@dataclass(frozen=True, slots=True)
class _FileStat:
    path: str
    size: int
    mtime: float
    fingerprint: str


def iter_session_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Files named directly, and every ``*.jsonl`` under named folders (sorted, recursive)."""
    for p in paths:
        path = Path(p).expanduser()
        if path.is_dir():
            yield from sorted(q for q in path.rglob("*.jsonl") if q.is_file())
        elif path.exists():
            yield path
        else:
            raise NotFoundError(f"{path}: no such file or folder")


def _fingerprint(path: Path, size: int, mtime_ns: int) -> str:
    """Size, mtime and a hash of the first and last 64 KiB: cheap, and enough to see a rewrite or append."""
    h = hashlib.blake2b(f"{size}:{mtime_ns}".encode(), digest_size=16)
    with open(path, "rb") as fh:
        h.update(fh.read(_FINGERPRINT_SPAN))
        if size > _FINGERPRINT_SPAN:
            fh.seek(max(_FINGERPRINT_SPAN, size - _FINGERPRINT_SPAN))
            h.update(fh.read(_FINGERPRINT_SPAN))
    return h.hexdigest()


def _fast_header(path: str) -> bool:
    """True when the first line is a v3+ session header: the only shape the DuckDB road takes."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 20)
        head = json.loads(first)
    except (OSError, ValueError):
        return False
    version = head.get("version") if isinstance(head, dict) else None
    return (
        isinstance(head, dict) and head.get("type") == "session" and isinstance(head.get("id"), str)
        and isinstance(version, int) and not isinstance(version, bool) and version >= 3
        and first.startswith(b"{")
    )


def _json_str(value: Any) -> str | None:
    """A JSON value as DuckDB's ``json_extract_string`` renders it (strings bare, the rest compact JSON)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _content_text(content: Any, *, cut_string: bool = True) -> str | None:
    if isinstance(content, list):
        blocks = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "".join(blocks)[:_CUT] if blocks else None
    if isinstance(content, str):
        return content[:_CUT] if cut_string else content
    return None


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p is not None)


def _search_text(obj: Mapping[str, Any]) -> str | None:
    """The search text of one entry: the Python twin of ``_TEXT_SQL``."""
    kind = _json_str(obj.get("type"))
    if kind == "message":
        msg = obj.get("message")
        msg = msg if isinstance(msg, dict) else {}
        text = _content_text(msg.get("content"))
        if text is None and msg.get("role") == "bashExecution":
            text = _json_str(msg.get("command"))
        return text
    if kind == "custom_message":
        return _join(_json_str(obj.get("customType")), _content_text(obj.get("content"), cut_string=False))
    simple = {"compaction": ("compaction", "summary"), "branch_summary": ("branch summary", "summary"),
              "thinking_level_change": ("thinking", "thinkingLevel"), "custom": ("custom", "customType"),
              "label": ("label", "label"), "session_info": ("session info", "name")}
    if kind in simple:
        word, key = simple[kind]
        return _join(word, _json_str(obj.get(key)))
    if kind == "ttsr_injection":
        rules = obj.get("injectedRules")
        names = [_json_str(r) for r in rules if r is not None] if isinstance(rules, list) else []
        return _join("ttsr injection", " ".join(names) if names else None)
    if kind == "model_change":
        model = _json_str(obj.get("model"))
        return _join("model", model if model is not None else _json_str(obj.get("modelId")))
    return kind.replace("_", " ") if kind is not None else None


def _rows_to_columns(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> dict[str, Any]:
    import numpy as np  # a dependency of duckdb's Python scans; numpy arrays register as a table

    out: dict[str, Any] = {}
    for col in columns:
        arr = np.empty(len(rows), dtype=object)
        arr[:] = [r.get(col) for r in rows]
        out[col] = arr
    return out


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """One call at a time per store: a DuckDB connection is not to be shared by threads at once
    (the app's callbacks run on several)."""

    @wraps(method)
    def call(self: Store, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return call


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_table(name: str) -> str:
    if not _IDENT.match(name):
        raise StoreError(f"bad table name {name!r}: use letters, digits and _")
    return name


class Store:
    """A DuckDB database of session files: ``Store()`` in memory, ``Store(path)`` on disk.

    One process owns a DB file: opening a file another process holds raises ``StoreError``.
    Use as a context manager or call ``close()``.
    """

    def __init__(self, db: str | os.PathLike[str] = ":memory:", *, read_only: bool = False) -> None:
        self.db = os.fspath(db)
        self._lock = threading.RLock()
        try:
            self._con = duckdb.connect(self.db, read_only=read_only)
        except duckdb.Error as exc:
            text = str(exc)
            if "lock" in text.lower():
                holder = re.search(r"PID (\d+)", text)
                who = f" (PID {holder.group(1)})" if holder else ""
                raise StoreError(f"{self.db}: database is in use by another process{who}; "
                                 "one process owns a DB file") from None
            raise StoreError(f"{self.db}: cannot open the database: {text}") from None
        if not read_only:
            self._con.execute(_SCHEMA)
        self._con.execute("SET enable_progress_bar = false")

    # -- lifetime -------------------------------------------------------------------------------------
    @_locked
    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ---------------------------------------------------------------------------------------
    @_locked
    def ingest(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        progress: Progress | None = None,
        parquet: str | os.PathLike[str] | None = None,
        _fast: bool = True,
    ) -> IngestSummary:
        """Load session files and folders (``*.jsonl`` recursively); unchanged files are skipped.

        A changed file (size, mtime or fingerprint differ) has its old rows replaced. Problems are
        recorded in ``ingest_errors`` and returned in the summary; nothing raises for bad content.
        ``parquet``: also write the tables as Parquet under that folder (see ``export_parquet``).
        """
        t0 = time.perf_counter()
        summary = IngestSummary()
        files = list(dict.fromkeys(p.resolve() for p in iter_session_files(paths)))
        summary.files = len(files)
        known = {row[0]: row[1] for row in self._con.execute("SELECT path, fingerprint FROM files").fetchall()}
        todo: list[_FileStat] = []
        done = 0
        for p in files:
            st = p.stat()
            stat = _FileStat(str(p), st.st_size, st.st_mtime, _fingerprint(p, st.st_size, st.st_mtime_ns))
            if known.get(stat.path) == stat.fingerprint:
                summary.skipped_files += 1
                done += 1
                if progress:
                    progress(done, len(files), stat.path)
            else:
                todo.append(stat)
        # Also paths the files table does not know: an interrupted ingest may have left rows behind.
        self._forget([s.path for s in todo])
        fast = [s for s in todo if _fast and _fast_header(s.path)]
        fast_paths = {s.path for s in fast}
        slow = [s for s in todo if s.path not in fast_paths]
        batches = list(_batches(fast))
        while batches:
            batch = batches.pop(0)
            try:
                rejected = self._ingest_fast(batch, summary)
            except _ReadFailed:
                if len(batch) == 1:
                    rejected = batch  # the Python road will say what is wrong with it, per line
                else:  # one bad file must not send a whole batch down the slow road: split it
                    half = len(batch) // 2
                    batches[:0] = [batch[:half], batch[half:]]
                    continue
            slow.extend(rejected)
            for s in batch:
                if s not in rejected:
                    done += 1
                    if progress:
                        progress(done, len(files), s.path)
        pending = _Pending()
        for s in slow:
            self._ingest_python(s, summary, pending)
            if pending.bytes >= _BATCH_BYTES // 4:
                self._flush(pending)
                pending = _Pending()
            done += 1
            if progress:
                progress(done, len(files), s.path)
        self._flush(pending)
        summary.bytes = sum(s.size for s in todo)
        if parquet is not None:
            summary.parquet = self.export_parquet(parquet)
        summary.seconds = time.perf_counter() - t0
        return summary

    def _forget(self, paths: list[str]) -> None:
        if not paths:
            return
        for table in ("entries", "sessions", "ingest_errors", "files"):
            self._con.execute(f"DELETE FROM {table} WHERE path IN (SELECT unnest(?::VARCHAR[]))", [paths])

    def _ingest_fast(self, batch: list[_FileStat], summary: IngestSummary) -> list[_FileStat]:
        """Read a batch with DuckDB; returns the files that must go the Python road instead.

        One pass appends every line of the batch to ``entries`` in file order (an INSERT keeps
        insertion order, so rowids follow the lines of each file). The new rows are told apart by
        ``session_id IS NULL``, and ``line`` holds each line's byte length until the checks below
        accept a file (lengths + newlines = file size: no blank line hides between the objects) and
        number its lines from rowids; a file with a blank, malformed or non-object line is rejected.
        """
        # No explicit transaction: measured, it costs more than it saves (the commit re-merges the
        # batch). Rows a crash could leave half-done are recognisable (no session id) and go first.
        con = self._con
        con.execute("DELETE FROM entries WHERE session_id IS NULL")
        return self._ingest_fast_sql(batch, summary)

    def _ingest_fast_sql(self, batch: list[_FileStat], summary: IngestSummary) -> list[_FileStat]:
        con = self._con
        paths = [s.path for s in batch]
        try:
            con.execute(
                f"""INSERT INTO entries (path, id, parent_id, type, role, custom_type, timestamp, text, line, raw)
                SELECT s.path, {_f('id')}, {_f('parent')}, {_f('type')},
                       CASE WHEN {_f('type')} = 'message' THEN {_f('role')} END, {_f('custom')}, {_f('ts')},
                       {_TEXT_SQL}, strlen(s.raw::VARCHAR), s.raw
                FROM (SELECT filename AS path, TRY(json_extract_string(line, {list(_PATHS)!r})) AS f, line AS raw
                      FROM read_csv(?, columns={{'line': 'VARCHAR'}}, header=false, auto_detect=false,
                                    delim=chr(1), quote='', escape='', filename=true, ignore_errors=true,
                                    max_line_size={_MAX_OBJECT})) s""",
                [paths],
            )
        except duckdb.Error as exc:
            raise _ReadFailed(str(exc)) from None
        # From here on rowids must not move under us (a checkpoint may compact a table), so the
        # numbering and the updates run in one transaction.
        con.begin()
        try:
            rejected = self._number_and_index(batch, summary)
        except BaseException:
            con.rollback()
            raise
        con.commit()
        return rejected

    def _number_and_index(self, batch: list[_FileStat], summary: IngestSummary) -> list[_FileStat]:
        con = self._con
        paths = [s.path for s in batch]
        sizes = "SELECT unnest(?::VARCHAR[]) AS path, unnest(?::BIGINT[]) AS size"
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE _files AS
            WITH new AS (SELECT rowid AS r, path, id, parent_id, type, line AS len FROM entries WHERE session_id IS NULL),
            st AS (
                SELECT path, min(r) AS first, count(*) AS n, count(len) AS good, sum(len) AS bytes,
                       count(*) FILTER (WHERE type IS NULL) AS untyped, count(DISTINCT id) AS ids
                FROM new GROUP BY path),
            bad_parent AS (
                SELECT DISTINCT c.path FROM new c JOIN st ON st.path = c.path
                LEFT JOIN new p ON p.path = c.path AND p.id = c.parent_id AND p.r < c.r AND p.r > st.first
                WHERE c.r > st.first AND c.parent_id IS NOT NULL AND p.r IS NULL)
            SELECT st.path, st.first, st.n, h.id AS session_id,
                   TRY(json_extract_string(e.raw, ['$.cwd', '$.title', '$.version', '$.timestamp'])) AS head
            FROM st JOIN ({sizes}) z ON z.path = st.path JOIN new h ON h.r = st.first
            JOIN entries e ON e.rowid = st.first
            WHERE st.n = st.good AND st.untyped = 0 AND st.ids = st.n
              AND (st.bytes + st.n = z.size OR st.bytes + st.n - 1 = z.size)
              AND h.type = 'session' AND TRY_CAST(head[3] AS INTEGER) >= 3
              AND st.path NOT IN (SELECT path FROM bad_parent)""",
            [paths, [s.size for s in batch]],
        )
        con.execute(
            """UPDATE entries SET line = (entries.rowid - g.first + 1)::INTEGER, session_id = g.session_id
            FROM _files g WHERE entries.path = g.path AND entries.session_id IS NULL"""
        )
        # Rows of rejected files, and the header lines of accepted ones (a header is not an entry).
        con.execute("DELETE FROM entries WHERE session_id IS NULL OR (line = 1 AND path IN (SELECT path FROM _files))")
        # spec §4.6: labels resolve globally in file order, last write wins, a falsy label clears.
        con.execute(
            """UPDATE entries SET label = l.label
            FROM (SELECT path, json_extract_string(raw, '$.targetId') AS target,
                         arg_max_null(json_extract_string(raw, '$.label'), line) AS label
                  FROM entries WHERE type = 'label' AND path IN (SELECT path FROM _files) GROUP BY ALL) l
            WHERE entries.path = l.path AND entries.id = l.target AND l.label <> ''"""
        )
        con.execute(
            f"""INSERT INTO sessions
            WITH agg AS (
                SELECT path, count(*) AS n, count(label) AS labels,
                       count(*) FILTER (WHERE {_INJECTION_WHERE}) AS injections,
                       count(DISTINCT parent_id) FILTER (WHERE parent_id IS NOT NULL AND parent_id <> id) AS parents
                FROM entries WHERE path IN (SELECT path FROM _files) GROUP BY path),
            -- pi's session name: the last session_info with a truthy name (spec §5)
            names AS (
                SELECT path, arg_max(name, line) AS name
                FROM (SELECT path, line, json_extract_string(raw, '$.name') AS name FROM entries
                      WHERE type = 'session_info' AND path IN (SELECT path FROM _files))
                WHERE name <> '' GROUP BY path)
            SELECT g.session_id, g.path, g.head[1], coalesce(nullif(g.head[2], ''), names.name),
                   TRY_CAST(g.head[3] AS INTEGER), g.head[4],
                   coalesce(agg.n, 0), coalesce(agg.n - agg.parents, 0), coalesce(agg.labels, 0),
                   coalesce(agg.injections, 0), 0
            FROM _files g LEFT JOIN agg ON agg.path = g.path LEFT JOIN names ON names.path = g.path"""
        )
        good = {row[0] for row in con.execute("SELECT path FROM _files").fetchall()}
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        ok = [s for s in batch if s.path in good]
        self._insert_files(ok, "fast", now)
        summary.sessions += len(ok)
        summary.entries += int(con.execute("SELECT coalesce(sum(n - 1), 0) FROM _files").fetchone()[0])
        con.execute("DROP TABLE IF EXISTS _files")
        return [s for s in batch if s.path not in good]

    def _insert_files(self, stats: list[_FileStat], mode: IngestMode, now: datetime,
                      session_ids: list[str | None] | None = None) -> None:
        if not stats:
            return
        if session_ids is None:
            sids = dict(self._con.execute(
                "SELECT path, session_id FROM sessions WHERE path IN (SELECT unnest(?::VARCHAR[]))",
                [[s.path for s in stats]]).fetchall())
            session_ids = [sids.get(s.path) for s in stats]
        rows = [{"path": s.path, "size": s.size, "mtime": s.mtime, "fingerprint": s.fingerprint,
                 "ingested_at": now, "session_id": sid, "mode": mode} for s, sid in zip(stats, session_ids)]
        self._append("files", rows, ("path", "size", "mtime", "fingerprint", "ingested_at", "session_id", "mode"))

    def _append(self, table: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
                casts: Mapping[str, str] | None = None) -> None:
        """Bulk insert Python rows: one columnar batch, one ``INSERT ... SELECT``."""
        if not rows:
            return
        cols = _rows_to_columns(rows, columns)
        name = f"_batch_{id(cols)}"
        self._con.register(name, cols)
        try:
            select = ", ".join(f"{c}::{(casts or {})[c]}" if casts and c in casts else c for c in columns)
            self._con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM {name}")
        finally:
            self._con.unregister(name)

    def _ingest_python(self, stat: _FileStat, summary: IngestSummary, pending: _Pending) -> None:
        """The road for files that need the session parser (migrations, broken lines, odd structure)."""
        from workbench.sessions.loader import parse_session_bytes

        summary.fallback_files += 1
        errors: list[IngestError] = []
        try:
            with open(stat.path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            errors.append(IngestError(stat.path, None, "unreadable", exc.strerror or str(exc)))
            data = None
        session = None
        if data is not None:
            try:
                session = parse_session_bytes(data, path=stat.path)
            except SessionFileError as exc:
                errors.append(IngestError(stat.path, exc.line, "not-a-session", exc.message))
        if session is not None:
            errors.extend(IngestError(stat.path, d.line, d.kind, d.message) for d in session.diagnostics)
            _session_rows(session, data or b"", len(errors), pending)
            summary.sessions += 1
            summary.entries += len(session.entries)
        pending.errors.extend({"path": e.path, "line": e.line, "kind": e.kind, "message": e.message} for e in errors)
        pending.files.append((stat, session.id if session is not None else None))
        pending.bytes += stat.size
        summary.errors.extend(errors)

    def _flush(self, pending: _Pending) -> None:
        """Write the Python road's rows: a few columnar batches in one transaction."""
        if not pending.files:
            return
        self._con.begin()
        try:
            self._append("entries", pending.entries, _ENTRY_COLUMNS, {"line": "INTEGER"})
            self._append("sessions", pending.sessions, _SESSION_COLUMNS, {
                "version": "INTEGER", "entry_count": "BIGINT", "branch_count": "BIGINT", "label_count": "BIGINT",
                "injection_count": "BIGINT", "error_count": "BIGINT"})
            self._append("ingest_errors", pending.errors, ("path", "line", "kind", "message"),
                          {"line": "INTEGER"})
            now = datetime.now(timezone.utc).replace(tzinfo=None)
            for mode in ("python", "failed"):
                group = [(st, sid) for st, sid in pending.files if (sid is not None) == (mode == "python")]
                self._insert_files([st for st, _ in group], mode, now, [sid for _, sid in group])
        except BaseException:
            self._con.rollback()
            raise
        self._con.commit()

    # -- export ---------------------------------------------------------------------------------------
    @_locked
    def export_table_parquet(self, table: str, path: str | os.PathLike[str]) -> str:
        """Write one table (e.g. backtest results written with ``write_rows``) to a Parquet file."""
        name = _check_table(table)
        if name not in self.tables():
            raise NotFoundError(f"table {name!r} is not in the store {self.db}")
        target = Path(path).expanduser().resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        self._con.execute(f"COPY {name} TO '{_sql_str(target)}' (FORMAT parquet)")
        return str(target)

    @_locked
    def export_parquet(self, folder: str | os.PathLike[str]) -> str:
        """Write ``entries`` (partitioned by session), ``sessions``, ``files`` and ``ingest_errors`` as Parquet."""
        out = Path(folder).expanduser().resolve()
        out.mkdir(parents=True, exist_ok=True)
        con = self._con
        con.execute(f"COPY (SELECT * FROM entries ORDER BY path, line) TO '{_sql_str(out / 'entries')}' "
                    "(FORMAT parquet, PARTITION_BY (session_id), OVERWRITE_OR_IGNORE)")
        for table in ("sessions", "files", "ingest_errors"):
            con.execute(f"COPY {table} TO '{_sql_str(out / (table + '.parquet'))}' (FORMAT parquet)")
        return str(out)

    # -- queries --------------------------------------------------------------------------------------
    @_locked
    def _dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cur = self._con.execute(sql, list(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def sessions(self) -> list[dict[str, Any]]:
        """Every session, oldest first."""
        return self._dicts("SELECT * FROM sessions ORDER BY created, path")

    def session(self, id_or_path: str | os.PathLike[str]) -> dict[str, Any]:
        """One session by id, path or unique id prefix; ``NotFoundError`` otherwise."""
        key = os.fspath(id_or_path)
        rows = self._dicts("SELECT * FROM sessions WHERE session_id = ? OR path = ?",
                           [key, str(Path(key).expanduser().resolve())])
        if not rows:
            rows = self._dicts("SELECT * FROM sessions WHERE starts_with(session_id, ?)", [key])
            if len(rows) > 1:
                raise NotFoundError(f"session {key!r} is ambiguous: {len(rows)} sessions start with it")
        if not rows:
            raise NotFoundError(f"session {key!r} is not in the store {self.db}")
        return rows[0]

    def entries(self, session: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """The entries of one session (id or path) in file order; ``raw`` is the JSON line text."""
        path = self.session(session)["path"]
        return self._dicts("SELECT * FROM entries WHERE path = ? ORDER BY line", [path])

    def search(self, query: str, *, limit: int = 50, deep: bool = False) -> list[dict[str, Any]]:
        """Entries whose search text contains ``query`` (case-insensitive), across all sessions.

        The search text keeps 200 characters of each content (spec §8.9); ``deep=True`` searches the
        whole raw JSON line instead (slower: every byte of the archive is read).
        """
        if not query.strip():
            return []
        column = "raw::VARCHAR" if deep else "text"
        return self._dicts(
            f"""SELECT session_id, path, id AS entry_id, type, role, line, label,
                      substr(hay, greatest(1, pos - 60), length(?) + 120) AS snippet
               FROM (SELECT *, {column} AS hay, instr(lower({column}), lower(?)) AS pos FROM entries)
               WHERE pos > 0 ORDER BY path, line LIMIT ?""",
            [query, query, int(limit)],
        )

    def injections(self) -> list[dict[str, Any]]:
        """Every TTSR injection: ``ttsr_injection`` entries and ``ttsr-injection`` custom messages."""
        rows = self._dicts(
            f"""SELECT session_id, path, id AS entry_id, type, line, timestamp,
                       CASE WHEN type = 'ttsr_injection' THEN json_extract_string(raw, '$.injectedRules[*]')
                            ELSE json_extract_string(raw, '$.details.rules[*]') END AS rules
                FROM entries WHERE {_INJECTION_WHERE} ORDER BY path, line"""
        )
        for r in rows:
            r["rules"] = [x for x in (r["rules"] or []) if x is not None]
        return rows

    def labels(self) -> list[dict[str, Any]]:
        """Every entry with a resolved label (spec §4.6), by session and line."""
        return self._dicts("SELECT session_id, path, id AS entry_id, type, line, label FROM entries "
                           "WHERE label IS NOT NULL ORDER BY path, line")

    def ingest_errors(self) -> list[dict[str, Any]]:
        return self._dicts("SELECT * FROM ingest_errors ORDER BY path, line NULLS FIRST")

    @_locked
    def stats(self) -> dict[str, int]:
        row = self._con.execute(
            """SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM sessions),
                      (SELECT count(*) FROM entries), (SELECT count(*) FROM ingest_errors),
                      (SELECT coalesce(sum(size), 0) FROM files)"""
        ).fetchone()
        return dict(zip(("files", "sessions", "entries", "errors", "bytes"), (int(x) for x in row)))

    # -- generic tables for other features (backtest results, ...) ----------------------------------
    @_locked
    def write_rows(self, table: str, rows: Sequence[Mapping[str, Any]], *, replace: bool = False) -> int:
        """Bulk-write dict rows to ``table`` (created from the rows' keys; lists/dicts stored as JSON)."""
        name = _check_table(table)
        if name in _CORE_TABLES:
            raise StoreError(f"table {name!r} belongs to the ingest; pick another name")
        columns = list(dict.fromkeys(k for r in rows for k in r))
        for c in columns:
            _check_table(c)
        if replace:
            self._con.execute(f"DROP TABLE IF EXISTS {name}")
        if not rows:
            return 0
        norm = [{k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict, tuple)) else v)
                 for k, v in r.items()} for r in rows]
        cols = _rows_to_columns(norm, columns)
        tmp = f"_rows_{id(cols)}"
        self._con.register(tmp, cols)
        try:
            self._con.execute(f"CREATE TABLE IF NOT EXISTS {name} AS SELECT * FROM {tmp} LIMIT 0")
            self._con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM {tmp}")
        finally:
            self._con.unregister(tmp)
        return len(rows)

    @_locked
    def read_table(self, table: str) -> list[dict[str, Any]]:
        """All rows of a table as dicts (``NotFoundError`` if it does not exist)."""
        name = _check_table(table)
        exists = self._con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchone()[0]
        if not exists:
            raise NotFoundError(f"table {name!r} is not in the store {self.db}")
        return self._dicts(f"SELECT * FROM {name}")

    @_locked
    def tables(self) -> list[str]:
        return [r[0] for r in self._con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT temporary ORDER BY 1").fetchall()]


class _ReadFailed(Exception):
    """DuckDB could not read a batch at all (the reader gave up on some file in it)."""


@dataclass(slots=True)
class _Pending:
    """Rows of Python-road files waiting for one bulk write."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    files: list[tuple[_FileStat, str | None]] = field(default_factory=list)
    bytes: int = 0


def _session_rows(session: Any, data: bytes, error_count: int, pending: _Pending) -> None:
    """The entries and session rows of one parsed session (the Python twin of the fast road's SQL)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # the parser drops a BOM before numbering lines; so do we
    lines = data.split(b"\n")
    labels: dict[str, Any] = {}
    for e in session.entries:  # spec §4.6: global, file order, last write wins, falsy clears
        if e.type == "label" and isinstance(e.get("targetId"), str):
            if e.get("label"):
                labels[e.get("targetId")] = e.get("label")
            else:
                labels.pop(e.get("targetId"), None)
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
            "type": e.type, "role": e.role, "custom_type": _json_str(obj.get("customType")),
            "timestamp": _json_str(obj.get("timestamp")), "label": _json_str(label) if label else None,
            "text": _search_text(obj), "line": e.line, "raw": raw,
        })
    pending.entries.extend(rows)
    injections = sum(1 for r in rows if r["type"] == "ttsr_injection"
                     or (r["type"] == "custom_message" and r["custom_type"] == "ttsr-injection"))
    version = session.header.get("version") if session.version >= 3 else session.version
    pending.sessions.append({
        "session_id": session.id, "path": session.path, "cwd": session.cwd,
        "title": session.title or session.name, "version": version if isinstance(version, int) else None,
        "created": _json_str(session.timestamp), "entry_count": len(rows),
        "branch_count": sum(1 for e in session.entries if e.id not in parents),
        "label_count": sum(1 for r in rows if r["label"]), "injection_count": injections,
        "error_count": error_count,
    })


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


def _batches(stats: list[_FileStat]) -> Iterator[list[_FileStat]]:
    batch: list[_FileStat] = []
    size = 0
    for s in stats:
        batch.append(s)
        size += s.size
        if size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch
