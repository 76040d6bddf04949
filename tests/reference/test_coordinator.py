"""TtsrCoordinator, differential: generated sessions through the reference's coordinator and the replay.

The reference side is oh-my-pi 18.3.4's own ``TtsrCoordinator`` (``session/ttsr-coordinator.ts``), its
``TtsrToolInspector`` (``session/ttsr-outputs.ts``), ``TtsrManager`` and ``bucketRules``, driven by the
fake host of ``harness/coordinator_oracle.ts``; the workbench side is ``SimulatedSession``
(``workbench.replay``) on the same stream. Cases (``generate_coordinator.py``): every edit mode and the
write tool, ``agents:`` rules for main/sub/named agents, ast-grep and judged rules (a judge answering
yes or no, or none), interrupt, context and repeat modes, disabled and bundled rules, aborted and failed
messages; a few sessions where an ast-grep pattern is complete mid-call (it must fire only at
``toolcall_end``, as the agent checks AST conditions on the finished call); and a few built for the
listed deviation (judged rules flagged on several outputs of one message). Compared step by step:
every ``ttsr_triggered``, abort (its reason and the call it is scoped to), retry and its injection,
per-tool reminder, deferred delivery, judged-rule warning (delivered as an aside),
each finished message's outputs (what judged rules and ``/omfg`` read), the "Injecting rule: …" notices
(pi-tui's own component), and the final state (injected names, turn count, registered rules, session
entries, the model's context).
"""

from __future__ import annotations

import pytest

from tests.reference.deviations import COORDINATOR_DEVIATIONS
from tests.reference.differential import Suite, _short
from tests.reference.generate_coordinator import HOME, ast_early_case, coordinator_case, judged_order_case
from tests.reference.oracle import Oracle
from tests.reference.workbench_coordinator import agent_templates, comparable_reference, run_workbench

GENERATED = 600
EARLY_AST = 5
JUDGED_ORDER = 5
CASES = GENERATED + EARLY_AST + JUDGED_ORDER
_TEMPLATES: dict[str, str] = {}
_ANSWERS: dict[int, list[dict]] = {}  # id(cases) -> the reference's answers (one Bun run per session)


def _reference(oracle: Oracle, cases: list[dict]) -> list[dict]:
    _TEMPLATES.update(agent_templates(oracle.agent))
    if id(cases) not in _ANSWERS:
        # HOME is the cases' home folder: the coordinator shows rule paths under it as ~/…
        _ANSWERS[id(cases)] = oracle.run(cases, script="coordinator_oracle.ts", env_extra={"HOME": HOME})
    return _ANSWERS[id(cases)]


def _ours(case: dict) -> dict:
    return run_workbench(case, _TEMPLATES)


def _differ(case: dict, ref: dict, ours: dict) -> str | None:
    want = comparable_reference(ref, _TEMPLATES)
    for key in ("events", "outputs", "notices"):
        if want[key] != ours[key]:
            for i, (a, b) in enumerate(zip(want[key], ours[key])):
                if a != b:
                    return f"{key}[{i}]: reference {_short(a)}, workbench {_short(b)}"
            return f"{key}: reference has {len(want[key])}, workbench {len(ours[key])}: {_short(want[key][-1:] or ours[key][-1:])}"
    for key, value in want["final"].items():
        if ours["final"][key] != value:
            return f"final {key}: reference {_short(value)}, workbench {_short(ours['final'][key])}"
    return None


COORDINATOR = Suite("coordinator", [coordinator_case(seed) for seed in range(GENERATED)]
                    + [ast_early_case(90_000 + seed) for seed in range(EARLY_AST)]
                    + [judged_order_case(95_000 + seed) for seed in range(JUDGED_ORDER)], _ours, _differ,
                    reference=_reference, deviations=COORDINATOR_DEVIATIONS)


@pytest.mark.parametrize("index", range(CASES))
def test_coordinator_case(oracle, index):
    COORDINATOR.check(oracle, index)


def test_every_coordinator_deviation_is_observed(oracle):
    """A listed deviation that explains no disagreement any more is stale: remove it."""
    claimed = {v.deviation.key for v in COORDINATOR.run(oracle) if v.deviation is not None}
    keys = {d.key for d in COORDINATOR_DEVIATIONS}
    assert keys - claimed == set(), f"deviations no generated case shows any more: {keys - claimed}"


def test_generated_sessions_reach_every_decision(oracle):
    """The cases are worth comparing only if the reference takes each path on them: aborts of prose and
    of tool calls, retries with an injection, per-tool reminders, deferred deliveries, merged notices,
    and firings under every edit mode."""
    COORDINATOR.run(oracle)
    refs = _reference(oracle, COORDINATOR.cases)
    seen: dict[str, int] = {}
    for case, ref in zip(COORDINATOR.cases, refs):
        for ev in ref["events"]:
            kind = ev["type"] + ("-tool" if ev.get("toolCallId") else "") if ev["type"] == "abort" else ev["type"]
            seen[kind] = seen.get(kind, 0) + 1
            if ev["type"] == "ttsr_triggered":
                seen[f"fires:{case['editMode']}"] = seen.get(f"fires:{case['editMode']}", 0) + 1
        seen["multi-rule notice"] = seen.get("multi-rule notice", 0) + sum(
            1 for n in ref["notices"] if n["text"].startswith("Injecting ") and " rules:" in n["text"].split("\n")[0])
    wanted = ["abort", "abort-tool", "retry", "reminder", "injection", "aside", "multi-rule notice",
              *(f"fires:{m}" for m in ("hashline", "apply_patch", "patch", "replace", "sloppy"))]
    thin = {k: seen.get(k, 0) for k in wanted if seen.get(k, 0) < 5}
    assert not thin, thin
