"""Backtest results: per-session outcomes, hits, per-rule summaries, and where they are written.

``aggregate`` folds task outcomes (``workbench.backtest.run.backtest_session``) into a ``BacktestResult``
in input order, so a run on local processes and one on a Dask cluster compare equal.
``write_results`` stores the three tables through ``workbench.store.Store`` (DuckDB and Parquet).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from workbench.replay import Firing, not_registered
from workbench.replay.judge.tally import JudgedBacktest, SessionJudging, summarize
from workbench.rules import Rule

DEFAULT_SAMPLES = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit(Firing):
    """A rule firing in one turn of one session (the first firing of that rule in the turn).

    The ``Firing`` fields say where (``turn``, ``step``, ``stream_key``, ``offset`` / ``end`` of the
    first match, ``fired_at``, ``snippet``); ``session`` is the file and ``interrupts`` whether the
    rule's effective interrupt mode would abort on this source.
    """

    session: str
    interrupts: bool

    @classmethod
    def of(cls, session: str, firing: Firing, interrupts: bool) -> Hit:
        return cls(**{f.name: getattr(firing, f.name) for f in fields(Firing)}, session=session, interrupts=interrupts)

    def to_row(self) -> dict[str, Any]:
        return {"session": self.session, "rule": self.rule, "turn": self.turn, "step": self.step,
                "source": self.source, "tool_name": self.tool_name, "stream_key": self.stream_key,
                "via": self.via, "offset": self.offset, "end_offset": self.end, "fired_at": self.fired_at,
                "snippet": self.snippet, "interrupts": self.interrupts}


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """One task's answer: the session's turn count and hits, or why it could not be read.

    ``slow``: rules found here to exceed the time bound, with the reason; ``disabled``: the rules
    left out of this session's replay (sorted), because they exceeded the bound here or earlier.
    """

    session: str
    turns: int
    hits: tuple[Hit, ...]
    error: str | None = None
    status: str | None = None
    slow: tuple[tuple[str, str], ...] = ()
    disabled: tuple[str, ...] = ()
    judged: SessionJudging | None = None  # judge calls and verdicts of judged rules

    def without(self, names: set[str]) -> SessionOutcome:
        """This outcome as if ``names`` had been disabled too (exact where rules do not interact)."""
        return replace(self, hits=tuple(h for h in self.hits if h.rule not in names),
                       disabled=tuple(sorted(names | set(self.disabled))))

    def to_row(self) -> dict[str, Any]:
        return {"session": self.session, "turns": self.turns, "hits": len(self.hits), "status": self.status,
                "error": self.error}


@dataclass(frozen=True, slots=True)
class RuleSummary:
    """Per rule: sessions and turns that would trigger, the first trigger and sample snippets."""

    rule: str
    path: str
    sessions: int
    turns: int
    interrupting_turns: int
    first: Hit | None
    samples: tuple[Hit, ...]
    disabled: str | None = None  # why the time bound disabled it

    @property
    def fired(self) -> bool:
        return self.turns > 0

    def to_row(self) -> dict[str, Any]:
        first = self.first
        return {"rule": self.rule, "rule_path": self.path, "sessions": self.sessions, "turns": self.turns,
                "interrupting_turns": self.interrupting_turns, "fired": self.fired,
                "first_session": first.session if first else None, "first_turn": first.turn if first else None,
                "first_step": first.step if first else None, "first_offset": first.offset if first else None,
                "samples": [h.snippet for h in self.samples], "disabled": self.disabled}


@dataclass(frozen=True, slots=True)
class BacktestResult:
    """The aggregate; equal for local and distributed runs (timing fields excluded)."""

    rules: tuple[RuleSummary, ...]
    hits: tuple[Hit, ...]
    sessions: tuple[SessionOutcome, ...]
    not_registered: tuple[tuple[str, str], ...] = ()
    disabled: tuple[tuple[str, str, str], ...] = ()  # (rule, session, reason): the time bound
    elapsed: float = field(default=0.0, compare=False)
    workers: int = field(default=1, compare=False)
    scheduler: str | None = field(default=None, compare=False)
    # On a cluster, how the sessions reached the workers: "paths" (shared storage) or "bytes".
    transport: str | None = field(default=None, compare=False)
    judged: JudgedBacktest | None = None  # judged rules: the judge, calls and hits per rule

    @property
    def turns(self) -> int:
        return sum(s.turns for s in self.sessions)

    @property
    def errors(self) -> tuple[SessionOutcome, ...]:
        return tuple(s for s in self.sessions if s.error is not None)

    @property
    def never_fired(self) -> tuple[str, ...]:
        """Rules that did not fire and were not disabled by the time bound (judged rules never fire
        mid-stream: their verdicts are in ``judged``)."""
        judged = {t.rule for t in self.judged.rules} if self.judged is not None else set()
        return tuple(r.rule for r in self.rules if not r.fired and r.disabled is None and r.rule not in judged)

    @property
    def sessions_per_second(self) -> float:
        return len(self.sessions) / self.elapsed if self.elapsed > 0 else 0.0

    def rule_rows(self) -> list[dict[str, Any]]:
        return [r.to_row() for r in self.rules]

    def hit_rows(self) -> list[dict[str, Any]]:
        return [h.to_row() for h in self.hits]

    def session_rows(self) -> list[dict[str, Any]]:
        return [s.to_row() for s in self.sessions]

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": len(self.sessions), "turns": self.turns, "elapsed": round(self.elapsed, 3),
            "workers": self.workers, "scheduler": self.scheduler, "transport": self.transport,
            "rules": [{**r.to_row(), "first": r.first.to_row() if r.first else None,
                       "samples": [h.to_row() for h in r.samples]} for r in self.rules],
            "neverFired": list(self.never_fired),
            "notRegistered": [{"rule": n, "reason": why} for n, why in self.not_registered],
            "disabled": [{"rule": n, "session": at, "reason": why} for n, at, why in self.disabled],
            "errors": [{"session": s.session, "error": s.error} for s in self.errors],
            "hits": len(self.hits),
            "judged": self.judged.to_json() if self.judged is not None else None,
        }


def aggregate(rules: Sequence[Rule], outcomes: Sequence[SessionOutcome], *, samples: int = DEFAULT_SAMPLES,
              elapsed: float = 0.0, workers: int = 1, scheduler: str | None = None,
              judge: str | None = None, transport: str | None = None) -> BacktestResult:
    """Per-rule summaries from task outcomes, in rule order; hits in session order, then step."""
    hits = tuple(h for o in outcomes for h in sorted(o.hits, key=lambda h: (h.step, h.rule)))
    by_rule: dict[str, list[Hit]] = {r.name: [] for r in rules}
    for h in hits:
        by_rule.setdefault(h.rule, []).append(h)
    slow: dict[str, tuple[str, str]] = {}  # rule -> (first session where it exceeded the bound, reason)
    for o in outcomes:
        for name, why in o.slow:
            slow.setdefault(name, (o.session, why))
    not_registered_rules = tuple((r.name, why) for r in rules if (why := not_registered(r)) is not None)  # type: ignore[assignment]
    summaries = []
    for rule in rules:
        mine = by_rule.get(rule.name, [])
        at = slow.get(rule.name)
        summaries.append(RuleSummary(
            rule.name, rule.path, len({h.session for h in mine}), len(mine),
            sum(1 for h in mine if h.interrupts), mine[0] if mine else None, tuple(_samples(mine, samples)),
            f"{at[1]} at session {at[0]}" if at else None))
    return BacktestResult(tuple(summaries), hits, tuple(outcomes), not_registered_rules,
                          tuple((name, at, why) for name, (at, why) in slow.items()),
                          elapsed=elapsed, workers=workers, scheduler=scheduler, transport=transport,
                          judged=summarize(judge, [r.name for r in rules if r.question is not None],
                                           (o.judged for o in outcomes)))


def _samples(hits: list[Hit], n: int) -> Iterator[Hit]:
    """Up to ``n`` hits with distinct snippets, from different sessions first."""
    seen_snippets: set[str] = set()
    seen_sessions: set[str] = set()
    picked: list[Hit] = []
    for h in hits:
        if len(picked) >= n:
            break
        if h.session not in seen_sessions and h.snippet not in seen_snippets:
            picked.append(h)
            seen_sessions.add(h.session)
            seen_snippets.add(h.snippet)
    for h in hits:
        if len(picked) >= n:
            break
        if h not in picked and h.snippet not in seen_snippets:
            picked.append(h)
            seen_snippets.add(h.snippet)
    return iter(picked)


# --- results ----------------------------------------------------------------------------------------

TABLES = ("backtest_rules", "backtest_hits", "backtest_sessions")


def write_results(result: BacktestResult, out_dir: str | os.PathLike[str], *, db_name: str = "backtest.duckdb") -> dict[str, str]:
    """Write the three result tables to ``<out>/backtest.duckdb`` (replacing earlier runs) and to
    ``<out>/<table>.parquet`` (a table with no rows has no Parquet file). Returns what was written."""
    # Start-up cost: every backtest worker process imports this module, and only the parent writes
    # results; importing the store here keeps duckdb (~0.1 s) out of the workers.
    from workbench.store import Store

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    db = out / db_name
    with Store(str(db)) as store:
        rows = {"backtest_rules": result.rule_rows(), "backtest_hits": result.hit_rows(),
                "backtest_sessions": result.session_rows()}
        for table, table_rows in rows.items():
            store.write_rows(table, table_rows, replace=True)
        written["duckdb"] = str(db)
        for table in TABLES:
            if rows[table]:  # write_rows creates no table for zero rows
                written[table] = store.export_table_parquet(table, out / f"{table}.parquet")
    return written
