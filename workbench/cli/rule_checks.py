"""``workbench rules test``, ``rules scan`` and ``rules validate``: the rule author's checks.

They behave like a linter: exit 0 when everything is clean, 1 when an example fails, the scan finds
hits, a snippet triggers no rule of the files given, or ``/omfg`` would not accept the rule; 2
(``error: ...``) on bad input. Each follows the agent's own tool (docs/rule-authoring.md):
``rules scan`` is ``omp ttsr scan``, ``rules test --snippet/--file`` is ``omp ttsr test`` (without
them, each rule's own examples run), ``rules validate`` is ``/omfg``'s check of a generated rule.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.agent_config import discovery_switches, read_settings, resolve_agent
from workbench.errors import NotFoundError, RuleFileError, UsageError
from workbench.rulecheck import (
    DEFAULT_MAX_BYTES,
    SNIPPET_SOURCES,
    check_snippet,
    isolated_manager,
    run_rule_examples,
    scan_paths,
    snippet_context,
)
from workbench.rules import (
    MAIN_AGENT,
    Rule,
    RuleLoadResult,
    bucket_rules,
    example_line,
    has_examples,
    load_rule_paths,
    load_rules,
    resolve_rules,
    rule_applies_to_agent,
    rules_for_agent,
)
from workbench.ttsr import TtsrManager, TtsrSettings

BUILTIN_PROVIDER = "builtin-defaults"
SNIPPET_FLAGS = ("snippet", "file", "source", "tool", "path")


def register_checks(sub: Any, add_discovery_flags: Callable[..., None]) -> None:
    """Add ``test``, ``scan`` and ``validate`` to the ``rules`` subcommands."""
    p_test = add_command(sub, "test", run_test,
                         help="run each rule's own examples, or test a snippet as omp ttsr test does")
    p_test.add_argument("rule_files", nargs="*", metavar="RULE_FILE", help="rule Markdown files or folders of them")
    p_test.add_argument("--snippet", metavar="TEXT", help="snippet text to test (omp ttsr test's inline snippet)")
    p_test.add_argument("--file", metavar="FILE", help="snippet file, or - for stdin")
    p_test.add_argument("--source", choices=SNIPPET_SOURCES,
                        help="match source (default: inferred from the path: tool for source files, else text)")
    p_test.add_argument("--tool", metavar="NAME", help="tool name when the source is tool (default: edit)")
    p_test.add_argument("--path", metavar="PATH",
                        help="candidate file path for scope/glob matching and AST language inference")
    p_test.add_argument("-v", "--verbose", action="store_true", help="with a snippet: list rules that did not trigger")
    add_discovery_flags(p_test)
    add_json_flag(p_test)

    p_scan = add_command(sub, "scan", run_scan, help="where existing files would trigger the rules")
    p_scan.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to scan")
    p_scan.add_argument("--rule", metavar="NAME", action="append", default=[], help="only this rule (repeatable)")
    p_scan.add_argument("--no-gitignore", dest="gitignore", action="store_false",
                        help="include files excluded by .gitignore (default: respected, as omp ttsr scan does)")
    p_scan.add_argument("--max-bytes", metavar="N", type=int, default=DEFAULT_MAX_BYTES,
                        help=f"skip files larger than N bytes; 0: no limit (default: {DEFAULT_MAX_BYTES}, 5 MiB)")
    add_discovery_flags(p_scan, rules="repeatable")
    add_json_flag(p_scan)

    # cli.validate holds the command; imported here because it is registered with the others.
    from workbench.cli.validate import register_validate  # noqa: PLC0415

    register_validate(sub)


def discover(args: argparse.Namespace) -> RuleLoadResult:
    """The rules ``--cwd`` / ``--home`` / ``--agent-dir`` discover, with the config layers' switches."""
    for flag in ("cwd", "home", "agent_dir"):
        value = getattr(args, flag, None)
        if value is not None and not os.path.isdir(value):
            raise UsageError(f"--{flag.replace('_', '-')} {value}: not a directory")
    return load_rules(cwd=args.cwd, home=args.home, agent_dir=getattr(args, "agent_dir", None),
                      omp_package=getattr(args, "omp_package", None),
                      **discovery_switches(read_settings(args, args.cwd)))


def _discovered(args: argparse.Namespace) -> tuple[list[Rule], list[str]]:
    result = discover(args)
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


def agent_name(args: argparse.Namespace) -> str:
    """``--agent`` as ``omp ttsr test`` reads it: trimmed, lowercased, ``main`` when empty."""
    return (getattr(args, "agent", None) or "").strip().lower() or MAIN_AGENT


# --- rules test -----------------------------------------------------------------------------------


