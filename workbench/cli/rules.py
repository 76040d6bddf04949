"""``workbench rules``: discovered rules (``list``), one rule (``show``), and rule checks (``test``, ``scan``).

``test`` and ``scan`` behave like a linter: exit 0 when everything is clean, 1 when an example fails or
the scan finds hits, 2 (``error: ...``) on bad input such as an ``examples`` list that cannot be read.
``list`` buckets the active rules with a real ``TtsrManager`` so that what it prints is what an agent
would do: a rule whose regexes are all invalid is reported as rejected (and falls through to
always-apply / rulebook / dropped), and each invalid regex becomes a warning naming the rule's file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.cli._output import add_json_flag, print_json
from workbench.cli.agent_config import (
    add_agent_flags,
    config_json,
    config_lines,
    discovery_switches,
    read_settings,
    resolve_agent,
    templates_for,
)
from workbench.cli.options import RulesFlag, add_rule_set_flags
from workbench.errors import NotFoundError, RuleFileError, UsageError
from workbench.rulecheck import run_rule_examples, scan_paths
from workbench.rules import (
    Rule,
    RuleBuckets,
    RuleLoadResult,
    bucket_rules,
    example_line,
    has_examples,
    load_rule_paths,
    load_rules,
    resolve_rule_url,
    resolve_rules,
    rules_for_agent,
)
from workbench.ttsr import TtsrManager

BUILTIN = "builtin-defaults"


def _add_discovery_flags(parser: argparse.ArgumentParser, *, rules: RulesFlag = None) -> None:
    add_rule_set_flags(parser, rules=rules, cwd=True, agent_dir=True, disable_rule=True,
                       rules_note="; repeatable; default: the rules discovered from --cwd" if rules else "")
    add_agent_flags(parser)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules", help="discover, inspect and check rules", description="Discover, inspect and check TTSR rules."
    )
    sub = parser.add_subparsers(dest="rules_command", metavar="SUBCOMMAND")
    sub.required = True

    p_list = sub.add_parser(
        "list",
        help="every discovered rule with provider, level, path, bucket and shadowing; warnings",
        description="List every discovered rule (shadowed ones included) with its bucket, and every warning.",
    )
    _add_discovery_flags(p_list)
    add_json_flag(p_list)
    p_list.set_defaults(handler=run_list)

    p_show = sub.add_parser(
        "show", help="one resolved rule and its rule:// content", description="Show one rule and its rule:// content."
    )
    p_show.add_argument("name", metavar="NAME", help="rule name (as in rule://NAME)")
    _add_discovery_flags(p_show)
    add_json_flag(p_show)
    p_show.set_defaults(handler=run_show)

    p_test = sub.add_parser(
        "test",
        help="run each rule's own examples",
        description="Run each rule's own examples (frontmatter keys of the rule file) against its trigger. "
        "Without RULE_FILE, the rules discovered from --cwd / --home are tested.",
    )
    p_test.add_argument("rule_files", nargs="*", metavar="RULE_FILE", help="rule Markdown files or folders of them")
    _add_discovery_flags(p_test)
    add_json_flag(p_test)
    p_test.set_defaults(handler=run_test)

    p_scan = sub.add_parser(
        "scan",
        help="where existing files would trigger the rules",
        description="Scan existing files as if they were written by the agent and report where rules would fire.",
    )
    p_scan.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to scan")
    p_scan.add_argument("--rule", metavar="NAME", action="append", default=[], help="only this rule (repeatable)")
    _add_discovery_flags(p_scan, rules="repeatable")
    add_json_flag(p_scan)
    p_scan.set_defaults(handler=run_scan)


def _discover(args: argparse.Namespace) -> RuleLoadResult:
    for flag in ("cwd", "home", "agent_dir"):
        value = getattr(args, flag, None)
        if value is not None and not os.path.isdir(value):
            raise UsageError(f"--{flag.replace('_', '-')} {value}: not a directory")
    return load_rules(cwd=args.cwd, home=args.home, agent_dir=getattr(args, "agent_dir", None),
                      omp_package=getattr(args, "omp_package", None),
                      **discovery_switches(read_settings(args, args.cwd)))


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


# --- rules test / rules scan ---------------------------------------------------------------------


BUILTIN_PROVIDER = "builtin-defaults"


def _discovered(args: argparse.Namespace) -> tuple[list[Rule], list[str]]:
    result = _discover(args)
    return list(result.rules), list(result.warnings)


def _filtered(rules: list[Rule], args: argparse.Namespace) -> list[Rule]:
    layers = read_settings(args, getattr(args, "cwd", None))
    disabled = {n.strip() for n in layers.names("disabledRules")}
    out = [r for r in rules if r.name not in disabled]
    if layers.value("builtinRules") is False:
        out = [r for r in out if r.source is None or r.source.provider != BUILTIN_PROVIDER]
    if getattr(args, "agent", None):
        out = rules_for_agent(out, resolve_agent(args)["name"])
    wanted = list(dict.fromkeys(getattr(args, "rule", []) or []))
    if wanted:
        names = {r.name for r in out}
        missing = [n for n in wanted if n not in names]
        if missing:
            raise NotFoundError(f"Unknown rule: {', '.join(missing)} (available: {', '.join(sorted(names)) or 'none'})")
        out = [r for r in out if r.name in wanted]
    return out


def _check_dirs(args: argparse.Namespace) -> None:
    for flag in ("cwd", "home"):
        value = getattr(args, flag, None)
        if value is not None and not os.path.isdir(value):
            raise UsageError(f"--{flag} {value}: not a directory")


# --- rules test -----------------------------------------------------------------------------------


def run_test(args: argparse.Namespace) -> int:
    _check_dirs(args)
    warnings: list[str] = []
    if args.rule_files:
        rules = load_rule_paths(args.rule_files, warnings)
    else:
        rules, warnings = _discovered(args)
    rules = _filtered(rules, args)
    with_examples = [r for r in rules if has_examples(r.frontmatter)]
    reports = [run_rule_examples(r) for r in with_examples]
    without = [r.name for r in rules if not has_examples(r.frontmatter)]
    errors = [rep.error for rep in reports if rep.error]
    passed = sum(len(rep.results) - len(rep.failures) for rep in reports)
    failed = sum(len(rep.failures) for rep in reports)
    if args.json:
        print_json({"rules": [rep.to_json() for rep in reports], "withoutExamples": without,
                    "passed": passed, "failed": failed, "errors": errors, "warnings": warnings})
    else:
        out = sys.stdout
        for rep in reports:
            if rep.error:
                continue
            for result in rep.failures:
                line = example_line(rep.rule_path, result.example.index)
                where = f"{rep.rule_path}:{line}" if line else rep.rule_path
                out.write(f"FAIL {rep.rule} {result.example.label}: {result.example.shown}\n")
                out.write(f"     {result.reason}\n     at {where}\n")
            if not rep.failures:
                out.write(f"ok   {rep.rule} ({len(rep.results)} example{'s' if len(rep.results) != 1 else ''})\n")
        total = passed + failed
        out.write(f"{total} example{'s' if total != 1 else ''} in {len(reports)} rule(s): {passed} passed, {failed} failed")
        out.write(f"; {len(without)} rule(s) without examples\n" if without else "\n")
        for warning in warnings:
            sys.stderr.write(f"warning: {warning}\n")
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise RuleFileError(errors[0] + more)
    return 1 if failed else 0


# --- rules scan -----------------------------------------------------------------------------------


PROJECT_MARKERS = (".git", ".omp", ".xcsh")


def project_root(path: str) -> str:
    """The nearest folder at or above ``path`` holding ``.git``, ``.omp`` or ``.xcsh``; else the
    current directory. ``rules scan PROJECT`` thus uses that project's rules and relative paths."""
    start = Path(path).resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return str(candidate)
    return os.getcwd()


