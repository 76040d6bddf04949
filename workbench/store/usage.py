"""Usage across sessions from the store: tokens and cost grouped by model, day, ISO week or project.

Every assistant message of every ingested file counts (abandoned branches were paid for too); the
``model_usage`` entries omp 18 writes for calls outside the conversation are counted apart: TTSR judge
calls (purpose ``ttsr``) in ``judge*``, the rest (titles, auto-thinking, ...) in ``other*``. A message's
day is the UTC date of its entry's ISO timestamp (what the agents write); an entry without one is
``(undated)`` and left out by ``since``/``until``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from workbench.errors import UsageError
from workbench.store.db import Store

GROUPINGS = ("model", "day", "week", "cwd")
TOKEN_COLUMNS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
UNDATED = "(undated)"

_KEYS = {
    "model": "u.model",
    "day": f"coalesce(strftime(u.day, '%Y-%m-%d'), '{UNDATED}')",
    "week": f"coalesce(strftime(u.day, '%G-W%V'), '{UNDATED}')",
    "cwd": "coalesce(u.cwd, '(none)')",
}


def _num(path: str) -> str:
    # a number only: the parser's rule (sessions.usage) leaves strings and booleans out, so does this
    return (f"CASE WHEN json_type(u.usage, '{path}') IN ('UBIGINT', 'BIGINT', 'DOUBLE') "
            f"THEN CAST(json_extract(u.usage, '{path}') AS DOUBLE) ELSE 0 END")


_BASE = """
WITH u AS (
    SELECT e.path, s.cwd,
           CASE WHEN e.type = 'message' THEN 'assistant'
                WHEN json_extract_string(e.raw, '$.purpose') = 'ttsr' THEN 'judge' ELSE 'other' END AS kind,
           coalesce(CASE WHEN e.type = 'message' THEN json_extract_string(e.raw, '$.message.model')
                         ELSE json_extract_string(e.raw, '$.model') END, '(unknown)') AS model,
           TRY_CAST(left(e.timestamp, 10) AS DATE) AS day,
           CASE WHEN e.type = 'message' THEN json_extract(e.raw, '$.message.usage')
                ELSE json_extract(e.raw, '$.usage') END AS usage
    FROM entries e JOIN sessions s ON s.path = e.path
    WHERE ((e.type = 'message' AND e.role = 'assistant') OR e.type = 'model_usage') {where}
)
SELECT {key} AS "group", count(DISTINCT u.path) AS sessions,
       count(*) FILTER (WHERE u.kind = 'assistant') AS messages,
       {tokens},
       coalesce(sum({cost}) FILTER (WHERE u.kind = 'assistant'), 0) AS cost,
       count(*) FILTER (WHERE u.kind = 'judge') AS "judgeCalls",
       coalesce(sum({total}) FILTER (WHERE u.kind = 'judge'), 0) AS "judgeTokens",
       coalesce(sum({cost}) FILTER (WHERE u.kind = 'judge'), 0) AS "judgeCost",
       count(*) FILTER (WHERE u.kind = 'other') AS "otherCalls",
       coalesce(sum({cost}) FILTER (WHERE u.kind = 'other'), 0) AS "otherCost"
FROM u GROUP BY 1 ORDER BY 1
"""


def usage_by(store: Store, by: str, *, paths: Sequence[str] | None = None, since: date | None = None,
             until: date | None = None) -> list[dict[str, Any]]:
    """One row per group: sessions, assistant messages, their tokens and cost, judge and other calls.

    ``paths``: only these files (as the store holds them, resolved); ``since``/``until``: inclusive days."""
    if by not in _KEYS:
        raise UsageError(f"--by {by}: choose one of {', '.join(GROUPINGS)}")
    where: list[str] = []
    params: list[Any] = []
    if paths is not None:
        where.append("AND list_contains(?, e.path)")
        params.append(list(paths))
    if since is not None:
        where.append("AND TRY_CAST(left(e.timestamp, 10) AS DATE) >= ?")
        params.append(since)
    if until is not None:
        where.append("AND TRY_CAST(left(e.timestamp, 10) AS DATE) <= ?")
        params.append(until)
    tokens = ",\n       ".join(
        f"coalesce(sum({_num('$.' + c)}) FILTER (WHERE u.kind = 'assistant'), 0) AS \"{c}\"" for c in TOKEN_COLUMNS)
    sql = _BASE.format(where=" ".join(where), key=_KEYS[by], tokens=tokens, cost=_num("$.cost.total"),
                       total=_num("$.totalTokens"))
    rows = store._dicts(sql, params)  # the store's one query helper (it holds the lock)
    for row in rows:
        for column in (*TOKEN_COLUMNS, "judgeTokens"):
            value = float(row[column])
            row[column] = int(value) if value.is_integer() else value
        for column in ("cost", "judgeCost", "otherCost"):
            row[column] = float(row[column])
    return rows
