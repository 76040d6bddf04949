"""Rule checks: a rule's own examples run through the engine, and existing files scanned like a linter.

``examples`` presents each example of a rule to a fresh simulated session and says why it failed
(``workbench rules test`` and the rule editor); ``scan`` presents existing files as the agent's writes
and reports where rules would fire at ``file:line:column`` (``workbench rules scan``).

Public API:

- ``run_rule_examples(rule) -> RuleExamples``, ``run_example(rule, example) -> ExampleResult``,
  ``check_rule_text(content, *, path, name=None)`` (the editor's live check).
- ``scan_paths(paths, rules, *, cwd, gitignore=True, max_bytes=DEFAULT_MAX_BYTES) -> ScanReport`` with
  ``ScanHit`` rows; ``scan_files`` / ``read_scan_text``: the agent's scan file set (``.gitignore``,
  hidden files, the 5 MiB limit).
- ``snippet_context(source, tool, path, file)`` / ``check_snippet(manager, snippet, context, agent)`` ->
  ``SnippetReport`` (``omp ttsr test``); ``isolated_manager()``: its manager for rule files alone.
- ``history_outputs(session)`` -> ``HistoryOutput`` rows and ``validate_rule(rule, outputs, judge)`` ->
  ``Validation``: ``/omfg``'s check of a rule against a session's history.
"""

from __future__ import annotations

from workbench.rulecheck.examples import (
    ExampleResult,
    RuleExamples,
    check_rule_text,
    run_example,
    run_rule_examples,
)
from workbench.rulecheck.scan import ScanHit, ScanReport, scan_paths
from workbench.rulecheck.snippet import (
    SOURCES as SNIPPET_SOURCES,
)
from workbench.rulecheck.snippet import (
    RuleMatch,
    SnippetContext,
    SnippetReport,
    check_snippet,
    isolated_manager,
    snippet_context,
)
from workbench.rulecheck.validate import HistoryOutput, Validation, history_outputs, validate_rule
from workbench.rulecheck.walk import DEFAULT_MAX_BYTES, read_scan_text, scan_files

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ExampleResult",
    "HistoryOutput",
    "RuleExamples",
    "RuleMatch",
    "SNIPPET_SOURCES",
    "ScanHit",
    "ScanReport",
    "SnippetContext",
    "SnippetReport",
    "Validation",
    "check_rule_text",
    "check_snippet",
    "history_outputs",
    "isolated_manager",
    "read_scan_text",
    "run_example",
    "run_rule_examples",
    "scan_files",
    "scan_paths",
    "snippet_context",
    "validate_rule",
]
