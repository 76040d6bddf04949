"""The TTSR engine: rule registry, stream buffers, JS-regex and ast-grep conditions (pure).

``TtsrManager`` reproduces the reference manager (oh-my-pi ``export/ttsr.ts`` @ 7bf401f), with the
judged rules of 18.3 (``question``: ``workbench.ttsr.judged``); the other names are its building
blocks, public for the stepper and the rule tester.
"""

from workbench.errors import Diagnostic
from workbench.ttsr.ast import (
    NATIVE_ALIASES,
    ast_match,
    ast_spans,
    extname,
    language_for,
    native_pattern,
    parse_language,
)
from workbench.ttsr.ast_why import explain_no_match, rule_patterns
from workbench.ttsr.code_units import engine_text
from workbench.ttsr.conditions import (
    CompiledCondition,
    compile_rule_condition,
    split_flags,
)
from workbench.ttsr.context import (
    InjectionGap,
    InjectionRecord,
    MatchContext,
    MatchSource,
)
from workbench.ttsr.globs import glob_match, matches_any_path, normalize_path
from workbench.ttsr.judged import (
    JUDGED_CONTENT_MAX_TOKENS,
    JUDGED_RULE_THRESHOLD,
    JudgedCandidate,
    count_tokens,
    token_prefix,
)
from workbench.ttsr.linearity import provably_linear
from workbench.ttsr.literals import Key as LiteralKey
from workbench.ttsr.literals import LiteralIndex, literal_index, required_literal_sets, required_literals
from workbench.ttsr.manager import TtsrManager, rule_str_list
from workbench.ttsr.matchers import (
    DEFAULT_EDIT_MODE,
    EDIT_MODE_STRATEGIES,
    EDIT_MODES,
    MatcherEntry,
    ToolMatchers,
    extract_added_lines,
    matcher_digest,
    matcher_entries,
    matcher_paths,
    parse_envelope,
    resolve_tool,
    split_sloppy_sections,
    tool_file_paths,
)
from workbench.ttsr.messages import MSG_AST_FAILED, MSG_INVALID_REGEX, MSG_INVALID_SCOPE_TOKEN, MSG_SCOPE_EXCLUDES_ALL
from workbench.ttsr.partial_json import (
    PartialJsonParser,
    parse_partial_json,
    repair_json,
)
from workbench.ttsr.paths import argument_paths, candidates_for, path_candidates
from workbench.ttsr.pattern_shape import Shape
from workbench.ttsr.playground import PlaygroundReport, explain_rule
from workbench.ttsr.rule_entry import RuleEntry
from workbench.ttsr.scope import DEFAULT_SCOPE, RuleScope, ToolScope, build_scope
from workbench.ttsr.settings import (
    CONTEXT_MODES,
    INTERRUPT_MODES,
    REPEAT_MODES,
    ContextMode,
    InterruptMode,
    RepeatMode,
    TtsrSettings,
)
from workbench.ttsr.settings import DEFAULTS as DEFAULT_SETTINGS
from workbench.ttsr.templates import (
    DEFAULT_INTERRUPT_TEMPLATE,
    DEFAULT_TOOL_REMINDER_TEMPLATE,
    DEFAULT_WARNING_TEMPLATE,
    check_template,
    display_path,
    format_prompt,
    load_template,
    render_rules,
    render_template,
    substitute,
)
from workbench.ttsr.window import StreamBuffer, condition_matches

__all__ = [
    "CONTEXT_MODES",
    "DEFAULT_EDIT_MODE",
    "DEFAULT_INTERRUPT_TEMPLATE",
    "DEFAULT_SCOPE",
    "DEFAULT_SETTINGS",
    "DEFAULT_TOOL_REMINDER_TEMPLATE",
    "DEFAULT_WARNING_TEMPLATE",
    "Diagnostic",
    "EDIT_MODES",
    "EDIT_MODE_STRATEGIES",
    "INTERRUPT_MODES",
    "InjectionGap",
    "LiteralIndex",
    "LiteralKey",
    "InjectionRecord",
    "JUDGED_CONTENT_MAX_TOKENS",
    "JUDGED_RULE_THRESHOLD",
    "JudgedCandidate",
    "MSG_AST_FAILED",
    "MSG_INVALID_REGEX",
    "MSG_INVALID_SCOPE_TOKEN",
    "MSG_SCOPE_EXCLUDES_ALL",
    "NATIVE_ALIASES",
    "REPEAT_MODES",
    "CompiledCondition",
    "ContextMode",
    "InterruptMode",
    "MatchContext",
    "MatchSource",
    "MatcherEntry",
    "PartialJsonParser",
    "RepeatMode",
    "PlaygroundReport",
    "RuleEntry",
    "RuleScope",
    "Shape",
    "ToolMatchers",
    "ToolScope",
    "TtsrManager",
    "TtsrSettings",
    "argument_paths",
    "ast_match",
    "ast_spans",
    "build_scope",
    "candidates_for",
    "check_template",
    "compile_rule_condition",
    "count_tokens",
    "display_path",
    "engine_text",
    "explain_no_match",
    "explain_rule",
    "extname",
    "extract_added_lines",
    "format_prompt",
    "glob_match",
    "language_for",
    "literal_index",
    "native_pattern",
    "parse_language",
    "rule_patterns",
    "load_template",
    "matcher_digest",
    "matcher_entries",
    "matcher_paths",
    "matches_any_path",
    "normalize_path",
    "parse_envelope",
    "parse_partial_json",
    "path_candidates",
    "provably_linear",
    "render_rules",
    "render_template",
    "repair_json",
    "required_literal_sets",
    "required_literals",
    "resolve_tool",
    "rule_str_list",
    "split_flags",
    "split_sloppy_sections",
    "substitute",
    "token_prefix",
    "tool_file_paths",
    "StreamBuffer",
    "condition_matches",
]
