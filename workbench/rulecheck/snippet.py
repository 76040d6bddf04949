"""One snippet through the rules, as ``omp ttsr test`` (oh-my-pi 18.3.4, ``src/cli/ttsr-cli.ts``) does it.

The snippet is checked once as a whole (``check_snapshot``, and ``check_ast_snapshot`` for a tool
source with a path) in the match context the flags describe: ``source`` (``text``, ``thinking`` or
``tool``; inferred, when not given, from the path's extension: a source file is ``tool``, anything
else ``text``), the ``tool`` name (``edit`` by default for a tool source) and the candidate ``path``.
For every rule the conditions that match on their own are listed, so an author sees which regex or
AST pattern fired. ``workbench rules test --snippet`` prints this report (docs/rule-authoring.md).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Literal

from workbench.errors import InputError
from workbench.rules import Rule
from workbench.ttsr import MatchContext, TtsrManager, TtsrSettings, ast_spans, compile_rule_condition, language_for

SnippetSource = Literal["text", "thinking", "tool"]
SOURCES: tuple[SnippetSource, ...] = ("text", "thinking", "tool")
# The agent's list of extensions a file is taken as source code for (``SOURCE_FILE_EXT``).
SOURCE_FILE_EXT = re.compile(
    r"^\.(ts|tsx|js|jsx|mjs|cjs|rs|py|go|java|kt|swift|c|cc|cpp|h|hpp|rb|php|lua|css|scss|html|json|ya?ml|"
    r"toml|md|mdc|cs|razor|cshtml|fs|fsx|vb|sh|bash|sql|zig|dart|scala|ex|exs|proto|tf)$",
    re.IGNORECASE,
)
SKIPPED_AST = "astCondition requires --source tool and a --path with a file extension"


@dataclass(frozen=True, slots=True)
class SnippetContext:
    """Where the snippet is presented; ``note`` says why a source file was read as prose."""

    source: SnippetSource
    tool: str | None
    file_path: str | None
    note: str | None = None

    def match_context(self) -> MatchContext:
        paths = [self.file_path] if self.file_path else None
        return MatchContext(self.source, tool_name=self.tool, file_paths=paths)

    def label(self) -> str:
        where = f"tool:{self.tool or '?'}" if self.source == "tool" else self.source
        return where + (f" path={self.file_path}" if self.file_path else "")


def snippet_context(source: str | None, tool: str | None, path: str | None,
                    snippet_file: str | None = None) -> SnippetContext:
    """The context of ``--source`` / ``--tool`` / ``--path`` (``--file``'s path stands in for a missing
    ``--path``), inferred as the agent infers it."""
    if source is not None and source not in SOURCES:
        raise InputError(f"Invalid --source: {source}. Expected one of: {', '.join(SOURCES)}", field="source")
    file_path = path if path is not None else (
        os.path.abspath(snippet_file) if snippet_file and snippet_file != "-" else None)
    ext = os.path.splitext(file_path)[1] if file_path else ""
    chosen: SnippetSource = source or ("tool" if file_path and SOURCE_FILE_EXT.match(ext) else "text")
    note = None
    if source is None and file_path and chosen == "text":
        note = (f"inferred --source text from '{ext or file_path}' (not in the source-file extension set); "
                "pass --source tool --tool edit to evaluate tool-scoped rules")
    return SnippetContext(chosen, tool if tool is not None else ("edit" if chosen == "tool" else None), file_path, note)


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """One rule's verdict on the snippet: the rule and the conditions of it that matched.

    What the rule defines (name, path, provider, conditions, question, agents) is read from ``rule``
    itself rather than copied next to what matched."""

    rule: Rule
    matched_regex: tuple[str, ...]
    matched_ast: tuple[str, ...]
    skipped_ast: str | None

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def provider(self) -> str | None:
        return self.rule.source.provider if self.rule.source else None

    def defined(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """All the rule's regex and AST conditions."""
        return tuple(self.rule.condition or ()), tuple(self.rule.ast_condition or ())

    def to_json(self) -> dict[str, Any]:
        regex, ast = self.defined()
        out: dict[str, Any] = {
            "name": self.name, "path": self.rule.path, "sourceProvider": self.provider,
            "matched": {"regex": list(self.matched_regex), "ast": list(self.matched_ast)},
            "defined": {"regex": list(regex), "ast": list(ast)},
        }
        agents = self.rule.agents
        for key, value in (("skippedAst", self.skipped_ast), ("question", self.rule.question),
                           ("agents", list(agents) if agents else None)):
            if value is not None:
                out[key] = value
        return out

    def line(self, hit: bool) -> str:
        """The agent's line for the rule: ✓/✗, name, the conditions (matched ones for a hit)."""
        regex, ast = (self.matched_regex, self.matched_ast) if hit else self.defined()
        labelled = (
            ("condition: ", ", ".join(f"/{c}/" for c in regex)),
            ("astCondition: ", ", ".join(ast)),
            ("agents: ", ", ".join(self.rule.agents or ())),
            ("astCondition: ", self.skipped_ast),
            ("question (judged at runtime, not tested): ", self.rule.question),
        )
        parts = [label + text for label, text in labelled if text]
        provider = f" [{self.provider}]" if self.provider else ""
        return f"  {'✓' if hit else '✗'} {self.name}  {'  '.join(parts) or 'no active conditions'}{provider}"


