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
    where, params = _filters(paths, since, until)
    tokens = ",\n       ".join(
        f"coalesce(sum({_num('$.' + c)}) FILTER (WHERE u.kind = 'assistant'), 0) AS \"{c}\"" for c in TOKEN_COLUMNS)
    sql = _BASE.format(where=where, key=_KEYS[by], tokens=tokens, cost=_num("$.cost.total"),
                       total=_num("$.totalTokens"))
    rows = store._dicts(sql, params)  # the store's one query helper (it holds the lock)
    return _clean_numbers(rows, (*TOKEN_COLUMNS, "judgeTokens"), ("cost", "judgeCost", "otherCost"))


# -- TTSR judge calls per rule ------------------------------------------------------------------------
# The rule of ``workbench.sessions.usage.judge_usage``, across every branch of every file: a judge
# call names its rule when the file records one (``rule``/``ruleName``), else it is the rule of the
# first ``ttsr_injection`` below it in the tree before the model's next reply (a delivered verdict is
# injected before the model answers; a "no" leaves nothing, and the call is ``(rule not recorded)``).
UNATTRIBUTED = "(rule not recorded)"  # the same words as workbench.sessions.usage.UNATTRIBUTED
_WALK_DEPTH = 200  # entries followed below one judge call (a reply comes after a handful)

_JUDGE = """
WITH RECURSIVE j AS (
    SELECT e.path, e.id, e.raw FROM entries e JOIN sessions s ON s.path = e.path
    WHERE e.type = 'model_usage' AND json_extract_string(e.raw, '$.purpose') = 'ttsr' {where}
),
walk(path, judge, id, depth, line, stop, rules) AS (
    SELECT path, id, id, 0, 0, false, NULL::VARCHAR FROM j
    UNION ALL
    SELECT c.path, w.judge, c.id, w.depth + 1, c.line,
           c.type = 'ttsr_injection' OR (c.type = 'message' AND c.role = 'assistant'),
           CASE WHEN c.type = 'ttsr_injection' AND json_type(c.raw, '$.injectedRules') = 'ARRAY'
                     AND json_array_length(c.raw, '$.injectedRules') > 0
                     AND list_bool_and(list_transform(json_extract(c.raw, '$.injectedRules[*]'),
                                                      lambda x: json_type(x) = 'VARCHAR'))
                THEN array_to_string(json_extract_string(c.raw, '$.injectedRules[*]'), ', ') END
    FROM walk w JOIN entries c ON c.path = w.path AND c.parent_id = w.id
    WHERE NOT w.stop AND w.depth < {depth}
),
named AS (
    SELECT j.path, j.id, j.raw, coalesce(
        nullif(CASE WHEN json_type(j.raw, '$.rule') = 'VARCHAR' THEN json_extract_string(j.raw, '$.rule') END, ''),
        nullif(CASE WHEN json_type(j.raw, '$.ruleName') = 'VARCHAR' THEN json_extract_string(j.raw, '$.ruleName') END, ''),
        (SELECT arg_min(w.rules, (w.depth, w.line)) FROM walk w
         WHERE w.judge = j.id AND w.path = j.path AND w.stop AND w.depth > 0),
        '{unattributed}') AS rule
    FROM j
),
u AS (SELECT path, rule, json_extract(raw, '$.usage') AS usage FROM named)
SELECT rule, count(DISTINCT path) AS sessions, count(*) AS calls, {tokens}, coalesce(sum({cost}), 0) AS cost
FROM u GROUP BY rule ORDER BY rule
"""


def _filters(paths: Sequence[str] | None, since: date | None, until: date | None) -> tuple[str, list[Any]]:
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
    return " ".join(where), params


def _clean_numbers(rows: list[dict[str, Any]], ints: Sequence[str], floats: Sequence[str]) -> list[dict[str, Any]]:
    for row in rows:
        for column in ints:
            value = float(row[column])
            row[column] = int(value) if value.is_integer() else value
        for column in floats:
            row[column] = float(row[column])
    return rows


def judge_by_rule(store: Store, *, paths: Sequence[str] | None = None, since: date | None = None,
                  until: date | None = None) -> list[dict[str, Any]]:
    """One row per rule: the TTSR judge calls (``model_usage`` of purpose ``ttsr``) made for it, in how
    many sessions, their tokens and cost; these are never in ``usage_by``'s assistant totals."""
    where, params = _filters(paths, since, until)
    tokens = ",\n       ".join(f"coalesce(sum({_num('$.' + c)}), 0) AS \"{c}\"" for c in TOKEN_COLUMNS)
    sql = _JUDGE.format(where=where, depth=_WALK_DEPTH, unattributed=UNATTRIBUTED, tokens=tokens,
                        cost=_num("$.cost.total"))
    return _clean_numbers(store._dicts(sql, params), TOKEN_COLUMNS, ("cost",))  # the store's one query helper


# -- per session: what the Sessions table shows beside its counts --------------------------------------
_PER_SESSION = """
WITH u AS (
    SELECT e.path, coalesce(json_extract_string(e.raw, '$.message.model'), '(unknown)') AS model,
           json_extract(e.raw, '$.message.usage') AS usage
    FROM entries e WHERE e.type = 'message' AND e.role = 'assistant'
)
SELECT path, count(*) AS messages, arg_max(model, (n, model)) AS model, coalesce(sum(cost), 0) AS cost,
       coalesce(sum(tokens), 0) AS "totalTokens"
FROM (SELECT path, model, count(*) OVER (PARTITION BY path, model) AS n, {cost} AS cost, {total} AS tokens FROM u)
GROUP BY path
"""


def session_usage(store: Store) -> dict[str, dict[str, Any]]:
    """By stored path: the model of most assistant messages (ties: the last by name), the assistant
    messages' cost and total tokens (every branch, as ``usage_by`` counts them)."""
    rows = store._dicts(_PER_SESSION.format(cost=_num("$.cost.total"), total=_num("$.totalTokens")))
    return {str(r["path"]): r for r in _clean_numbers(rows, ("totalTokens",), ("cost",))}


# -- totals over the grouped rows ----------------------------------------------------------------------
TOTAL_COLUMNS = ("messages", *TOKEN_COLUMNS, "cost", "judgeCalls", "judgeTokens", "judgeCost", "otherCalls", "otherCost")


def usage_totals(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The sums of ``usage_by``'s rows (any grouping gives the same): ``workbench usage --json``'s
    ``totals`` and the Usage view's line above its chart."""
    return {key: sum(r[key] for r in rows) for key in TOTAL_COLUMNS}


def usage_sessions(store: Store, *, paths: Sequence[str] | None = None, since: date | None = None,
                   until: date | None = None) -> int:
    """How many files have an assistant message or a ``model_usage`` entry in the range."""
    where, params = _filters(paths, since, until)
    rows = store._dicts("SELECT count(DISTINCT e.path) AS n FROM entries e WHERE ((e.type = 'message' AND "
                        f"e.role = 'assistant') OR e.type = 'model_usage') {where}", params)
    return int(rows[0]["n"]) if rows else 0
