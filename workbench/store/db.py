"""The DuckDB store: session files loaded into tables, queried for the CLI and the app.

This is the only module that imports ``duckdb`` or holds SQL; the Python side of ingest (finding
files, fingerprints, the parser road's rows, the summary) is in ``workbench.store.rows`` and the
search-text rule in ``workbench.store.search_text``. Tables:

* ``files``          one row per ingested file: size, mtime, fingerprint, when, how (``fast``/``python``/``failed``)
* ``sessions``       one row per session file: header fields, title and counts
* ``entries``        one row per entry: typed columns, a search text and the raw JSON line verbatim
* ``ingest_errors``  every problem found while reading, with path and 1-based line (notices, which
                   lose nothing, are not stored: ``notices()`` finds them in the loaded rows)

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
DuckDB's ``executemany`` costs about 1 ms a row.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import wraps
from pathlib import Path
from typing import Any

import duckdb

from workbench.errors import NotFoundError, StoreError
from workbench.sessions import CURRENT_VERSION, KNOWN_ENTRY_TYPES, Progress, session_files
from workbench.store.rows import (
    FileStat,
    IngestMode,
    IngestSummary,
    RowBatch,
    has_v3_header,
    size_batches,
    to_columns,
)
from workbench.store.search_text import CUT

__all__ = ["Store"]

_BATCH_BYTES = 256 << 20  # per DuckDB read; bounds memory on a large archive
_MAX_OBJECT = 1 << 30  # one JSON line may hold a huge tool output

# The ingest tables, column by column: the schema and the parser road's bulk inserts both come from here.
_TABLES: dict[str, dict[str, str]] = {
    "files": {"path": "VARCHAR", "size": "BIGINT", "mtime": "DOUBLE", "fingerprint": "VARCHAR",
              "ingested_at": "TIMESTAMP", "session_id": "VARCHAR", "mode": "VARCHAR"},
    "sessions": {"session_id": "VARCHAR", "path": "VARCHAR", "cwd": "VARCHAR", "title": "VARCHAR",
                 "version": "INTEGER", "created": "VARCHAR", "entry_count": "BIGINT", "branch_count": "BIGINT",
                 "label_count": "BIGINT", "injection_count": "BIGINT", "error_count": "BIGINT"},
    "entries": {"session_id": "VARCHAR", "path": "VARCHAR", "id": "VARCHAR", "parent_id": "VARCHAR",
                "type": "VARCHAR", "role": "VARCHAR", "custom_type": "VARCHAR", "timestamp": "VARCHAR",
                "label": "VARCHAR", "text": "VARCHAR", "line": "INTEGER", "raw": "VARCHAR"},
    "ingest_errors": {"path": "VARCHAR", "line": "INTEGER", "kind": "VARCHAR", "message": "VARCHAR"},
}
_SCHEMA = "\n".join(
    f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(f'{c} {t}' for c, t in cols.items())});"
    for table, cols in _TABLES.items()
)

# The JSON paths the fast road pulls out of every line in one parse (rarer fields are read from
# ``raw`` only for the rows that need them); _F names their 1-based slots. The text of the first four
# content blocks comes in the same parse; a fifth block (rare) sends the row to a wildcard read.
_PATHS = ("$.type", "$.id", "$.parentId", "$.timestamp", "$.message.role", "$.customType",
          "$.message.content[0].text", "$.message.content[1].text", "$.message.content[2].text",
          "$.message.content[3].text", "$.message.content[4].type")
_F = {name: i + 1 for i, name in enumerate(
    ("type", "id", "parent", "ts", "role", "custom", "b0", "b1", "b2", "b3", "more"))}


def _f(name: str) -> str:
    return f"s.f[{_F[name]}]"


def _raw(path: str) -> str:
    return f"json_extract_string(s.raw, '{path}')"


# The search text rule of workbench.store.search_text in SQL, for the fast road; a test holds
# the two together.
_FIRST_BLOCKS = ", ".join(f"left({_f(b)}, {CUT})" for b in ("b0", "b1", "b2", "b3"))
_TEXT_SQL = f"""CASE {_f('type')}
    WHEN 'message' THEN CASE
        WHEN {_f('more')} IS NOT NULL THEN CASE WHEN len({_raw('$.message.content[*].text')}) > 0
             THEN left(array_to_string({_raw('$.message.content[*].text')}, ''), {CUT}) END
        WHEN coalesce({_f('b0')}, {_f('b1')}, {_f('b2')}, {_f('b3')}) IS NOT NULL
             THEN left(concat({_FIRST_BLOCKS}), {CUT})
        WHEN json_type(s.raw, '$.message.content') = 'VARCHAR' THEN left({_raw('$.message.content')}, {CUT})
        WHEN {_f('role')} = 'bashExecution' THEN {_raw('$.message.command')} END
    WHEN 'custom_message' THEN concat_ws(' ', {_f('custom')},
        CASE json_type(s.raw, '$.content')
             WHEN 'VARCHAR' THEN {_raw('$.content')}
             WHEN 'ARRAY' THEN CASE WHEN len({_raw('$.content[*].text')}) > 0
                  THEN left(array_to_string({_raw('$.content[*].text')}, ''), {CUT}) END END)
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


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """One call at a time per store: a DuckDB connection is not to be shared by threads at once
    (the app's callbacks run on several)."""

    @wraps(method)
    def call(self: Store, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return call


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_name(name: str) -> str:
    """A table or column name safe to put in SQL as is."""
    if not _IDENT.match(name):
        raise StoreError(f"bad table name {name!r}: use letters, digits and _")
    return name


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


class _ReadFailed(Exception):
    """DuckDB could not read a batch at all (the reader gave up on some file in it)."""


class Store:
    """A DuckDB database of session files: ``Store()`` in memory, ``Store(path)`` on disk.

    One process owns a DB file: opening a file another process holds raises ``StoreError``.
    Use as a context manager or call ``close()``. ``give_back_memory``: DuckDB returns what its
    queries free to the system at once, for a long-running process that parses big files beside
    the store (the served app); it costs the ingest about 15%.
    """

    def __init__(self, db: str | os.PathLike[str] = ":memory:", *, read_only: bool = False,
                 give_back_memory: bool = False) -> None:
        self.db = os.fspath(db)
        self._lock = threading.RLock()
        # Bumped by every ingest (the only writer of the ingest's tables): what a reader derived from
        # those tables holds while this number stays the same.
        self.revision = 0
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
        if give_back_memory:
            # DuckDB's allocator keeps what queries free and hands it back to the system later; while
            # it holds it, the page faults of everything else the process allocates cost up to ten
            # times as much (docs/large-sessions.md, "DuckDB's freed memory").
            self._con.execute("SET allocator_bulk_deallocation_flush_threshold = '1MB'")
        try:
            self._con.execute("SET enable_progress_bar = false")
        except duckdb.Error:
            # Under Jupyter without ipywidgets DuckDB refuses to touch the setting; it is off there already.
            pass

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
        ``_fast=False`` sends every file down the parser road (tests compare the two roads).
        """
        self.revision += 1  # under the lock: a reader that sees the new number waits for this ingest to end
        t0 = time.perf_counter()
        summary = IngestSummary()
        files = list(dict.fromkeys(p.resolve() for p in session_files(paths)))
        summary.files, summary.paths = len(files), [str(p) for p in files]
        done = 0

        def tick(path: str) -> None:
            nonlocal done
            done += 1
            if progress:
                progress(done, len(files), path)

        known = dict(self._con.execute("SELECT path, fingerprint FROM files").fetchall())
        todo: list[FileStat] = []
        for p in files:
            try:
                stat = FileStat.of(p)
            except OSError:
                # Cannot be stat'ed or read (permissions, a dangling link): the parser road records it
                # as ``unreadable`` with the system's reason; a fresh fingerprint means "try again next time".
                stat = FileStat(str(p), 0, 0.0, f"unreadable:{time.time_ns()}")
            if known.get(stat.path) == stat.fingerprint:
                summary.skipped_files += 1
                tick(stat.path)
            else:
                todo.append(stat)
        # Also paths the files table does not know: an interrupted ingest may have left rows behind.
        self._forget([s.path for s in todo])
        fast = [s for s in todo if _fast and has_v3_header(s.path)]
        fast_paths = {s.path for s in fast}
        slow = [s for s in todo if s.path not in fast_paths]
        batches = deque(size_batches(fast, _BATCH_BYTES))
        while batches:
            batch = batches.popleft()
            try:
                rejected = self._ingest_fast(batch, summary)
            except _ReadFailed:
                if len(batch) > 1:  # one bad file must not send a whole batch down the slow road: split it
                    half = len(batch) // 2
                    batches.extendleft([batch[half:], batch[:half]])
                    continue
                rejected = batch  # the parser road will say what is wrong with it, per line
            slow.extend(rejected)
            for s in batch:
                if s not in rejected:
                    tick(s.path)
        pending = RowBatch()
        for s in slow:
            pending.add_file(s, summary)
            if pending.bytes >= _BATCH_BYTES // 4:
                self._flush(pending)
                pending = RowBatch()
            tick(s.path)
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

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._con.begin()
        try:
            yield
        except BaseException:
            self._con.rollback()
            raise
        self._con.commit()

    def _ingest_fast(self, batch: list[FileStat], summary: IngestSummary) -> list[FileStat]:
        """Read a batch with DuckDB; returns the files that must go the parser road instead.

        One pass appends every line of the batch to ``entries`` in file order (an INSERT keeps
        insertion order, so rowids follow the lines of each file). The new rows are told apart by
        ``session_id IS NULL``, and ``line`` holds each line's byte length until the checks in
        ``_number_and_index`` accept a file (lengths + newlines = file size: no blank line hides
        between the objects) and number its lines from rowids; a file with a blank, malformed or
        non-object line is rejected. Raises ``_ReadFailed`` when DuckDB cannot read the batch at all.
        """
        con = self._con
        # No explicit transaction for the read: measured, it costs more than it saves (the commit
        # re-merges the batch). Rows a crash could leave half-done are recognisable (no session id)
        # and go first.
        con.execute("DELETE FROM entries WHERE session_id IS NULL")
        try:
            con.execute(
                f"""INSERT INTO entries (path, id, parent_id, type, role, custom_type, timestamp, text, line, raw)
                SELECT s.path, {_f('id')}, {_f('parent')}, {_f('type')},
                       CASE WHEN {_f('type')} = 'message' THEN {_f('role')} END, {_f('custom')}, {_f('ts')},
                       {_TEXT_SQL}, strlen(s.raw), s.raw
                FROM (SELECT filename AS path, TRY(json_extract_string(line, {list(_PATHS)!r})) AS f, line AS raw
                      FROM read_csv(?, columns={{'line': 'VARCHAR'}}, header=false, auto_detect=false,
                                    delim=chr(1), quote='', escape='', filename=true, ignore_errors=true,
                                    max_line_size={_MAX_OBJECT})) s""",
                [[s.path for s in batch]],
            )
        except duckdb.Error as exc:
            raise _ReadFailed(str(exc)) from None
        # From here on rowids must not move under us (a checkpoint may compact a table), so the
        # numbering and the updates run in one transaction.
        with self._transaction():
            return self._number_and_index(batch, summary)

    def _number_and_index(self, batch: list[FileStat], summary: IngestSummary) -> list[FileStat]:
        con = self._con
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
            [[s.path for s in batch], [s.size for s in batch]],
        )
        con.execute(
            """UPDATE entries SET line = (entries.rowid - g.first + 1)::INTEGER, session_id = g.session_id
            FROM _files g WHERE entries.path = g.path AND entries.session_id IS NULL"""
        )
        # Rows of rejected files, and the header lines of accepted ones (a header is not an entry).
        con.execute("DELETE FROM entries WHERE session_id IS NULL OR (line = 1 AND path IN (SELECT path FROM _files))")
        # docs/flavours.md: labels resolve globally in file order, last write wins, a falsy label clears.
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
            -- pi's session name: the last session_info with a truthy name
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
        good = dict(con.execute("SELECT path, session_id FROM _files").fetchall())
        ok = [s for s in batch if s.path in good]
        self._insert_files([(s, good[s.path], "fast") for s in ok])
        summary.sessions += len(ok)
        summary.entries += int(con.execute("SELECT coalesce(sum(n - 1), 0) FROM _files").fetchone()[0])  # type: ignore[index]
        con.execute("DROP TABLE IF EXISTS _files")
        return [s for s in batch if s.path not in good]

    def _insert_files(self, files: Sequence[tuple[FileStat, str | None, IngestMode]]) -> None:
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        self._append("files", [
            {"path": s.path, "size": s.size, "mtime": s.mtime, "fingerprint": s.fingerprint,
             "ingested_at": now, "session_id": sid, "mode": mode} for s, sid, mode in files])

    @contextmanager
    def _scan(self, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> Iterator[str]:
        """Dict rows as a view DuckDB can select from (one columnar batch), under the name yielded."""
        cols = to_columns(rows, columns)
        name = f"_rows_{id(cols)}"
        self._con.register(name, cols)
        try:
            yield name
        finally:
            self._con.unregister(name)

    def _append(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Bulk insert dict rows into an ingest table: one ``INSERT ... SELECT``, each column cast to its type."""
        if not rows:
            return
        types = _TABLES[table]
        with self._scan(rows, list(types)) as view:
            select = ", ".join(f"{c}::{t}" for c, t in types.items())
            self._con.execute(f"INSERT INTO {table} ({', '.join(types)}) SELECT {select} FROM {view}")

    def _flush(self, pending: RowBatch) -> None:
        """Write the parser road's rows: a few columnar batches in one transaction."""
        if not pending.files:
            return
        with self._transaction():
            self._append("entries", pending.entries)
            self._append("sessions", pending.sessions)
            self._append("ingest_errors", pending.errors)
            self._insert_files(pending.files)

    # -- export ---------------------------------------------------------------------------------------
    @_locked
    def export_table_parquet(self, table: str, path: str | os.PathLike[str]) -> str:
        """Write one table (e.g. backtest results written with ``write_rows``) to a Parquet file."""
        name = _check_name(table)
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

        The search text keeps 200 characters of each content; ``deep=True`` searches the
        whole raw JSON line instead (slower: every byte of the archive is read).
        """
        if not query.strip():
            return []
        column = "raw" if deep else "text"
        return self._dicts(
            f"""SELECT session_id, path, id AS entry_id, type, role, line, label,
                      substr(hay, greatest(1, pos - 60), length(?) + 120) AS snippet
               FROM (SELECT *, {column} AS hay, instr(lower({column}), lower(?)) AS pos FROM entries)
               WHERE pos > 0 ORDER BY path, line LIMIT ?""",
            [query, query, int(limit)],
        )

    @_locked
    def search_count(self, query: str, *, deep: bool = False) -> tuple[int, int]:
        """How many entries ``search`` would find without its limit, and in how many files."""
        if not query.strip():
            return 0, 0
        column = "raw" if deep else "text"
        row = self._con.execute(f"SELECT count(*), count(DISTINCT path) FROM entries "
                                f"WHERE instr(lower({column}), lower(?)) > 0", [query]).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

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
        """Every entry with a resolved label, by session and line."""
        return self._dicts("SELECT session_id, path, id AS entry_id, type, line, label FROM entries "
                           "WHERE label IS NOT NULL ORDER BY path, line")

    def ingest_errors(self) -> list[dict[str, Any]]:
        """Every problem recorded by ingest, by file and line (file-level problems first)."""
        return self._dicts("SELECT * FROM ingest_errors ORDER BY path, line NULLS FIRST")

    @_locked
    def failed_files(self) -> list[dict[str, Any]]:
        """Files that did not load at all (empty, no header, binary, unreadable): path, line, kind, message.

        One row per file, its first recorded problem (a failed file has one: the reason it failed).
        """
        return self._dicts(
            """SELECT f.path, e.line, e.kind, e.message FROM files f
            JOIN (SELECT path, arg_min(line, coalesce(line, 0)) AS line, arg_min(kind, coalesce(line, 0)) AS kind,
                         arg_min(message, coalesce(line, 0)) AS message FROM ingest_errors GROUP BY path) e
              ON e.path = f.path
            WHERE f.mode = 'failed' ORDER BY f.path""")

    @_locked
    def notices(self) -> list[dict[str, Any]]:
        """What loaded but is worth flagging (``workbench.errors.NOTICE_KINDS``): path, line, kind, message.

        Found in SQL over the loaded rows, so both ingest roads report the same (the fast road never
        runs the parser that finds them): a header version newer than followed, entry types no followed
        agent writes (one row per type, at its first line), and messages whose ``message`` is no object.
        """
        known = sorted(KNOWN_ENTRY_TYPES)
        return self._dicts(
            f"""SELECT path, NULL::INTEGER AS line, 'newer-version' AS kind,
                   'header: version ' || version || ' is newer than {CURRENT_VERSION}, the newest this workbench '
                   || 'follows: read as version {CURRENT_VERSION}' AS message
            FROM sessions WHERE version > {CURRENT_VERSION}
            UNION ALL
            SELECT path, min(line), 'unknown-type',
                   'entry type ' || CASE WHEN coalesce(type, '') = '' THEN 'missing' ELSE chr(39) || type || chr(39) END
                   || ' is not one omp 18.3 or pi writes (' || count(*) || CASE WHEN count(*) = 1 THEN ' entry'
                   ELSE ' entries' END || '); kept and shown'
            FROM entries WHERE coalesce(type, '') NOT IN (SELECT unnest(?::VARCHAR[])) GROUP BY path, type
            UNION ALL
            SELECT path, line, 'message-not-object',
                   'the message is ' || CASE json_type(raw, '$.message') WHEN 'VARCHAR' THEN 'a string'
                   WHEN 'ARRAY' THEN 'an array' WHEN 'BOOLEAN' THEN 'a boolean' WHEN 'NULL' THEN 'null'
                   WHEN NULL THEN 'missing' ELSE 'a number' END
                   || ', not an object; the agent' || chr(39) || 's /tree shows this entry as [undefined]'
            FROM entries WHERE type = 'message' AND json_type(raw, '$.message') IS DISTINCT FROM 'OBJECT'
            ORDER BY path, line NULLS FIRST, kind""", [known])

    @_locked
    def stats(self) -> dict[str, int]:
        """Row counts of the ingest tables and the bytes of the files they came from."""
        row = self._con.execute(
            """SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM sessions),
                      (SELECT count(*) FROM entries), (SELECT count(*) FROM ingest_errors),
                      (SELECT coalesce(sum(size), 0) FROM files)"""
        ).fetchone()
        return dict(zip(("files", "sessions", "entries", "errors", "bytes"), (int(x) for x in row)))  # type: ignore[union-attr]

    # -- generic tables for other features (backtest results, ...) ----------------------------------
    @_locked
    def write_rows(self, table: str, rows: Sequence[Mapping[str, Any]], *, replace: bool = False) -> int:
        """Bulk-write dict rows to ``table`` (created from the rows' keys; lists/dicts stored as JSON)."""
        name = _check_name(table)
        if name in _TABLES:
            raise StoreError(f"table {name!r} belongs to the ingest; pick another name")
        columns = list(dict.fromkeys(k for r in rows for k in r))
        for c in columns:
            _check_name(c)
        if replace:
            self._con.execute(f"DROP TABLE IF EXISTS {name}")
        if not rows:
            return 0
        norm = [{k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict, tuple)) else v)
                 for k, v in r.items()} for r in rows]
        with self._scan(norm, columns) as view:
            self._con.execute(f"CREATE TABLE IF NOT EXISTS {name} AS SELECT * FROM {view} LIMIT 0")
            self._con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM {view}")
        return len(rows)

    @_locked
    def read_table(self, table: str) -> list[dict[str, Any]]:
        """All rows of a table as dicts (``NotFoundError`` if it does not exist)."""
        name = _check_name(table)
        exists = self._con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchone()[0]  # type: ignore[index]
        if not exists:
            raise NotFoundError(f"table {name!r} is not in the store {self.db}")
        return self._dicts(f"SELECT * FROM {name}")

    @_locked
    def tables(self) -> list[str]:
        """The names of the store's tables (ingest tables and those written with ``write_rows``)."""
        return [r[0] for r in self._con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT temporary ORDER BY 1").fetchall()]