def run_scan(args: argparse.Namespace) -> int:
    _check_dirs(args)
    if args.cwd is None:
        args.cwd = project_root(args.paths[0])
    warnings: list[str] = []
    if args.rules:
        rules = resolve_rules(args.rules, home=args.home, warnings=warnings, omp_package=args.omp_package)
    else:
        rules, warnings = _discovered(args)
    rules = _filtered(rules, args)
    report = scan_paths(args.paths, rules, cwd=args.cwd)
    if args.json:
        print_json({**report.to_json(), "cwd": args.cwd, "warnings": warnings})
        return 1 if report.hits else 0
    out = sys.stdout
    for hit in report.hits:
        out.write(f"{hit.location()}: {hit.rule} ({hit.via}, as {hit.tool}): {hit.text.strip()}\n")
    files_hit = len({h.path for h in report.hits})
    out.write(f"{len(report.hits)} hit{'s' if len(report.hits) != 1 else ''} in {files_hit} file(s); "
              f"{report.files} file(s) scanned with {len(report.rules)} rule(s)")
    if report.skipped:
        out.write(f"; {len(report.skipped)} skipped")
    out.write("\n")
    for name, why in report.not_applicable:
        if args.rule:
            sys.stderr.write(f"note: rule {name} cannot fire on a written file: {why}\n")
    for path, why in report.skipped:
        if why not in ("binary",):
            sys.stderr.write(f"note: skipped {path}: {why}\n")
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    return 1 if report.hits else 0
