"""TtsrManager, differential: generated rules and streams through the reference and the workbench.

Engine cases: rules with JS-regex conditions (leading-flag translation, Annex B syntax, invalid
patterns), scopes, globs, repeat modes and gaps, then deltas, snapshots, injection marks, turn
counts, buffer resets and restores as the agent issues them; every answer and every warning is
compared. Judged cases (reference 18.3, CONTRACT §1): judged rules among stream rules, candidates
per completed output, claims and hot reloads. AST cases: ast-grep conditions on edit/write
snapshots (language from the path, the throttle, scopes, globs, repeat gates), with judged rules
pre-filtered by them in the judged variant; the oracle matches with @ast-grep/napi (see
harness/shims/pi-natives.ts), so AST cases use the languages it has built in.
"""

from __future__ import annotations

import pytest

from tests.reference.deviations import DEVIATIONS
from tests.reference.differential import Suite, ops_differ
from tests.reference.generate import ast_case, engine_case, judged_case
from tests.reference.workbench_side import run_engine

ENGINE_CASES = 1500
JUDGED_CASES = 250
AST_CASES = 300

ENGINE = Suite("engine", [engine_case(seed) for seed in range(ENGINE_CASES)], run_engine, ops_differ)
JUDGED = Suite("judged", [judged_case(10_000 + seed) for seed in range(JUDGED_CASES)], run_engine, ops_differ)
AST = Suite("ast", [ast_case(30_000 + seed) for seed in range(AST_CASES)], run_engine, ops_differ)
JUDGED_AST = Suite("judged-ast", [ast_case(40_000 + seed, judged=True) for seed in range(AST_CASES)],
                   run_engine, ops_differ)

@pytest.mark.parametrize("index", range(ENGINE_CASES))
def test_engine_case(oracle, index):
    ENGINE.check(oracle, index)


@pytest.mark.parametrize("index", range(JUDGED_CASES))
def test_judged_case(oracle, index):
    JUDGED.check(oracle, index)


@pytest.mark.parametrize("index", range(AST_CASES))
def test_ast_case(oracle, index):
    AST.check(oracle, index)


@pytest.mark.parametrize("index", range(AST_CASES))
def test_judged_ast_case(oracle, index):
    JUDGED_AST.check(oracle, index)


def test_every_deviation_is_observed(oracle):
    """A listed deviation that explains no disagreement any more is stale: remove it."""
    claimed = {v.deviation.key for suite in (ENGINE, AST) for v in suite.run(oracle) if v.deviation is not None}
    keys = {d.key for d in DEVIATIONS}
    assert keys - claimed == set(), f"deviations no generated case shows any more: {keys - claimed}"


def test_generated_cases_reach_matches(oracle):
    """The generator is worth running only if the reference actually fires rules on it."""
    refs = oracle.run(ENGINE.cases[:100])
    fired = sum(1 for case, ref in zip(ENGINE.cases, refs) for op, answer in zip(case["ops"], ref["out"])
                if op["op"] in ("checkDelta", "checkSnapshot") and answer)
    warned = sum(len(ref["warnings"]) for ref in refs)
    assert fired > 100 and warned > 20, (fired, warned)
