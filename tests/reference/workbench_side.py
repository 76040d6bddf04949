"""The workbench's answers to the harness's case formats (``harness/oracle.ts``), op for op.

Each op calls the workbench method of the same meaning (CONTRACT §1) and turns the answer into
the JSON the harness returns, so the two sides compare with ``==``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from workbench.rules import Rule
from workbench.ttsr import MatchContext, TtsrManager

_FIELDS = {f.name for f in dataclasses.fields(Rule)}
_RULE_KEYS = {
    "name": "name", "path": "path", "content": "content", "globs": "globs", "alwaysApply": "always_apply",
    "description": "description", "condition": "condition", "astCondition": "ast_condition",
    "scope": "scope", "interruptMode": "interrupt_mode", "question": "question",
}


def rule_from_json(data: dict[str, Any]) -> Rule:
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        field = _RULE_KEYS[key]
        if field not in _FIELDS:
            raise NotImplementedError(f"workbench Rule has no field {field!r}")
        kwargs[field] = tuple(value) if isinstance(value, list) else value
    return Rule(**kwargs)


def ctx_from_json(data: dict[str, Any]) -> MatchContext:
    return MatchContext.from_mapping(data)


def _names(rules: list[Any]) -> list[str]:
    return [r.name for r in rules]


def _by_names(manager: TtsrManager, wanted: list[str]) -> list[Any]:
    registered = {r.name: r for r in manager.get_rules()}
    return [registered.get(n) or Rule(name=n, path=f"{n}.md", content="") for n in wanted]


def _number(value: Any) -> Any:
    # JSON has one number type: 3.0 and 3 are the same answer.
    return int(value) if isinstance(value, float) and value.is_integer() else value


def run_op(manager: TtsrManager, op: dict[str, Any]) -> Any:
    kind = op["op"]
    if kind == "addRule":
        return manager.add_rule(rule_from_json(op["rule"]))
    if kind == "checkDelta":
        return _names(manager.check_delta(op["delta"], ctx_from_json(op["ctx"])))
    if kind == "checkSnapshot":
        return _names(manager.check_snapshot(op["snapshot"], ctx_from_json(op["ctx"])))
    if kind == "checkAstSnapshot":
        return _names(manager.check_ast_snapshot(op["snapshot"], ctx_from_json(op["ctx"])))
    if kind == "hasAstRules":
        return manager.has_ast_rules()
    if kind == "judgedCandidates":
        return [[c.rule.name, c.question] for c in manager.judged_candidates(op["content"], ctx_from_json(op["ctx"]))]
    if kind == "claim":
        return _names(manager.claim(_by_names(manager, op["names"])))
    if kind == "markInjected":
        manager.mark_injected(_by_names(manager, op["names"]))
        return None
    if kind == "markInjectedByNames":
        manager.mark_injected_by_names(op["names"])
        return None
    if kind == "restoreInjected":
        manager.restore_injected(op["names"])
        return None
    if kind == "replaceRules":
        return sorted(manager.replace_rules([rule_from_json(r) for r in op["rules"]]))
    if kind == "incrementMessageCount":
        manager.increment_message_count()
        return None
    if kind == "resetBuffer":
        manager.reset_buffer()
        return None
    if kind == "getInjectedRuleNames":
        return manager.get_injected_rule_names()
    if kind == "getMessageCount":
        return _number(manager.get_message_count())
    if kind == "getRules":
        return _names(manager.get_rules())
    if kind == "hasRules":
        return manager.has_rules()
    if kind == "hasJudgedRules":
        return manager.has_judged_rules()
    raise ValueError(f"unknown op {kind!r}")


def run_engine(case: dict[str, Any]) -> dict[str, Any]:
    manager = TtsrManager(case.get("settings"))
    out = [run_op(manager, op) for op in case["ops"]]
    warnings = [{"message": d.message, "context": dict(d.context)} for d in manager.diagnostics]
    return {"out": out, "warnings": warnings}


def comparable_warnings(warnings: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Message and context, minus ``error`` (each engine words its own regex errors; CONTRACT §1)."""
    return [(w["message"], {k: v for k, v in w["context"].items() if k != "error"}) for w in warnings]
