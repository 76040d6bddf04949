"""The seam between the simulated session and the engine (``workbench.ttsr``).

Everything the replay needs from the engine goes through here: the manager and its contexts, partial
JSON parsing of tool arguments, path candidates, the tools' matcher surfaces, condition compiling, AST
node spans and the templates. No other module of ``workbench.replay`` imports ``workbench.ttsr``
(tests/test_import_graph.py holds it), so the engine's names the replay depends on are the ones below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from workbench.edits import AUTO, choose_mode, tool_view
from workbench.rules import Rule, js_trim
from workbench.ttsr import (
    DEFAULT_INTERRUPT_TEMPLATE,
    DEFAULT_TOOL_REMINDER_TEMPLATE,
    DEFAULT_WARNING_TEMPLATE,
    JUDGED_CONTENT_MAX_TOKENS,
    JUDGED_RULE_THRESHOLD,
    JudgedCandidate,
    LiteralIndex,
    LiteralKey,
    MatchContext,
    MatchSource,
    PartialJsonParser,
    TtsrManager,
    TtsrSettings,
    argument_paths,
    ast_spans,
    build_scope,
    candidates_for,
    compile_rule_condition,
    count_tokens,
    engine_text,
    explain_no_match,
    language_for,
    literal_index,
    load_template,
    parse_partial_json,
    provably_linear,
    render_rules,
    rule_patterns,
    rule_str_list,
    token_prefix,
)

Key = LiteralKey  # a required literal: (text in engine units, case-insensitive)

__all__ = [
    "DEFAULT_WARNING_TEMPLATE",
    "JUDGED_CONTENT_MAX_TOKENS",
    "JUDGED_RULE_THRESHOLD",
    "JudgedCandidate",
    "Key",
    "LiteralIndex",
    "MatchContext",
    "PartialJsonParser",
    "ToolSurface",
    "TtsrManager",
    "TtsrSettings",
    "ast_spans",
    "compile_rule_condition",
    "count_tokens",
    "engine_text",
    "explain_no_match",
    "literal_index",
    "provably_linear",
    "render_rules",
    "rule_patterns",
    "token_prefix",
    "context",
    "default_templates",
    "edit_mode_for",
    "language_for",
    "new_manager",
    "parse_partial",
    "path_candidates",
    "render",
    "resolve_templates",
    "rule_sources",
    "rule_tool_gate",
    "tool_name_key",
    "tool_surface",
]


def new_manager(settings: Any) -> TtsrManager:
    return TtsrManager(settings)


def parse_partial(text: str) -> Any:
    """Arguments as the agent sees them mid-stream: the partial JSON parsed leniently (never raises)."""
    value = parse_partial_json(text)
    return value if isinstance(value, Mapping) else {}


@lru_cache(maxsize=4096)
def _candidates(raw_paths: tuple[str, ...], cwd: str) -> tuple[str, ...]:
    # Pure and called at every tool-call delta with the same few paths: worth memoising.
    return tuple(candidates_for(list(raw_paths), cwd))


def path_candidates(raw: str, cwd: str) -> list[str]:
    return list(_candidates((raw,), cwd))


@dataclass(frozen=True, slots=True)
class ToolSurface:
    """What the manager sees for one tool call at one delta, and the edit mode it was read
    with and why (``mode`` ``None``: not the edit tool)."""

    paths: tuple[str, ...] | None
    digest: str | None
    entries: tuple[tuple[str, str], ...]  # (path, digest)
    mode: str | None = None
    reason: str = ""


def edit_mode_for(tool_name: str, args: Mapping[str, Any], edit_mode: str | None) -> str | None:
    """The edit mode to read a call with: the configured one, else read from the call's arguments
    (a recording does not say which mode the agent ran in; docs/edit-modes.md)."""
    return choose_mode(tool_name, args, edit_mode or AUTO).mode


def tool_surface(tool_name: str, args: Mapping[str, Any], cwd: str, edit_mode: str | None, *,
                 final: bool = False) -> ToolSurface:
    """Matcher paths (normalised to candidates, de-duplicated), digest and entries of a tool call as the
    agent's tools report them (``workbench.edits``); ``edit_mode`` ``None`` or ``auto`` reads each call's
    mode from its arguments. ``final``: the arguments are complete (``toolcall_end``)."""
    view = tool_view(tool_name, args, edit_mode=edit_mode or AUTO, final=final)
    # filePaths as the agent's inspector computes them (the tool's matcherPaths as candidates, else
    # the argument scan), with the candidate step memoised.
    raw = view.paths
    file_paths = _candidates(tuple(raw), cwd) if raw else ()
    if not file_paths:
        scanned = argument_paths(args)
        file_paths = _candidates(tuple(scanned), cwd) if scanned else ()
    return ToolSurface(
        file_paths or None,
        view.digest,
        tuple((e.path, e.digest) for e in view.entries),
        view.mode,
        view.choice.reason,
    )


def render(template: str, rules: Sequence[Rule], *, cwd: str, home: str | None) -> str:
    """Each rule rendered with ``template`` and joined by one blank line."""
    return render_rules(list(rules), template, cwd=cwd, home=home)


def default_templates() -> tuple[str, str]:
    return DEFAULT_INTERRUPT_TEMPLATE, DEFAULT_TOOL_REMINDER_TEMPLATE


_INTERRUPT_KEYS = ("interrupt", "ttsr-interrupt", "ttsr_interrupt")
_REMINDER_KEYS = ("reminder", "tool_reminder", "tool-reminder", "toolReminder", "ttsr-tool-reminder")


def resolve_templates(templates: Any) -> tuple[str, str]:
    """(interrupt, tool reminder) texts from ``None`` (defaults), a pair, or a mapping with
    ``interrupt`` / ``reminder`` keys; a ``Path`` value is read with the engine's template loader."""
    interrupt, reminder = default_templates()
    if templates is None:
        return interrupt, reminder
    if isinstance(templates, Mapping):
        interrupt = next((templates[k] for k in _INTERRUPT_KEYS if templates.get(k) is not None), interrupt)
        reminder = next((templates[k] for k in _REMINDER_KEYS if templates.get(k) is not None), reminder)
    else:
        pair = list(templates)
        interrupt = pair[0] if pair and pair[0] is not None else interrupt
        reminder = pair[1] if len(pair) > 1 and pair[1] is not None else reminder
    return (load_template(interrupt) if isinstance(interrupt, Path) else interrupt,
            load_template(reminder) if isinstance(reminder, Path) else reminder)


