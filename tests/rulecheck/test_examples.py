"""Running rule examples through the engine (``workbench.rulecheck.examples``)."""

from __future__ import annotations

import pytest

from workbench.rulecheck.examples import (
    check_rule_text,
    presentations,
    run_rule_examples,
    sample_path,
)
from workbench.rules import Rule, load_rule_paths
from workbench.rules.examples import RuleExample
from workbench.ttsr import glob_match

UNWRAP_TEXT_AND_RS = """---
condition: '\\.unwrap\\(\\)'
scope: text, tool:edit(*.rs)
examples:
{examples}
---
Use ? instead.
"""


def rule_md(examples: str, head: str = UNWRAP_TEXT_AND_RS) -> str:
    return head.format(examples=examples)


def test_passing_examples_fire_exactly_when_expected():
    report = check_rule_text(rule_md(
        "  - text: 'let v = res.unwrap();'\n    triggers: true\n"
        "  - text: 'let v = res?;'\n    triggers: false\n"
        "  - text: 'x.unwrap_or_default()'\n    triggers: false\n"
        "  - tool: edit\n    path: src/a.rs\n    old_string: ''\n    new_string: 'a.unwrap()'\n    triggers: true\n"))
    assert report.error is None
    assert [r.passed for r in report.results] == [True, True, True, True]
    first = report.results[0]
    assert first.fired[0][0] == "as prose"
    assert first.fired[0][1].offset == len("let v = res")
    assert first.fired[0][1].snippet == "let v = res.unwrap();"
    assert report.ok


def test_text_example_on_a_tool_only_rule_is_written_to_a_path_the_scope_accepts():
    head = """---
condition: 'console\\.log\\('
scope: tool:edit(src/**/*.ts), tool:write(src/**/*.ts)
examples:
{examples}
---
Use the logger.
"""
    report = check_rule_text(rule_md("  - text: 'console.log(1)'\n    triggers: true", head))
    (result,) = report.results
    assert result.passed
    labels = [label for label, _ in result.fired]
    assert labels == ["as edit call to src/example.ts", "as write call to src/example.ts"]
    assert result.fired[0][1].file_paths[0] == "src/example.ts"


def test_failure_to_fire_reports_each_gate():
    report = check_rule_text(rule_md(
        "  - thinking: 'x.unwrap()'\n    triggers: true\n"
        "  - tool: edit\n    path: src/a.py\n    new_string: 'x.unwrap()'\n    triggers: true\n"
        "  - text: 'x.expect(\"no\")'\n    triggers: true\n"))
    thinking, wrong_path, no_match = report.results
    assert not thinking.passed and "scope: thinking not monitored" in thinking.reason
    assert not wrong_path.passed and "not in [tool:edit(*.rs)]" in wrong_path.reason
    assert not no_match.passed and "no condition matched" in no_match.reason
    assert "as prose" in no_match.reason and "as edit call to example.rs" in no_match.reason
    assert len(report.failures) == 3 and not report.ok


def test_unexpected_firing_reports_where_and_what_matched():
    report = check_rule_text(rule_md("  - text: 'fine then x.unwrap() oops'\n    triggers: false"))
    (result,) = report.results
    assert not result.passed
    assert result.reason.startswith("expected not to fire but fired as prose at offset 11")
    assert "x.unwrap()" in result.reason


def test_ast_example_needs_a_language_and_reports_why():
    head = """---
astCondition: $EXPR as any
examples:
{examples}
---
No casts to any.
"""
    report = check_rule_text(rule_md(
        "  - tool: write\n    path: src/a.ts\n    content: 'const u = (req as any).user;'\n    triggers: true\n"
        "  - tool: write\n    path: src/a.ts\n    content: 'const u = req.user;'\n    triggers: true\n"
        "  - tool: write\n    content: 'const u = (req as any).user;'\n    triggers: true\n", head))
    hit, miss, no_lang = report.results
    assert hit.passed and hit.fired[0][1].via == "ast"
    assert hit.fired[0][1].snippet == "const u = (req as any).user;"
    assert hit.fired[0][1].offset == len("const u = (")
    assert not miss.passed and "AST pattern did not match" in miss.reason
    assert not no_lang.passed and "no path with an extension" in no_lang.reason


def test_rule_without_trigger_says_so():
    report = check_rule_text("---\ndescription: d\nexamples:\n  - text: x\n    triggers: true\n---\nbody\n")
    (result,) = report.results
    assert not result.passed and "not a TTSR rule" in result.reason


def test_bad_examples_become_an_error_with_file_line_and_field(tmp_path):
    path = tmp_path / "r.md"
    path.write_text(rule_md("  - text: a\n    triggers: true\n  - text: b\n    triggers: maybe"), encoding="utf-8")
    (rule,) = load_rule_paths([str(path)])
    report = run_rule_examples(rule)
    assert report.results == () and not report.ok
    assert report.error == f"{path}:7: field 'examples[1].triggers': must be true or false, got a string 'maybe'"


@pytest.mark.parametrize("glob", ["src/**/*.ts", "*.{ts,{js,jsx}}", "**/*.rs", "[abc]/x?.py", "lib/*.rs", "a\\*b.md"])
def test_sample_path_matches_its_glob(glob):
    path = sample_path(glob)
    assert path is not None and glob_match(glob, path)


def test_default_scope_text_example_is_tried_as_prose_and_as_a_write():
    rule = Rule("r", "r.md", "b", condition=["x"])
    example = RuleExample(0, "text", True, text="x")
    assert [p.label for p in presentations(rule, example)] == ["as prose", "as write call"]
