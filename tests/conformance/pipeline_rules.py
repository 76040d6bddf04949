"""rules-pipeline.json handlers for the rules layer: kind -> fn(case, whole_file).

Cases speak the reference's JavaScript shapes (camelCase fields, ``_source``, ``null`` = absent);
the helpers below translate them to ``workbench.rules`` objects and back.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from workbench.rules import (
    Rule,
    RuleSource,
    bucket_rules,
    build_rule_from_markdown,
    load_rules,
    parse_frontmatter,
    parse_rule_condition_and_scope,
)

_RULE_FIELDS = {
    "name": "name",
    "path": "path",
    "content": "content",
    "globs": "globs",
    "alwaysApply": "always_apply",
    "description": "description",
    "condition": "condition",
    "astCondition": "ast_condition",
    "scope": "scope",
    "interruptMode": "interrupt_mode",
}


def source_from_js(data: Mapping[str, Any] | None) -> RuleSource | None:
    if data is None:
        return None
    return RuleSource(
        provider=data.get("provider", ""),
        provider_name=data.get("providerName", ""),
        path=data.get("path", ""),
        level=data.get("level", "project"),
    )


def rule_from_js(data: Mapping[str, Any]) -> Rule:
    kwargs = {py: data[js] for js, py in _RULE_FIELDS.items() if js in data and data[js] is not None}
    return Rule(source=source_from_js(data.get("_source")), **kwargs)


def _js_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_js_value(v) for v in value]
    if isinstance(value, list):
        return [_js_value(v) for v in value]
    return value


def rule_to_js(rule: Rule) -> dict[str, Any]:
    """The rule as the reference object; absent fields are ``None``."""
    out: dict[str, Any] = {js: _js_value(getattr(rule, py)) for js, py in _RULE_FIELDS.items()}
    src = rule.source
    out["_source"] = (
        None
        if src is None
        else {"provider": src.provider, "providerName": src.provider_name, "path": src.path, "level": src.level}
    )
    return out


def _lookup(obj: Mapping[str, Any], dotted: str) -> Any:
    value: Any = obj
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _assert_partial(actual: Mapping[str, Any], expected: Mapping[str, Any], where: str) -> None:
    for key, want in expected.items():
        for suffix, check in (("_contains", lambda got, w: w in got), ("_endswith", lambda got, w: got.endswith(w))):
            if key.endswith(suffix) and key[: -len(suffix)] in actual:
                got = actual.get(key[: -len(suffix)]) or ""
                assert check(got, want), f"{where}: {key[: -len(suffix)]} = {got!r} fails {key} {want!r}"
                break
        else:
            got = _lookup(actual, key)
            assert got == want, f"{where}: {key} = {got!r}, expected {want!r}"
        continue


def _matches(actual: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    try:
        _assert_partial(actual, expected, "")
    except AssertionError:
        return False
    return True


# --- parse_condition_scope ---------------------------------------------------------------------


def _condition_scope_js(frontmatter: Mapping[str, Any]) -> dict[str, Any]:
    parsed = parse_rule_condition_and_scope(frontmatter)
    return {
        "condition": _js_value(parsed.condition),
        "astCondition": _js_value(parsed.ast_condition),
        "scope": _js_value(parsed.scope),
    }


def run_parse_condition_scope(case: dict, whole: dict) -> None:
    inp, exp = case["input"], case["expected"]
    if "calls" in inp:
        assert len(inp["calls"]) == len(exp["results"])
        for i, (call, want) in enumerate(zip(inp["calls"], exp["results"], strict=True)):
            _assert_partial(_condition_scope_js(call["frontmatter"]), want, f"call {i}")
    else:
        _assert_partial(_condition_scope_js(inp["frontmatter"]), exp, case["id"])


# --- frontmatter -------------------------------------------------------------------------------

_OPTION_NAMES = {"source": "source", "location": "source", "fallback": "fallback", "normalize": "normalize",
                 "level": "level", "repair": "repair", "rawKeys": "raw_keys"}


def run_frontmatter(case: dict, whole: dict) -> None:
    inp, exp = case["input"], case["expected"]
    unknown = set(exp) - {"frontmatter", "body", "warned", "warning_mentions", "throws", "error"}
    assert not unknown, f"this runner does not know expectation(s) {sorted(unknown)}"
    options = {_OPTION_NAMES[k]: v for k, v in (inp.get("options") or {}).items()}
    if exp.get("throws") or exp.get("error"):
        with pytest.raises(Exception):  # noqa: B017 - the case says only that the reference throws
            parse_frontmatter(inp["content"], **options)
        return
    result = parse_frontmatter(inp["content"], **options)
    if "frontmatter" in exp:
        assert result.frontmatter == exp["frontmatter"]
    if "body" in exp:
        assert result.body == exp["body"]
    if "warned" in exp:
        assert result.warned == exp["warned"], result.warnings
    if "warning_mentions" in exp:
        assert any(exp["warning_mentions"] in w for w in result.warnings), result.warnings


# --- build_rule_from_markdown ------------------------------------------------------------------


def _build(inp: Mapping[str, Any]) -> Rule:
    options = inp.get("options") or {}
    kwargs: dict[str, Any] = {}
    if "ruleName" in options:
        kwargs["rule_name"] = options["ruleName"]
    if "stripNamePattern" in options:
        pattern = options["stripNamePattern"]
        literal = re.fullmatch(r"/(.*)/([a-z]*)", pattern)  # a JS regex literal written as a string
        kwargs["strip_name_pattern"] = literal.group(1) if literal else pattern
    return build_rule_from_markdown(
        inp["name"], inp["content"], inp["filePath"], source_from_js(inp.get("source")), **kwargs
    )


def run_build_rule_from_markdown(case: dict, whole: dict) -> None:
    rule = rule_to_js(_build(case["input"]))
    _assert_partial(rule, case["expected"]["rule"], case["id"])


# --- bucket_rules ------------------------------------------------------------------------------


def _manager(settings: Mapping[str, Any] | None) -> Any:
    from workbench.ttsr import TtsrManager

    return TtsrManager(settings)


def _context(data: Mapping[str, Any]) -> Any:
    from workbench.ttsr import MatchContext

    return MatchContext(
        source=data["source"],
        tool_name=data.get("toolName"),
        file_paths=data.get("filePaths"),
        stream_key=data.get("streamKey"),
    )


def _names(rules: Any) -> list[str]:
    return [r.name for r in rules]


_AFTER_OPS: dict[str, Callable[[Any, dict], Any]] = {
    "hasRules": lambda m, s: m.has_rules(),
    "hasAstRules": lambda m, s: m.has_ast_rules(),
    "getRules": lambda m, s: _names(m.get_rules()),
    "getInjectedRuleNames": lambda m, s: list(m.get_injected_rule_names()),
    "getMessageCount": lambda m, s: m.get_message_count(),
    "incrementMessageCount": lambda m, s: m.increment_message_count(),
    "resetBuffer": lambda m, s: m.reset_buffer(),
    "markInjectedByNames": lambda m, s: m.mark_injected_by_names(s["names"]),
    "checkDelta": lambda m, s: _names(m.check_delta(s["delta"], _context(s["context"]))),
    "checkSnapshot": lambda m, s: _names(m.check_snapshot(s["snapshot"], _context(s["context"]))),
}


def _bucket_once(run: Mapping[str, Any], rules_data: list, expected: Mapping[str, Any]) -> None:
    manager = _manager(run.get("settings"))
    options = run.get("options") or {}
    unknown = set(options) - {"disabledRules", "builtinRules"}
    assert not unknown, f"bucket option(s) not in the target: {sorted(unknown)}"
    buckets = bucket_rules(
        [rule_from_js(r) for r in rules_data],
        manager,
        disabled_rules=options.get("disabledRules") or (),
        builtin_rules=options.get("builtinRules", True) is not False,
    )
    if "rulebook" in expected:
        assert _names(buckets.rulebook_rules) == expected["rulebook"]
    if "alwaysApply" in expected:
        assert _names(buckets.always_apply_rules) == expected["alwaysApply"]
    if "ttsr" in expected:
        assert _names(buckets.ttsr_rules) == expected["ttsr"]
    for step in run.get("after") or ():
        op = _AFTER_OPS.get(step["op"])
        assert op is not None, f"unknown after-step op {step['op']!r}"
        got = op(manager, step)
        if "expect" in step:
            assert got == step["expect"], f"{step['op']}: {got!r} != {step['expect']!r}"


def run_bucket_rules(case: dict, whole: dict) -> None:
    inp, exp = case["input"], case["expected"]
    if "runs" in inp:
        results = exp.get("runs") or exp.get("results") or []
        assert len(results) == len(inp["runs"])
        for run, want in zip(inp["runs"], results, strict=True):
            merged = {"settings": inp.get("settings"), **run}
            _bucket_once(merged, run.get("rules", inp.get("rules", [])), want)
        return
    _bucket_once(inp, inp["rules"], exp)


# --- discovery ---------------------------------------------------------------------------------


def _write_tree(root: Path, files: Mapping[str, Any]) -> None:
    for rel, content in files.items():
        target = root / rel
        if content is None or rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def _discover(tmp: Path, inp: Mapping[str, Any], providers: list[str] | None) -> Any:
    """The case layout: T/home, T/project (a git root), agent dir T/home/.omp/agent unless the input says."""
    home = tmp / inp.get("home", "home")
    project = tmp / "project"
    home.mkdir(parents=True, exist_ok=True)
    (project / ".git").mkdir(parents=True, exist_ok=True)
    _write_tree(tmp, inp.get("files") or {})
    cwd = tmp / inp.get("cwd", "project")
    cwd.mkdir(parents=True, exist_ok=True)
    env = {k: str(v).replace("$T", str(tmp)) for k, v in (inp.get("env") or {}).items()}
    return load_rules(
        cwd=cwd,
        home=home,
        repo_root=tmp / inp.get("repoRoot", "project"),
        agent_dir=tmp / inp.get("agentDir", "home/.omp/agent"),
        env=env,
        providers=providers,
    )


def _with_temp(value: Any, tmp: Path) -> Any:
    if isinstance(value, str):
        for marker in ("$T", "{T}", "<T>"):
            value = value.replace(marker, str(tmp))
    return value


def _check_discovery(result: Any, tmp: Path, exp: Mapping[str, Any], case_id: str) -> None:
    unknown = set(exp) - {"all", "all_names", "contains", "absent", "not_contains", "names", "count", "shadowed",
                          "warnings", "warnings_contain"}
    assert not unknown, f"{case_id}: this runner does not know expectation(s) {sorted(unknown)}"
    # A survivor has no `_shadowed` key in the reference; a case may spell that null or false.
    active = [rule_to_js(r) | {"_shadowed": False} for r in result.rules]
    every = [rule_to_js(i.rule) | {"_shadowed": i.shadowed} for i in result.items]

    def wanted(item: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: _with_temp(v, tmp) for k, v in item.items()}
        if "_shadowed" in out and out["_shadowed"] is None:
            out["_shadowed"] = False
        return out

    for want in exp.get("all") or ():
        want = wanted(want)
        assert any(_matches(r, want) for r in every), f"{case_id}: no item matching {want}; got {every}"
    if "all_names" in exp:
        assert [r["name"] for r in every] == exp["all_names"]
    for want in exp.get("contains") or ():
        want = wanted(want)
        pool = every if want.get("_shadowed") else active
        assert any(_matches(r, want) for r in pool), f"{case_id}: no rule matching {want}; got {active}"
    for name in exp.get("absent") or exp.get("not_contains") or ():
        name = name if isinstance(name, str) else name.get("name")
        assert name not in [r["name"] for r in active], f"{case_id}: {name} should be absent"
    if "names" in exp:
        assert [r["name"] for r in active] == exp["names"]
    if "count" in exp:
        assert len(active) == exp["count"]
    if "shadowed" in exp:
        assert [i.rule.name for i in result.items if i.shadowed] == exp["shadowed"]
    for text in exp.get("warnings_contain") or exp.get("warnings") or ():
        assert any(text in w for w in result.warnings), f"{case_id}: no warning with {text!r}: {result.warnings}"


def run_discovery_native(case: dict, whole: dict) -> None:
    with tempfile.TemporaryDirectory(prefix="wb-discovery-") as tmp:
        result = _discover(Path(tmp), case["input"], ["native"])
        _check_discovery(result, Path(tmp), case["expected"], case["id"])


def run_discovery_capability(case: dict, whole: dict) -> None:
    inp = case["input"]
    with tempfile.TemporaryDirectory(prefix="wb-discovery-") as tmp:
        result = _discover(Path(tmp), inp, inp.get("providers"))
        _check_discovery(result, Path(tmp), case["expected"], case["id"])


# --- fixture facts / properties ----------------------------------------------------------------


def _builtin_fixture(whole: Mapping[str, Any]) -> list[tuple[str, dict]]:
    data = (whole.get("fixtures") or {}).get("builtin_rules")
    assert data is not None, "fixtures.builtin_rules missing from the case file"
    if isinstance(data, Mapping):
        return [(name, dict(fm.get("frontmatter", fm))) for name, fm in data.items()]
    return [(item["name"], dict(item.get("frontmatter", item))) for item in data]


def _builtin_facts(whole: Mapping[str, Any]) -> dict[str, Any]:
    rules = _builtin_fixture(whole)
    parsed = {name: parse_rule_condition_and_scope(fm) for name, fm in rules}
    return {
        "count": len(rules),
        "names": [name for name, _ in rules],
        "all_interrupt_never": all(fm.get("interruptMode") == "never" for _, fm in rules),
        "all_have_scope": all(parsed[name].scope for name, _ in rules),
        "ast_only": [n for n, p in parsed.items() if p.ast_condition and not p.condition],
        "with_condition": [n for n, p in parsed.items() if p.condition],
        "with_ast_condition": [n for n, p in parsed.items() if p.ast_condition],
    }


def run_fixture_facts(case: dict, whole: dict) -> None:
    facts = _builtin_facts(whole)
    for key, want in case["expected"].items():
        snake = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
        assert snake in facts or key in facts, f"fact {key!r} is not computed by this runner"
        got = facts.get(key, facts.get(snake))
        if isinstance(want, list) and isinstance(got, list) and key in ("names",):
            assert sorted(got) == sorted(want)
        else:
            assert got == want, f"{key}: {got!r} != {want!r}"


def run_property(case: dict, whole: dict) -> None:
    # The one data set the rules layer knows is the bundled-rule fixture: every bundled rule must
    # parse into a trigger and register with a fresh manager. Any other property is not understood
    # by this runner and fails loudly rather than passing vacuously.
    inp = case.get("input") or {}
    dataset = inp.get("dataset") or inp.get("data_set") or "fixtures.builtin_rules"
    assert isinstance(dataset, str) and "builtin_rules" in dataset, f"unknown property data set {dataset!r}"
    rules = _builtin_fixture(whole)
    manager = _manager(None)
    for name, fm in rules:
        parsed = parse_rule_condition_and_scope(fm)
        rule = Rule(name=name, path=f"builtin-defaults:{name}.md", content="x", condition=parsed.condition,
                    ast_condition=parsed.ast_condition, scope=parsed.scope,
                    interrupt_mode=fm.get("interruptMode"), globs=fm.get("globs"))
        assert manager.add_rule(rule), f"bundled rule {name} rejected: {getattr(manager, 'diagnostics', '')}"


HANDLERS: dict = {
    "parse_condition_scope": run_parse_condition_scope,
    "frontmatter": run_frontmatter,
    "build_rule_from_markdown": run_build_rule_from_markdown,
    "bucket_rules": run_bucket_rules,
    "discovery_native": run_discovery_native,
    "discovery_capability": run_discovery_capability,
    "fixture_facts": run_fixture_facts,
    "property": run_property,
}
