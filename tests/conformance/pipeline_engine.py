"""rules-pipeline.json handlers for the engine layer: kind -> fn(case, whole_file).

Kinds: ``compile_rule_condition``, ``manager_sequence`` and ``build_rule_then_manager``. Steps name
rules by the case's local keys (``$built`` = the rule the build step produced). ``editStrategy``
steps call the tool-surface helpers (``tests/conformance/pipeline_tools.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from workbench.errors import InputError
from workbench.ttsr import MatchContext, TtsrManager, compile_rule_condition


def _names(rules: Any) -> list[str]:
    return [r.name for r in rules]


def _ctx(data: Mapping[str, Any]) -> MatchContext:
    return MatchContext.from_mapping(dict(data))


def _resolve(ref: Any, rules: Mapping[str, Any]) -> Any:
    if isinstance(ref, str) and ref in rules:
        return rules[ref]
    if isinstance(ref, Mapping):
        from tests.conformance.pipeline_rules import rule_from_js

        return rule_from_js(ref)
    raise AssertionError(f"unknown rule reference {ref!r}")


def run_step(mgr: TtsrManager, step: Mapping[str, Any], rules: Mapping[str, Any]) -> Any:
    """One manager step; an op this runner does not know fails the case."""
    op = step["op"]
    if op == "addRule":
        return mgr.add_rule(_resolve(step["rule"], rules))
    if op == "checkDelta":
        return _names(mgr.check_delta(step["delta"], _ctx(step["context"])))
    if op == "checkSnapshot":
        return _names(mgr.check_snapshot(step["snapshot"], _ctx(step["context"])))
    if op == "checkAstSnapshot":
        return _names(mgr.check_ast_snapshot(step["snapshot"], _ctx(step["context"])))
    if op == "markInjected":
        refs = step.get("rules", step.get("names", []))
        mgr.mark_injected([rules[r] if isinstance(r, str) and r in rules else {"name": r} for r in refs])
        return None
    if op == "markInjectedByNames":
        mgr.mark_injected_by_names(step["names"])
        return None
    if op == "restoreInjected":
        mgr.restore_injected(step["names"], step.get("positions"))
        return None
    if op == "incrementMessageCount":
        mgr.increment_message_count()
        return None
    if op == "rewindMessageCount":
        mgr.rewind_message_count(step["count"])
        return None
    if op == "resetBuffer":
        mgr.reset_buffer()
        return None
    if op == "hasRules":
        return mgr.has_rules()
    if op == "hasAstRules":
        return mgr.has_ast_rules()
    if op == "getRules":
        return _names(mgr.get_rules())
    if op == "getInjectedRuleNames":
        return mgr.get_injected_rule_names()
    if op == "getInjectionGaps":
        return {n: {"gap": g.gap, "journalCoords": g.journal_coords} for n, g in mgr.get_injection_gaps().items()}
    if op == "getMessageCount":
        return mgr.get_message_count()
    if op == "getSettings":
        return mgr.get_settings().to_mapping()
    if op == "editStrategy":
        from tests.conformance.pipeline_tools import edit_strategy

        return edit_strategy(step["mode"], step["method"], step.get("args"))
    pytest.fail(f"unknown manager op {op!r}")


def _run_steps(settings: Any, steps: list, rules: Mapping[str, Any]) -> None:
    mgr = TtsrManager(settings)
    for index, step in enumerate(steps):
        got = run_step(mgr, step, rules)
        if "expect" in step:
            assert got == step["expect"], f"step {index} ({step['op']}): {got!r} != {step['expect']!r}"


def run_manager_sequence(case: dict, whole: dict) -> None:
    from tests.conformance.pipeline_rules import rule_from_js

    inp = case["input"]
    rules = {key: rule_from_js(spec) for key, spec in (inp.get("rules") or {}).items()}
    _run_steps(inp.get("settings"), inp["steps"], rules)


def run_build_rule_then_manager(case: dict, whole: dict) -> None:
    from tests.conformance.pipeline_rules import (
        _assert_partial,
        _build,
        rule_from_js,
        rule_to_js,
    )

    inp = case["input"]
    built = _build(inp)
    expected_rule = (case.get("expected") or {}).get("rule")
    if expected_rule:
        _assert_partial(rule_to_js(built), expected_rule, case.get("id") or case["name"])
    rules = {key: rule_from_js(spec) for key, spec in (inp.get("rules") or {}).items()}
    rules["$built"] = built
    _run_steps(inp.get("settings"), inp.get("steps") or [], rules)


def run_compile_rule_condition(case: dict, whole: dict) -> None:
    expected = case["expected"]
    pattern = case["input"]["pattern"]
    if expected.get("error"):
        with pytest.raises(InputError):
            compile_rule_condition(pattern)
        return
    compiled = compile_rule_condition(pattern)
    assert set(compiled.flags) == set(expected.get("flags", ""))
    for text, want in expected.get("tests", []):
        assert compiled.test(text) is want, f"{pattern!r} on {text!r}"


HANDLERS: dict = {
    "compile_rule_condition": run_compile_rule_condition,
    "manager_sequence": run_manager_sequence,
    "build_rule_then_manager": run_build_rule_then_manager,
}
