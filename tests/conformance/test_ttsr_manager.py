"""Runner for ``ttsr-manager.json`` (format: spec/ttsr-manager-oracle-notes.md §3).

Normative per step: ``expect``, each warning's ``message`` and its ``context`` minus ``error``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance._data import load, param
from workbench.rules import Rule
from workbench.ttsr import MatchContext, TtsrManager

FILENAME = "ttsr-manager.json"


def _cases() -> list[Any]:
    return [param(FILENAME, case["name"], case) for case in load(FILENAME)["cases"]]


def build_rule(spec: dict[str, Any]) -> Rule:
    """A ``Rule`` holding only the listed fields; path/content are dummies the manager never reads."""

    def opt(key: str) -> Any:
        value = spec.get(key)
        return tuple(value) if isinstance(value, list) else value

    return Rule(
        name=spec.get("name"),  # type: ignore[arg-type]
        path="/dev/null/rule.md",
        content="",
        condition=opt("condition"),
        ast_condition=opt("astCondition"),
        scope=opt("scope"),
        globs=opt("globs"),
    )


def names(rules: list[Any]) -> list[str]:
    return [r.name for r in rules]


def run_step(mgr: TtsrManager, step: dict[str, Any], rules: list[Rule]) -> Any:
    """Execute one step; returns the value to compare with ``expect``. Unknown op -> failure."""
    op = step["op"]
    if op == "addRule":
        return mgr.add_rule(rules[step["rule"]])
    if op == "checkDelta":
        return names(mgr.check_delta(step["delta"], MatchContext.from_mapping(step["context"])))
    if op == "checkSnapshot":
        return names(mgr.check_snapshot(step["snapshot"], MatchContext.from_mapping(step["context"])))
    if op == "checkAstSnapshot":
        return names(mgr.check_ast_snapshot(step["snapshot"], MatchContext.from_mapping(step["context"])))
    if op == "hasRules":
        return mgr.has_rules()
    if op == "hasAstRules":
        return mgr.has_ast_rules()
    if op == "markInjected":
        mgr.mark_injected([{"name": n} for n in step["names"]])
        return None
    if op == "markInjectedByNames":
        mgr.mark_injected_by_names(step["names"])
        return None
    if op == "incrementMessageCount":
        mgr.increment_message_count()
        return None
    if op == "resetBuffer":
        mgr.reset_buffer()
        return None
    if op == "restoreInjected":
        mgr.restore_injected(step["names"], step.get("positions"))
        return None
    if op == "rewindMessageCount":
        mgr.rewind_message_count(step["count"])
        return None
    if op == "getInjectedRuleNames":
        return mgr.get_injected_rule_names()
    if op == "getRules":
        return names(mgr.get_rules())
    if op == "getInjectionGaps":
        return [
            {"name": name, "gap": gap.gap, "journalCoords": gap.journal_coords}
            for name, gap in mgr.get_injection_gaps().items()
        ]
    if op == "getMessageCount":
        return mgr.get_message_count()
    if op == "getSettings":
        return mgr.get_settings().to_mapping()
    pytest.fail(f"unknown op {op!r}")


def _warnings(diags: list[Any]) -> list[dict[str, Any]]:
    return [
        {"message": d.message, "context": {k: v for k, v in d.context.items() if k != "error"}} for d in diags
    ]


@pytest.mark.parametrize("case", _cases())
def test_case(case: dict[str, Any]) -> None:
    rules = [build_rule(r) for r in case.get("rules") or []]
    mgr = TtsrManager(case["settings"])
    for index, step in enumerate(case["steps"]):
        before = len(mgr.diagnostics)
        got = run_step(mgr, step, rules)
        where = f"step {index} ({step['op']})"
        if "expect" in step:
            assert got == step["expect"], where
        expected_warnings = [
            {"message": w["message"], "context": {k: v for k, v in w["context"].items() if k != "error"}}
            for w in step.get("warnings") or []
        ]
        assert _warnings(mgr.diagnostics[before:]) == expected_warnings, where