_WARNING_KEYS = ("warning", "ttsr-warning", "ttsr_warning")


def warning_template(templates: Any) -> str:
    """The judged-rule warning template: a mapping's ``warning`` key (text or ``Path``), else the default."""
    if isinstance(templates, Mapping):
        value = next((templates[k] for k in _WARNING_KEYS if templates.get(k) is not None), None)
        if value is not None:
            return load_template(value) if isinstance(value, Path) else value
    return DEFAULT_WARNING_TEMPLATE


def context(source: MatchSource, *, tool_name: str | None = None, file_paths: Sequence[str] | None = None,
            stream_key: str | None = None) -> MatchContext:
    return MatchContext(source, tool_name=tool_name, file_paths=list(file_paths) if file_paths else None,
                        stream_key=stream_key)


def rule_sources(rule: Rule) -> tuple[bool, bool, bool]:
    """Whether ``rule`` can match in (text, thinking, tool) contexts: its scope as the manager builds
    it, and no text or thinking match for a rule with globs (those contexts carry no file paths)."""
    scope = build_scope(None if rule.scope is None else rule_str_list(rule.scope), lambda token: None)
    globbed = any(js_trim(g) for g in rule_str_list(rule.globs))
    return (scope.allow_text and not globbed, scope.allow_thinking and not globbed,
            scope.allow_any_tool or bool(scope.tool_scopes))


def rule_tool_gate(rule: Rule) -> tuple[tuple[tuple[str | None, str | None], ...] | None, tuple[str, ...]]:
    """Which tool calls ``rule`` can see, as the manager gates them: its scope's (tool name, path
    glob) entries (``None``: any tool call; a ``None`` part is unrestricted) and its global globs
    (empty: no path gate)."""
    scope = build_scope(None if rule.scope is None else rule_str_list(rule.scope), lambda token: None)
    globs = tuple(g for g in (js_trim(raw) for raw in rule_str_list(rule.globs)) if g)
    pairs = None if scope.allow_any_tool else tuple((ts.tool_name, ts.path_glob) for ts in scope.tool_scopes)
    return pairs, globs


def tool_name_key(name: object) -> str:
    """A tool name as scopes compare it (trimmed, lower case)."""
    return js_trim(name).lower() if isinstance(name, str) else ""
