"""``workbench rules scan``: where existing files would trigger the rules, like a linter.

Each file is presented as the agent would present a tool call that writes it: a ``write`` of the
whole content at the file's path (relative to ``cwd`` when inside it), so the rule's scope, its
path globs and the path candidates apply exactly as for a live call; a rule whose scope names only
``edit`` sees the file as an ``edit`` whose ``new_string`` is the content. The final snapshot is
checked once (``check_snapshot`` for regex conditions, ``check_ast_snapshot`` for AST ones); every
regex match span and every AST node becomes a hit at ``file:line:column``. Rules that cannot see a
written file at all (text/thinking only, no trigger) are listed as not applicable.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.replay import ast_patterns, not_registered
from workbench.rulecheck.walk import DEFAULT_MAX_BYTES, read_scan_text, scan_files
from workbench.rules import Rule
from workbench.ttsr import (
    MatchContext,
    TtsrManager,
    TtsrSettings,
    ast_spans,
    build_scope,
    language_for,
    tool_file_paths,
)

ScanTool = Literal["write", "edit"]


@dataclass(frozen=True, slots=True)
class ScanHit:
    """One place a rule would fire; lines and columns are 1-based (the end column exclusive) and
    columns count characters."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    rule: str
    rule_path: str
    via: Literal["regex", "ast"]
    tool: ScanTool
    text: str

    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "endLine": self.end_line,
                "endColumn": self.end_column, "rule": self.rule, "rulePath": self.rule_path,
                "via": self.via, "tool": self.tool, "text": self.text}


@dataclass(frozen=True, slots=True)
class ScanReport:
    hits: tuple[ScanHit, ...]
    files: int
    skipped: tuple[tuple[str, str], ...]  # (path, why)
    not_applicable: tuple[tuple[str, str], ...]  # (rule, why)
    rules: tuple[str, ...]
    gitignore: bool = True
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_json(self) -> dict[str, Any]:
        return {"hits": [h.to_json() for h in self.hits], "files": self.files, "rules": list(self.rules),
                "gitignore": self.gitignore, "maxBytes": self.max_bytes,
                "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
                "notApplicable": [{"rule": n, "reason": r} for n, r in self.not_applicable]}


def _shown(path: Path, cwd: Path) -> str:
    absolute = path.resolve()
    try:
        return absolute.relative_to(cwd).as_posix()
    except ValueError:
        return absolute.as_posix()


def _applicability(rule: Rule, manager: TtsrManager) -> str | None:
    """Why a written file can never trigger ``rule`` (``None`` when it can; the rule is then registered)."""
    scope = build_scope(None if rule.scope is None else list(rule.scope), lambda _t: None)
    if (rule.condition or rule.ast_condition) and not scope.allow_any_tool and not scope.tool_scopes:
        return "scope watches no tool calls"
    return not_registered(rule, manager)


class _Lines:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r")[:200]


def scan_paths(
    paths: Sequence[str],
    rules: Iterable[Rule],
    *,
    cwd: str | None = None,
    progress: Callable[[int, str], None] | None = None,
    gitignore: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ScanReport:
    """Scan files and folders with ``rules``; hits sorted by path, line, column, rule. Folders are
    walked as the agent's scan walks them (``workbench.rulecheck.walk``): ``gitignore`` respects the
    ``.gitignore`` files from ``cwd`` down, ``max_bytes`` (0: none) skips larger files."""
    base = Path(cwd or os.getcwd()).resolve()
    manager = TtsrManager(TtsrSettings.of(repeat_mode="after-gap", repeat_gap=0))
    by_name: dict[str, Rule] = {}
    not_applicable: list[tuple[str, str]] = []
    for rule in rules:
        why = _applicability(rule, manager)
        if why is not None:
            not_applicable.append((rule.name, why))
        else:
            by_name[rule.name] = rule
    hits: list[ScanHit] = []
    skipped: list[tuple[str, str]] = []
    files = 0
    for n, path in enumerate(scan_files(paths, root=base, gitignore=gitignore)):
        shown = _shown(path, base)
        if progress is not None:
            progress(n, shown)
        text, why = read_scan_text(path, max_bytes)
        if text is None:
            skipped.append((shown, why or "unreadable"))
            continue
        files += 1
        if by_name:
            hits += _scan_text(manager, by_name, shown, text, str(base))
    hits.sort(key=lambda h: (h.path, h.line, h.column, h.rule))
    return ScanReport(tuple(hits), files, tuple(skipped), tuple(not_applicable), tuple(by_name), gitignore, max_bytes)


def _scan_text(manager: TtsrManager, rules: dict[str, Rule], shown: str, text: str, cwd: str) -> list[ScanHit]:
    lines = _Lines(text)
    done: set[tuple[str, str]] = set()
    out: list[ScanHit] = []
    for tool in ("write", "edit"):
        args = {"path": shown, "content": text} if tool == "write" else {"path": shown, "old_string": "", "new_string": text}
        paths = tool_file_paths(tool, args, cwd)
        ctx = MatchContext("tool", tool_name=tool, file_paths=paths, stream_key=f"scan:{tool}")
        key = manager.buffer_key(ctx)
        manager.reset_buffer()
        for rule in manager.check_snapshot(text, ctx):
            if (rule.name, "regex") in done:
                continue
            done.add((rule.name, "regex"))
            for start, end in manager.match_spans(rule.name, key):
                out.append(_hit(lines, shown, rule, start, end, "regex", tool))
        lang = language_for(paths)
        for rule in manager.check_ast_snapshot(text, ctx):
            if (rule.name, "ast") in done:
                continue
            done.add((rule.name, "ast"))
            for start, end, _line in ast_spans(ast_patterns(rule), text, lang or ""):
                out.append(_hit(lines, shown, rule, start, end, "ast", tool))
    return out


def _hit(lines: _Lines, shown: str, rule: Rule, start: int, end: int, via: Any, tool: Any) -> ScanHit:
    line, column = lines.at(start)
    end_line, end_column = lines.at(max(start, end))
    return ScanHit(shown, line, column, end_line, end_column, rule.name, rule.path, via, tool, lines.line_text(line))
