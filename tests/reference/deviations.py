"""Known differences between the workbench and the reference run under Bun (tests/reference/).

The generated cases have no stable names, so a deviation is a predicate over a case: a case on
which the two sides disagree is excused (reported as xfail with the reason) only when some entry
here claims it. ``test_every_deviation_is_observed`` fails when an entry no longer explains any
disagreement, so a fixed deviation must be removed from this list. The README lists the same
entries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Deviation:
    key: str
    reason: str
    applies: Callable[[dict[str, Any]], bool]


def _ops(case: dict[str, Any], *kinds: str) -> list[dict[str, Any]]:
    return [op for op in case.get("ops", []) if op["op"] in kinds]


def _texts(case: dict[str, Any]) -> str:
    return "".join(
        op.get("delta", "") + op.get("snapshot", "") + op.get("content", "") for op in case.get("ops", [])
    )


def _conditions(case: dict[str, Any]) -> list[str]:
    rules = [op["rule"] for op in _ops(case, "addRule")] + [
        r for op in _ops(case, "replaceRules") for r in op["rules"]
    ]
    return [c for r in rules for c in r.get("condition", [])]


def _restores(case: dict[str, Any]) -> bool:
    return bool(_ops(case, "restoreInjected"))


DEVIATIONS: list[Deviation] = [
    Deviation(
        "engine.restore-injected-merges",
        "restoreInjected: the workbench follows the reference its conformance cases came from "
        "(spec/ttsr-manager-oracle-notes.md §5: the name list REPLACES every record, known names keep "
        "their position). 18.3.4 merges instead: each listed name gets lastInjectedAt 0 (an existing "
        "record is overwritten in place, keeping its order) and the other records stay.",
        _restores,
    ),
]


def _judged_yes(case: dict[str, Any]) -> bool:
    return case.get("judge") == "yes" and any("question" in r.get("frontmatter", {}) for r in case.get("rules", []))


# The coordinator suite (test_coordinator.py): differences between the workbench's replay and the
# reference's TtsrCoordinator driven by the fake host of harness/coordinator_oracle.ts.
COORDINATOR_DEVIATIONS: list[Deviation] = [
    Deviation(
        "replay.judged-verdict-order",
        "The coordinator judges a finished message's outputs concurrently, one request each, and a rule "
        "flagged on several outputs is claimed by the verdict that arrives first, which depends on the "
        "judge's latency (here, on how many awaits each output's candidate check takes). The workbench "
        "takes the verdicts in output order (tool calls, reply, reasoning), so such a rule's warning can "
        "name another output (its subject) and group differently.",
        _judged_yes,
    ),
]


# The capability suite (test_capability.py): differences between the workbench's rule discovery and
# settings layers and the reference's rule capability and settings loader (harness/capability_oracle.ts).
def _seed_layout(case: dict[str, Any]) -> bool:
    return any("/.xcsh/" in path for path in case.get("files", {}))


CAPABILITY_DEVIATIONS: list[Deviation] = [
    Deviation(
        "capability.xcsh-seed-layout",
        "The seeds keep their rules and settings under `.xcsh` (the layout of the agent they came from); "
        "18.3.4 reads only `.omp`. The workbench reads `.xcsh` too, one step below `.omp` of the same "
        "level (an `.omp` namesake shadows it), so that the seeds stay usable (docs/agent-settings.md).",
        _seed_layout,
    ),
]
