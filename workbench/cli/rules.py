"""``workbench rules``: discovered rules (``list``) and one rule (``show``); the rule checks (``test``,
``scan``, ``validate``) are registered from ``workbench.cli.rule_checks``.

``list`` buckets the active rules with a real ``TtsrManager`` so that what it prints is what an agent
would do: a rule whose regexes are all invalid is reported as rejected (and falls through to
always-apply / rulebook / dropped), and each invalid regex becomes a warning naming the rule's file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.agent_config import (
    config_json,
    config_lines,
    read_settings,
    resolve_agent,
    templates_for,
)
from workbench.cli.options import RulesFlag, add_agent_flags, add_rule_set_flags
from workbench.cli.rule_checks import discover as _discover
from workbench.cli.rule_checks import register_checks
from workbench.errors import NotFoundError
from workbench.rules import (
    Rule,
    RuleBuckets,
    RuleLoadResult,
    bucket_rules,
    resolve_rule_url,
)
from workbench.ttsr import TtsrManager

BUILTIN = "builtin-defaults"


def _add_discovery_flags(parser: argparse.ArgumentParser, *, rules: RulesFlag = None) -> None:
    add_rule_set_flags(parser, rules=rules, cwd=True, agent_dir=True, disable_rule=True,
                       rules_note="; repeatable; default: the rules discovered from --cwd" if rules else "")
    add_agent_flags(parser, providers=True)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules", help="discover, inspect and check rules", description="Discover, inspect and check TTSR rules."
    )
    sub = parser.add_subparsers(dest="rules_command", metavar="SUBCOMMAND")
    sub.required = True

    p_list = add_command(sub, "list", run_list,
                         help="every discovered rule with provider, level, path, bucket and shadowing; warnings")
    _add_discovery_flags(p_list)
    add_json_flag(p_list)

    p_show = add_command(sub, "show", run_show, help="one resolved rule and its rule:// content")
    p_show.add_argument("name", metavar="NAME", help="rule name (as in rule://NAME)")
    _add_discovery_flags(p_show)
    add_json_flag(p_show)

    register_checks(sub, _add_discovery_flags)


def _bucket(result: RuleLoadResult, args: argparse.Namespace) -> tuple[RuleBuckets, list[str]]:
    manager = TtsrManager(None)
    layers = read_settings(args, args.cwd)
    buckets = bucket_rules(
        result.rules, manager, disabled_rules=layers.names("disabledRules"),
        builtin_rules=layers.value("builtinRules") is not False, agent_name=resolve_agent(args)["name"],
    )
    paths = {r.name: r.path for r in result.rules}
    warnings = [_diagnostic_text(d, paths) for d in getattr(manager, "diagnostics", ())]
    return buckets, warnings


def _diagnostic_text(diagnostic: Any, paths: Mapping[str, str]) -> str:
    context = dict(getattr(diagnostic, "context", {}) or {})
    name = context.pop("ruleName", None)
    where = paths.get(name, name or "?")
    details = ", ".join(f"{k}={v!r}" for k, v in context.items())
    return f"{where}: rule {name}: {diagnostic.message}" + (f" ({details})" if details else "")


def _rule_json(rule: Rule) -> dict[str, Any]:
    def listed(value: Any) -> Any:
        return list(value) if value is not None else None

    return {
        "name": rule.name,
        "path": rule.path,
        "description": rule.description,
        "alwaysApply": rule.always_apply,
        "globs": listed(rule.globs),
        "condition": listed(rule.condition),
        "astCondition": listed(rule.ast_condition),
        "scope": listed(rule.scope),
        "interruptMode": rule.interrupt_mode,
        "question": rule.question,
        "judged": rule.question is not None,
    }


def collect(args: argparse.Namespace, result: RuleLoadResult | None = None) -> dict[str, Any]:
    """The data of ``rules list``: rules (active, shadowed, invalid) with buckets, and all warnings."""
    result = result if result is not None else _discover(args)
    buckets, engine_warnings = _bucket(result, args)
    placed = {id(b.rule): b for b in buckets.all()}
    rows = []
    for item in result.items:
        bucketed = placed.get(id(item.rule)) if item.active else None
        if item.shadowed:
            bucket, reason = "shadowed", f"shadowed by {item.shadowed_by_provider}: {item.shadowed_by}"
        elif item.invalid:
            bucket, reason = "invalid", item.invalid
        elif item.disabled:
            bucket, reason = "disabled", item.disabled
        else:
            bucket, reason = (bucketed.bucket, bucketed.reason) if bucketed else ("dropped", "")
        bundled_file = result.bundled.file_of(item.rule.name) if result.bundled and item.provider == BUILTIN else None
        rows.append(
            {
                **_rule_json(item.rule),
                "bundledFile": bundled_file,
                "provider": item.provider,
                "providerName": item.provider_name,
                "level": item.level,
                "bucket": bucket,
                "reason": reason,
                "shadowedBy": item.shadowed_by,
                "shadowedByProvider": item.shadowed_by_provider,
            }
        )
    layers = read_settings(args, args.cwd)
    return {"rules": rows, "warnings": [*result.warnings, *engine_warnings, *layers.warnings],
            "builtinSource": bundled_json(result, args, layers.value("builtinRules")),
            **config_json(layers, resolve_agent(args), providers=result.providers,
                          templates=templates_for(args, result.bundled))}


def bundled_json(result: RuleLoadResult, args: argparse.Namespace, builtin_rules: Any = None) -> dict[str, Any] | None:
    """Which bundled rule files were read (``None``: the provider did not run), and whether they are used
    (``builtin_rules``: ``ttsr.builtinRules`` in effect; ``None``: from ``--no-builtin`` alone)."""
    if result.bundled is None:
        return None
    enabled = not getattr(args, "no_builtin", False) if builtin_rules is None else builtin_rules is not False
    off_by = None if enabled else "--no-builtin" if getattr(args, "no_builtin", False) else "ttsr.builtinRules: false"
    return {**result.bundled.to_json(), "enabled": enabled, "offBy": off_by,
            "description": result.bundled.describe()}


def bundled_line(source: Mapping[str, Any] | None, *, short: bool = False) -> str:
    """The text outputs' words on the bundled rules in use (``short``: for a summary line)."""
    if short:
        if source is None or not source["enabled"]:
            return "bundled rules: off"
        if source["kind"] == "omp-package":
            return f"bundled rules: oh-my-pi {source['version'] or '?'} ({source['package']})"
        return "bundled rules: the workbench's own"
    if source is None:
        return "bundled rules (builtin-defaults): not loaded"
    off = "" if source["enabled"] else f"switched off ({source.get('offBy') or '--no-builtin'}); read from "
    return f"bundled rules (builtin-defaults): {off}{source['description']}"