def run_test(args: argparse.Namespace) -> int:
    """Run each rule's own examples (frontmatter keys of the rule file) against its trigger. Without RULE_FILE,
    the rules discovered from --cwd / --home are tested. With --snippet or --file, the snippet is checked
    instead in the context --source / --tool / --path describe (omp ttsr test); RULE_FILEs are then tested
    in isolation."""
    _check_dirs(args)
    if any(getattr(args, flag, None) is not None for flag in SNIPPET_FLAGS):
        return _run_snippet(args)
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


def _snippet_text(args: argparse.Namespace) -> str:
    if args.file is not None:
        if args.file == "-":
            return sys.stdin.read()
        path = Path(args.file)
        if not path.is_file():
            raise NotFoundError(f"Snippet file not found: {path.resolve()}")
        return path.read_text(encoding="utf-8", errors="replace")
    if args.snippet is not None:
        return str(args.snippet)
    raise UsageError("No snippet provided. Pass --snippet TEXT or --file FILE (- for stdin).")


def _snippet_manager(args: argparse.Namespace, agent: str) -> tuple[TtsrManager, list[str]]:
    """The manager ``omp ttsr test`` checks with: the RULE_FILEs alone in the agent's fixed settings,
    else the project's rules bucketed as the agent buckets them for ``agent``."""
    warnings: list[str] = []
    if args.rule_files:
        rules = load_rule_paths(args.rule_files, warnings)
        manager = isolated_manager()
        for rule in rules:
            if not rule_applies_to_agent(getattr(rule, "agents", None), agent):
                raise NotFoundError(
                    f'Rule "{rule.name}" is scoped to agents [{", ".join(rule.agents or ())}] and does not apply to '
                    f'agent "{agent}". Re-run with --agent <one of those names>.')
            if not manager.add_rule(rule):
                raise RuleFileError(
                    f'Rule "{rule.name}" has no usable TTSR condition. Add a `condition` (regex), `astCondition` '
                    "(ast-grep pattern), or `question` (judged) to its frontmatter.", path=rule.path)
        return manager, warnings
    rules, warnings = _discovered(args)
    layers = read_settings(args, args.cwd)
    manager = TtsrManager(TtsrSettings.from_mapping(layers.ttsr_mapping()))
    bucket_rules(rules, manager, disabled_rules=layers.names("disabledRules"),
                 builtin_rules=layers.value("builtinRules") is not False, agent_name=agent)
    if not manager.get_rules():
        raise NotFoundError(
            f'No TTSR rules registered for this project as agent "{agent}". Rules scoped to other agents via '
            "`agents` are excluded — run `workbench rules list` to see every rule, or pass --agent <name>.")
    return manager, [*warnings, *layers.warnings]


def _run_snippet(args: argparse.Namespace) -> int:
    context = snippet_context(args.source, args.tool, args.path, args.file)
    snippet = _snippet_text(args)
    agent = agent_name(args)
    manager, warnings = _snippet_manager(args, agent)
    report = check_snippet(manager, snippet, context, agent)
    if args.json:
        print_json({**report.to_json(), "agentSource": resolve_agent(args)["source"], "warnings": warnings})
    else:
        sys.stdout.write("\n".join(report.lines(args.verbose)) + "\n")
        for warning in warnings:
            sys.stderr.write(f"warning: {warning}\n")
    return 1 if args.rule_files and not report.triggered else 0


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
    """Scan existing files as if they were written by the agent and report where rules would fire. Files are
    chosen as omp ttsr scan chooses them: .gitignore respected, hidden files included, 5 MiB limit."""
    _check_dirs(args)
    if args.max_bytes < 0:
        raise UsageError(f"--max-bytes {args.max_bytes}: must be 0 (no limit) or more")
    if args.cwd is None:
        args.cwd = project_root(args.paths[0])
    warnings: list[str] = []
    if args.rules:
        rules = resolve_rules(args.rules, home=args.home, warnings=warnings, omp_package=args.omp_package)
    else:
        rules, warnings = _discovered(args)
    rules = _filtered(rules, args)
    report = scan_paths(args.paths, rules, cwd=args.cwd, gitignore=args.gitignore, max_bytes=args.max_bytes)
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
        kinds: dict[str, int] = {}
        for _path, why in report.skipped:
            kind = why.split(":", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        out.write(f"; {len(report.skipped)} skipped (" + ", ".join(f"{k} {n}" for k, n in kinds.items()) + ")")
    limit = "off" if args.max_bytes == 0 else str(args.max_bytes)
    out.write(f"; gitignore {'on' if args.gitignore else 'off'}, max-bytes {limit}\n")
    for name, why in report.not_applicable:
        if args.rule:
            sys.stderr.write(f"note: rule {name} cannot fire on a written file: {why}\n")
    for path, why in report.skipped:
        if why != "binary":
            sys.stderr.write(f"note: skipped {path}: {why}\n")
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    return 1 if report.hits else 0
