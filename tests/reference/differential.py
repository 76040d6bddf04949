"""One differential suite: the same generated cases through the reference and the workbench.

A suite runs its whole batch once per session (one Bun process), then each case is one test id
that passes when both answers are equal, is an xfail when they differ in a way a listed deviation
claims, and fails otherwise with the first differing step.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.reference import conftest
from tests.reference.deviations import DEVIATIONS, Deviation
from tests.reference.oracle import Oracle


@dataclass(frozen=True, slots=True)
class Verdict:
    same: bool
    detail: str
    deviation: Deviation | None
    missing: bool = False  # the workbench on this branch lacks the feature (the test is marked xfail)


def _short(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass
class Suite:
    name: str
    cases: list[dict[str, Any]]
    ours: Callable[[dict[str, Any]], dict[str, Any]]
    # reference result, our result -> None when equal, else where they first differ
    differ: Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], str | None]
    verdicts: list[Verdict] | None = field(default=None)
    # How the reference answers the batch (default: harness/oracle.ts) and which deviations may excuse
    # a difference (default: the engine's list).
    reference: Callable[[Oracle, list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    deviations: list[Deviation] = field(default_factory=lambda: DEVIATIONS)

    def run(self, oracle: Oracle) -> list[Verdict]:
        if self.verdicts is None:
            refs = self.reference(oracle, self.cases) if self.reference is not None else oracle.run(self.cases)
            verdicts = []
            for case, ref in zip(self.cases, refs):
                if "error" in ref:
                    verdicts.append(Verdict(False, f"the reference threw: {ref['error']}", None))
                    continue
                try:
                    ours = self.ours(case)
                except (NotImplementedError, AttributeError) as exc:
                    verdicts.append(Verdict(False, f"the workbench lacks the feature: {exc}", None, missing=True))
                    continue
                except Exception as exc:  # noqa: BLE001 - reported as this case's failure
                    verdicts.append(Verdict(False, f"the workbench raised {exc!r}", None))
                    continue
                where = self.differ(case, ref, ours)
                claim = next((d for d in self.deviations if d.applies(case)), None) if where else None
                verdicts.append(Verdict(where is None, where or "", claim))
            self.verdicts = verdicts
            agree = sum(v.same for v in verdicts)
            excused = sum(1 for v in verdicts if not v.same and v.deviation is not None)
            missing = sum(v.missing for v in verdicts)
            conftest.AGREEMENT[self.name] = (len(verdicts), agree, excused, missing)
        return self.verdicts

    def check(self, oracle: Oracle, index: int) -> None:
        verdict = self.run(oracle)[index]
        if verdict.same:
            return
        if verdict.deviation is not None:
            pytest.xfail(f"{verdict.deviation.key}: {verdict.deviation.reason}")
        pytest.fail(f"{self.name} case {index} differs from the reference: {verdict.detail}", pytrace=False)


def ops_differ(case: dict[str, Any], ref: dict[str, Any], ours: dict[str, Any]) -> str | None:
    """The first op whose answers differ, else the first differing warning, else None."""
    from tests.reference.workbench_side import comparable_warnings

    for i, (op, a, b) in enumerate(zip(case["ops"], ref["out"], ours["out"])):
        if a != b:
            return f"op {i} {_short(op)}: reference {_short(a)}, workbench {_short(b)}"
    if len(ref["out"]) != len(ours["out"]):
        return f"{len(ref['out'])} answers from the reference, {len(ours['out'])} from the workbench"
    wr, wo = comparable_warnings(ref["warnings"]), comparable_warnings(ours["warnings"])
    if wr != wo:
        return f"warnings: reference {_short(wr)}, workbench {_short(wo)}"
    return None
