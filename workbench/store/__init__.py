"""The DuckDB store: session files loaded into tables, queried by the CLI, the app and the backtest.

The only package that imports ``duckdb`` or holds SQL (``db``). ``rows`` is the Python side of ingest
(fingerprints, the parser road's rows, the summary) and ``search_text`` the rule of the ``entries.text``
column, which the SQL of the fast road reproduces.

Public API:

- ``Store(db=":memory:", *, read_only=False)`` — ``ingest(paths, ...) -> IngestSummary``, ``sessions()``,
  ``session(id_or_path)``, ``entries(session)``, ``search(query)``, ``search_count(query)``, ``injections()``, ``labels()``,
  ``ingest_errors()``, ``failed_files()``, ``notices()``, ``stats()``, ``write_rows`` / ``read_table`` / ``tables``, Parquet export.
- ``usage_by(store, by, *, paths, since, until)`` / ``GROUPINGS``: usage across sessions by model, day,
  ISO week or cwd; ``judge_by_rule(store, ...)``: the TTSR judge calls per rule; ``session_usage(store)``:
  each file's main model, cost and tokens; ``usage_totals(rows)``, ``usage_sessions(store, ...)`` (``usage``).
- ``IngestSummary`` / ``IngestError`` — what an ingest reports (progress: ``workbench.sessions.Progress``).
"""

from __future__ import annotations

from workbench.store.db import Store
from workbench.store.rows import IngestError, IngestSummary
from workbench.store.usage import GROUPINGS, judge_by_rule, session_usage, usage_by, usage_sessions, usage_totals

__all__ = ["GROUPINGS", "IngestError", "IngestSummary", "Store", "judge_by_rule", "session_usage", "usage_by",
           "usage_sessions", "usage_totals"]