@dataclass(frozen=True, slots=True)
class SnippetReport:
    """What ``rules test --snippet`` found: the context the snippet was checked in, the agent whose
    rules applied, and the rules that triggered and (with ``--verbose``) those that did not."""

    context: SnippetContext
    snippet: str
    agent: str
    triggered: tuple[RuleMatch, ...]
    not_triggered: tuple[RuleMatch, ...]

    @property
    def preview(self) -> str:
        single = re.sub(r"\s+", " ", self.snippet).strip()
        return single[:77] + "…" if len(single) > 80 else single

    @property
    def size(self) -> int:  # JavaScript's ``length``: UTF-16 code units
        return len(self.snippet.encode("utf-16-le", "surrogatepass")) // 2

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.context.source, "tool": self.context.tool, "filePath": self.context.file_path,
            "snippetPreview": self.preview, "snippetBytes": self.size,
            "evaluated": len(self.triggered) + len(self.not_triggered),
            "triggered": [m.to_json() for m in self.triggered],
            "notTriggered": [m.to_json() for m in self.not_triggered], "agent": self.agent,
        }
        if self.context.note:
            out["inferenceNote"] = self.context.note
        return out

    def lines(self, verbose: bool = False) -> list[str]:
        out = [f"TTSR test — source={self.context.label()} agent={self.agent} snippet={self.size}b",
               f'  "{self.preview}"', ""]
        if self.context.note:
            out += [f"note: {self.context.note}", ""]
        if not self.triggered:
            out.append(f"No rules triggered. (evaluated {len(self.not_triggered)})")
        else:
            out.append(f"Triggered ({len(self.triggered)})")
            out += [m.line(True) for m in self.triggered]
        if verbose and self.not_triggered:
            out += ["", f"Not triggered ({len(self.not_triggered)})"]
            out += [m.line(False) for m in self.not_triggered]
        return out


def _regex_matches(rule: Rule, snippet: str) -> tuple[str, ...]:
    out = []
    for pattern in rule.condition or ():
        try:
            if compile_rule_condition(pattern).test(snippet):
                out.append(pattern)
        except InputError:
            pass  # an invalid regex: the manager already rejected it with a warning
    return tuple(out)


def check_snippet(manager: TtsrManager, snippet: str, context: SnippetContext, agent: str) -> SnippetReport:
    """Check ``snippet`` against the rules registered in ``manager`` (``get_rules()``)."""
    ctx = context.match_context()
    manager.reset_buffer()
    hits = {r.name for r in manager.check_snapshot(snippet, ctx)}
    if context.source == "tool" and ctx.file_paths:
        hits |= {r.name for r in manager.check_ast_snapshot(snippet, ctx)}
    lang = language_for(ctx.file_paths)
    ast_ok = context.source == "tool" and lang is not None
    triggered: list[RuleMatch] = []
    not_triggered: list[RuleMatch] = []
    for rule in manager.get_rules():
        ast = tuple(rule.ast_condition or ())
        matched_ast = tuple(p for p in ast if ast_spans([p], snippet, lang or "")) if ast_ok else ()
        match = RuleMatch(rule, _regex_matches(rule, snippet), matched_ast,
                          SKIPPED_AST if ast and not ast_ok else None)
        (triggered if rule.name in hits else not_triggered).append(match)
    return SnippetReport(context, snippet, agent, tuple(triggered), tuple(not_triggered))


def isolated_manager() -> TtsrManager:
    """The manager of ``omp ttsr test --rule``: the agent's fixed settings for one rule in isolation."""
    return TtsrManager(TtsrSettings.of(enabled=True, context_mode="discard", interrupt_mode="always",
                                       repeat_mode="once", repeat_gap=10, builtin_rules=True, disabled_rules=[]))
