"""The public surface: what each package exports (``__all__``), and that nothing reaches past it.

Each package's ``__all__`` holds what other packages and users need; the rest of a package is private
by convention. ``PUBLIC`` below is the exported names as they stand: adding or removing a public name is
a decision, taken by editing this list in the same change. Code in one package imports another package's
names only if they are public, and the notebooks (the users' first code) do the same.
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

from tests.test_import_graph import MODULES, _package

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

PUBLIC = {
    "workbench.export": {
        "FORMATS", "Redaction", "Redactor", "conversation_markdown", "embed_json", "export_html", "path_json", "render_page", "session_payload", "stepper_payload", "triggers",
    },
    "workbench": {
        "WorkbenchError", "__version__"
    },
    "workbench.edits": {
        "AUTO", "EDIT_MODES", "EDIT_TOOLS", "INSPECTORS", "FileEntry", "FileOp", "FileOutput", "Inspection",
        "ModeChoice", "ToolView", "check_edit_mode", "choose_mode", "file_stream_key", "inspect",
        "inspect_apply_patch", "inspect_hashline", "inspect_patch", "inspect_replace", "inspect_sloppy",
        "stream_key", "tool_view", "DiffLine", "EditDiff", "FileDiff", "edit_diff", "line_diff"
    },
    "workbench.errors": {
        "AccessError", "Diagnostic", "FieldError", "InputError", "JudgeError", "JudgeFileError", "JudgePending",
        "NotFoundError", "RuleFileError", "SessionFileError", "StoreError", "StreamFileError",
        "TimeBoundError", "UsageError", "WorkbenchError", "WorkerFileError"
    },
    "workbench.rules": {
        "AGENT_EDIT_MODES", "DEFAULT_AGENT", "TTSR_DEFAULTS", "RuleSetOptions", "discover_rule_set",
        "AgentSettings", "AgentTemplates", "find_agent_templates", "templates_from", "JudgeState", "judge_state", "MAIN_AGENT", "SUB_AGENT", "SettingValue", "agent_from_session", "parse_rule_agents",
        "read_agent_settings", "rule_applies_to_agent", "rules_for_agent",
        "BucketedRule", "BundledSource", "ConditionAndScope", "DiscoveredRule", "EXAMPLES_KEY",
        "INTERRUPT_MODES", "InterruptMode", "JS_WHITESPACE", "OMP_PACKAGE_ENV", "PROVIDERS",
        "ParsedFrontmatter", "RULE_SUFFIXES", "Rule", "RuleBuckets", "RuleExample", "RuleLoadResult",
        "RuleResource", "RuleSource", "bucket_rules", "build_rule_from_markdown", "example_line",
        "find_bundled_source", "has_examples", "is_likely_file_glob", "js_trim", "js_trim_end", "js_trim_start",
        "load_rule_file", "load_rule_paths", "load_rules", "normalize_rule_field", "parse_examples",
        "parse_frontmatter", "parse_rule_condition_and_scope", "render_system_prompt", "resolve_rule_url",
        "resolve_rules", "rule_files", "split_scope_tokens"
    },
    "workbench.ttsr": {
        "CONTEXT_MODES", "CompiledCondition", "ContextMode", "DEFAULT_EDIT_MODE", "DEFAULT_INTERRUPT_TEMPLATE",
        "DEFAULT_SCOPE", "DEFAULT_SETTINGS", "DEFAULT_TOOL_REMINDER_TEMPLATE", "DEFAULT_WARNING_TEMPLATE",
        "Diagnostic", "EDIT_MODES", "EDIT_MODE_STRATEGIES", "INTERRUPT_MODES", "InjectionGap",
        "InjectionRecord", "InterruptMode", "JUDGED_CONTENT_MAX_TOKENS",
        "JUDGED_RULE_THRESHOLD", "JudgedCandidate", "LiteralIndex", "LiteralKey", "MSG_AST_FAILED",
        "MSG_INVALID_REGEX", "MSG_INVALID_SCOPE_TOKEN", "MSG_SCOPE_EXCLUDES_ALL", "MatchContext", "MatchSource",
        "MatcherEntry", "NATIVE_ALIASES", "PartialJsonParser", "PlaygroundReport", "REPEAT_MODES", "RepeatMode",
        "RuleEntry", "RuleScope", "Shape", "StreamBuffer", "ToolMatchers", "ToolScope", "TtsrManager", "TtsrSettings",
        "argument_paths", "ast_match", "ast_spans", "build_scope", "candidates_for", "check_template",
        "compile_rule_condition", "condition_matches", "count_tokens", "display_path", "engine_text", "explain_no_match",
        "explain_rule", "extname", "extract_added_lines", "format_prompt", "glob_match", "language_for",
        "literal_index", "load_template", "matcher_digest", "matcher_entries", "matcher_paths",
        "matches_any_path", "native_pattern", "normalize_path", "parse_envelope", "parse_language",
        "parse_partial_json", "path_candidates", "provably_linear", "render_rules", "render_template",
        "repair_json", "required_literal_sets", "required_literals", "resolve_tool", "rule_patterns", "rule_str_list", "split_flags",
        "split_sloppy_sections", "substitute", "token_prefix", "tool_file_paths"
    },
    "workbench.sessions": {
        "GIVE_WAY_EVERY", "give_way", "install_give_way", "CURRENT_VERSION", "KNOWN_ENTRY_TYPES", "KNOWN_TYPES18", "Positions", "read_record", "results_left_from", "Diagnostic", "Entry", "OnDisk", "FLAVOR_BUTTONS", "FLAVOR_CHOICES",
        "FLAVOURS", "ContextRules", "Flavor", "FlavorGuess", "SessionFlavour", "session_flavour",
        "ModelUsage", "NavigationResult", "NotLoaded", "Progress", "STREAM_SUFFIX", "Session", "SessionContext",
        "SessionInfo", "SessionTree", "TreeNode", "UsageTotals", "append_label",
        "branch_path", "build_session_context", "choose_flavor", "detect_flavor", "flavour_aliases",
        "generate_session_records", "generate_session_text", "is_session_name", "js_number", "load_session",
        "parse_session_bytes", "parse_session_file", "FirstPass", "PassCache", "start_pass_keeper", "whole_lines_end", "parse_session_text", "parse_timestamp_ms",
        "paused_gc", "gc_freeze_lock",
        "resolve_flavor", "resolve_labels", "session_files", "session_info",
        "usage_totals",
        "TOKEN_FIELDS", "BranchUsage", "ChildUsage", "JudgeUsage", "branch_usage", "subagent_files",
        "SubagentLink", "child_links", "entry_links", "parent_file", "MAX_IMAGE_BYTES", "ShownImage", "image_part", "answered_call",
    },
    "workbench.tree": {
        "FILTER_MODES", "FILTER_TAGS", "REGISTRY", "FuzzyMatch", "TreeFlavour", "TreeList", "TreeRow", "classic_match",
        "flavour", "fuzzy_filter", "normalize_many", "normalized_text", "query_matcher", "time_tree", "word_match",
        "word_match18", "word_matches",
    },
    "workbench.replay": {
        "API_KEY_ENV", "AskJudge", "Bounded", "BufferView", "CHUNK_POLICIES", "ChunkPolicy", "Conversation",
        "Firing", "FiringRecorder", "FixedJudge", "HttpJudge", "Judge", "JudgeQuestion", "JudgeRequest",
        "JudgedBacktest", "JudgedOutput", "Lane", "LastRuleSet", "Marker", "Message", "NO_CONTINUATION", "PreCheck", "ReplayConfig", "ReplayEvent",
        "ReplayResult", "ReplaySource", "RuleState", "ScriptJudge", "SessionCopy", "SessionJudging", "SimulatedSession",
        "Snapshot", "StepStatus", "Stepper", "Stream", "StreamEvent", "StreamHeader", "TimeBound", "Timeline",
        "ast_patterns", "build_timeline", "chunk_text", "completed_outputs", "culprits", "derive_stream", "event", "example_judge",
        "find_slow_rules", "guard", "has_condition", "interrupts", "judge_from_option", "judge_line",
        "judged_outcome", "make_stream", "may_hang", "not_registered", "open_stream", "parse_event",
        "parse_stream", "probe_kit", "read_stream", "record_firings", "run_session",
        "snippet", "summarize", "tally_session", "text_of", "thaw", "wait_all", "write_stream",
        "step_at_point", "stream_point",
    },
    "workbench.store": {
        "GROUPINGS", "IngestError", "IngestSummary", "Store", "judge_by_rule", "session_usage", "usage_by",
        "usage_sessions", "usage_totals",
    },
    "workbench.backtest": {
        "BacktestOptions", "BacktestResult", "Hit", "RuleSummary", "SessionOutcome", "aggregate",
        "backtest_batch", "backtest_session", "changed", "compare_backtests", "format_comparison", "load_rule_set", "run_backtest", "write_results"
    },
    "workbench.rulecheck": {
        "DEFAULT_MAX_BYTES", "ExampleResult", "HistoryOutput", "RuleExamples", "RuleMatch", "SNIPPET_SOURCES",
        "ScanHit", "ScanReport", "SnippetContext", "SnippetReport", "Validation", "check_rule_text",
        "check_snippet", "history_outputs", "isolated_manager", "read_scan_text", "run_example",
        "run_rule_examples", "scan_files", "scan_paths", "snippet_context", "validate_rule"
    },
    "workbench.ui": {
        "AppState", "BacktestView", "DraftsView", "PlaygroundView", "RulesView", "ServedRoots", "SessionsView",
        "ShareBar", "StepperView", "TimelineView", "TreeView", "configure", "create_app", "default_paths",
        "draft_rules", "export_bytes", "exposure"
    },
    "workbench.cli": {
        "build_parser", "main"
    },
}

# shared/CONTRACT.md §1: the names conformance suites beyond the project call.
CONTRACT = {
    "workbench.ttsr": {"TtsrManager", "TtsrSettings", "MatchContext", "Diagnostic"},
    "workbench.rules": {"Rule", "RuleSource"},
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_exported_names_are_the_recorded_ones(package):
    module = importlib.import_module(package)
    assert set(module.__all__) == PUBLIC[package]
    assert len(module.__all__) == len(set(module.__all__)), "a name is listed twice"


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_every_exported_name_exists(package):
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


def test_the_contract_names_are_public():
    for package, names in CONTRACT.items():
        assert names <= PUBLIC[package], package


def test_every_package_has_a_recorded_surface():
    packages = {f"workbench.{_package(m)}" for m in MODULES if _package(m) not in ("workbench", "__main__")}
    assert packages - {"workbench.errors"} <= set(PUBLIC)


def _imported(tree: ast.AST) -> list[tuple[str, str, int]]:
    """(package, name, line) of every ``from workbench.<package>[.module] import name``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("workbench"):
            package = ".".join(node.module.split(".")[:2])
            out.extend((package, alias.name, node.lineno) for alias in node.names)
    return out


def test_packages_use_only_each_others_public_names():
    reached = []
    for module, path in MODULES.items():
        own = f"workbench.{_package(module)}"
        for package, name, line in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            if package != own and package in PUBLIC and name not in PUBLIC[package]:
                reached.append(f"{module}:{line} imports {package}…{name}")
    assert reached == []


def _notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_there_are_notebooks_to_check():
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_use_only_public_names_from_the_packages_themselves(notebook):
    tree = ast.parse(_notebook_code(notebook))
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("workbench")]
    assert imports, "the notebook imports nothing from workbench: the check would pass vacuously"
    for node in imports:
        assert node.module in PUBLIC, f"{notebook.name}: imports from a private module {node.module}"
        private = [a.name for a in node.names if a.name not in PUBLIC[node.module]]
        assert private == [], f"{notebook.name}: {node.module} does not export {private}"
