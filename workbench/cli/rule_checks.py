"""``workbench rules test`` and ``workbench rules scan`` (arguments are parsed in ``cli/rules.py``).

Both behave like a linter: exit 0 when everything is clean, 1 when an example fails or the scan
finds hits, 2 (``error: ...``) on bad input such as an ``examples`` list that cannot be read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from workbench.cli._output import print_json
from workbench.errors import NotFoundError, RuleFileError, UsageError
from workbench.rules import Rule
from workbench.rules.examples import has_examples

BUILTIN_PROVIDER = "builtin-defaults"


def _discovered(args: argparse.Namespace) -> tuple[list[Rule], list[str]]:
    from workbench.cli.rules import _discover  # same discovery flags and checks as `rules list`

    result = _discover(args)
    return list(result.rules), list(result.warnings)


def _filtered(rules: list[Rule], args: argparse.Namespace) -> list[Rule]:
    disabled = {n.strip() for n in getattr(args, "disable_rule", []) or []}
    out = [r for r in rules if r.name not in disabled]
    if getattr(args, "no_builtin", False):
        out = [r for r in out if r.source is None or r.source.provider != BUILTIN_PROVIDER]
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
    from workbench.checks import example_line, load_rule_paths, run_rule_examples

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
    from workbench.checks import resolve_rules
    from workbench.scan import scan_paths

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
