"""Backtesting: a rule set run over an archive of sessions ("how often would my rule have fired?").

``run`` holds the task (one session derived into a stream and played through a simulated session)
and the drivers (local processes, a Dask cluster); ``results`` the outcomes, hits and per-rule
summaries, folded in input order, and ``write_results`` (DuckDB and Parquet through the store).

Public API:

- ``run_backtest(rules_dir, paths, *, workers=None, scheduler=None, progress=None, home=None,
  options=None, samples=3) -> BacktestResult``; ``BacktestOptions`` (frozen).
- ``BacktestResult`` / ``RuleSummary`` / ``SessionOutcome`` / ``Hit``; ``write_results(result, out_dir)``.
- ``backtest_session(path, rules, options)`` — one task; ``load_rule_set(rules)``.
- ``compare_backtests(base, draft)`` — two runs over the same corpus: per (session, rule, turn) what
  newly fires, stops firing or changes interrupt behaviour; ``format_comparison`` / ``changed``.
"""

from __future__ import annotations

from workbench.backtest.compare import changed, compare_backtests, format_comparison
from workbench.backtest.results import BacktestResult, Hit, RuleSummary, SessionOutcome, aggregate, write_results
from workbench.backtest.run import (
    BacktestOptions,
    backtest_batch,
    backtest_session,
    load_rule_set,
    run_backtest,
)

__all__ = [
    "BacktestOptions",
    "BacktestResult",
    "Hit",
    "RuleSummary",
    "SessionOutcome",
    "aggregate",
    "backtest_batch",
    "backtest_session",
    "changed",
    "compare_backtests",
    "format_comparison",
    "load_rule_set",
    "run_backtest",
    "write_results",
]