def run_list(args: argparse.Namespace) -> int:
    """List every discovered rule (shadowed ones included) with its bucket, and every warning."""
    data = collect(args)
    if args.json:
        print_json(data)
        return 0
    out = sys.stdout
    for row in data["rules"]:
        shadow = f"  (shadowed by {row['shadowedByProvider']}: {row['shadowedBy']})" if row["shadowedBy"] else ""
        bucket = f"{row['bucket']} judged" if row["judged"] and row["bucket"] == "ttsr" else row["bucket"]
        out.write(f"{row['name']:<28} {bucket:<13} {row['provider']:<17} {row['level']:<8} {row['path']}{shadow}\n")
    if not data["rules"]:
        out.write("no rules found\n")
    out.write(f"\n{bundled_line(data['builtinSource'])}\n")
    out.write(f"{data['templates']['description']}\n")
    for line in config_lines(read_settings(args, args.cwd), data["agent"]):
        out.write(line + "\n")
    held = [p["id"] for p in data["providers"] if p["ran"] and not p["userLevel"] and "opt-in" in p["why"]]
    off = [p["id"] for p in data["providers"] if not p["ran"] and p["why"] == "in disabledProviders"]
    if held:
        out.write(f"user-level folders not read (opt in with enabledProviders / --enable-provider): {', '.join(held)}\n")
    if off:
        out.write(f"providers switched off (disabledProviders): {', '.join(off)}\n")
    for note in (data["builtinSource"] or {}).get("notes", ()):
        out.write(f"  note: {note}\n")
    if data["warnings"]:
        out.write(f"\n{len(data['warnings'])} warning(s):\n")
        for warning in data["warnings"]:
            out.write(f"  {warning}\n")
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Show one rule and its rule:// content."""
    result = _discover(args)
    data = collect(args, result)
    row = next((r for r in data["rules"] if r["name"] == args.name and r["bucket"] not in ("shadowed", "invalid", "disabled")), None)
    if row is None or result.get(args.name) is None:
        names = ", ".join(r.name for r in result.rules) or "none"
        raise NotFoundError(f"Unknown rule: {args.name} (available: {names})")
    resource = resolve_rule_url(f"rule://{args.name}", result.rules)
    shadowed = [r for r in data["rules"] if r["name"] == args.name and r["bucket"] == "shadowed"]
    payload = {
        "rule": row,
        "shadowed": shadowed,
        "warnings": [w for w in data["warnings"] if row["path"] in w or f"rule {args.name}:" in w],
        "resource": {
            "url": resource.url,
            "contentType": resource.content_type,
            "size": resource.size,
            "sourcePath": resource.source_path,
            "content": resource.content,
        },
    }
    if args.json:
        print_json(payload)
        return 0
    out = sys.stdout
    for key in ("name", "bucket", "reason", "provider", "level", "path", "bundledFile", "description", "alwaysApply",
                "globs", "condition", "astCondition", "question", "scope", "interruptMode"):
        if row.get(key) is not None:
            out.write(f"{key}: {row[key]}\n")
    for other in shadowed:
        out.write(f"shadows: {other['provider']} {other['path']}\n")
    for warning in payload["warnings"]:
        out.write(f"warning: {warning}\n")
    out.write(f"\n--- {resource.url} ({resource.size} bytes) ---\n{resource.content}\n")
    return 0
