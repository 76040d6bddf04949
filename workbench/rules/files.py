"""Rule files named on the command line: the file walker and loading rules from files and folders.

``workbench rules test FILE``, ``rules scan --rules DIR`` and ``backtest --rules DIR`` take rule files
and folders instead of discovering a project's rules; a folder without rule files at its top level is
taken as a project and discovered like the agent does (``load_rules``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from workbench.errors import NotFoundError, RuleFileError
from workbench.rules.building import build_rule_from_markdown
from workbench.rules.discovery import load_rules
from workbench.rules.model import Rule, RuleSource

RULE_SUFFIXES = (".md", ".mdc")


def named_files(paths: Iterable[str | os.PathLike[str]], suffixes: tuple[str, ...]) -> list[Path]:
    """Files named directly, and the files with one of ``suffixes`` anywhere under named folders
    (sorted per folder, each once): how `--rules` arguments and `rules test FILE ...` are read."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in suffixes)
        else:
            raise NotFoundError(f"{raw}: no such file or directory")
    return list(dict.fromkeys(out))


def rule_files(paths: Iterable[str]) -> list[Path]:
    """Rule files named directly, and the ``.md`` / ``.mdc`` files under named folders (sorted)."""
    return named_files(paths, RULE_SUFFIXES)


def load_rule_file(path: str | Path, warnings: list[str] | None = None) -> Rule:
    p = Path(path)
    try:
        content = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError(f"not UTF-8 text ({exc.reason})", path=str(p)) from None
    except OSError as exc:
        raise RuleFileError(f"cannot read: {exc.strerror}", path=str(p)) from None
    source = RuleSource("file", "Rule file", str(p), "project")
    return build_rule_from_markdown(p.name, content, str(p), source, warnings=warnings)


def load_rule_paths(paths: Iterable[str], warnings: list[str] | None = None) -> list[Rule]:
    """Rules from files and folders of rule files, in path order; first rule of a name wins."""
    rules: dict[str, Rule] = {}
    for f in rule_files(paths):
        rule = load_rule_file(f, warnings)
        if rule.name in rules:
            if warnings is not None:
                warnings.append(f"{f}: rule {rule.name} already loaded from {rules[rule.name].path}; skipped")
            continue
        rules[rule.name] = rule
    return list(rules.values())


def resolve_rules(paths: Iterable[str], *, home: str | None = None, warnings: list[str] | None = None,
                  omp_package: str | None = None) -> list[Rule]:
    """Rules for ``--rules`` arguments: a rule file; a folder holding rule files at its top level
    (all ``.md`` / ``.mdc`` under it); otherwise a project folder, discovered like the agent does
    (``load_rules(cwd=folder, home=home)``: every provider, user rules and the bundled ones).
    First rule of a name wins, in argument order."""
    rules: dict[str, Rule] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_dir() and not any(f.is_file() and f.suffix in RULE_SUFFIXES for f in p.iterdir()):
            loaded = load_rules(cwd=str(p.resolve()), home=home, omp_package=omp_package)
            if warnings is not None:
                warnings.extend(loaded.warnings)
            found = list(loaded.rules)
        else:
            found = load_rule_paths([raw], warnings)
        for rule in found:
            rules.setdefault(rule.name, rule)
    return list(rules.values())
