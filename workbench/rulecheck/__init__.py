"""Rule checks: a rule's own examples run through the engine, and existing files scanned like a linter.

``examples`` presents each example of a rule to a fresh simulated session and says why it failed
(``workbench rules test`` and the rule editor); ``scan`` presents existing files as the agent's writes
and reports where rules would fire at ``file:line:column`` (``workbench rules scan``).

Public API:

- ``run_rule_examples(rule) -> RuleExamples``, ``run_example(rule, example) -> ExampleResult``,
  ``check_rule_text(content, *, path, name=None)`` (the editor's live check).
- ``scan_paths(paths, rules, *, cwd, ...) -> ScanReport`` with ``ScanHit`` rows.
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

__all__ = [
    "ExampleResult",
    "RuleExamples",
    "ScanHit",
    "ScanReport",
    "check_rule_text",
    "run_example",
    "run_rule_examples",
    "scan_paths",
]
