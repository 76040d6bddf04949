"""The rule playground: matches with groups and positions, gates, parse errors, AST bindings."""

from __future__ import annotations

import pytest

from workbench.rules import Rule
from workbench.ttsr import TtsrManager
from workbench.ttsr.context import MatchContext
from workbench.ttsr.playground import explain_rule, regex_report


def _rule(**fields) -> Rule:
    return Rule(fields.pop("name", "r"), "/rules/r.md", "body", **fields)


def test_hits_carry_groups_names_and_line_columns() -> None:
    report = regex_report("(?i)(?<w>un)(wrap)\\(", "a\nx.UNwrap() y.unwrap(")
    assert report.flags == "i" and report.error is None
    assert [(h.match.text, h.match.line, h.match.column) for h in report.hits] == [("UNwrap(", 2, 3), ("unwrap(", 2, 14)]
    first = report.hits[0]
    assert [g.text for g in first.groups if g] == ["UN", "wrap"] and first.names == (("w", 1),)


def test_positions_count_characters_not_utf16_units() -> None:
    text = "😀😀 let x = y.unwrap()"
    (hit,) = regex_report("unwrap", text).hits
    assert text[hit.match.start:hit.match.end] == "unwrap"


def test_a_group_that_took_no_part_is_none() -> None:
    (hit,) = regex_report("a(b)?(c)", "ac").hits
    assert hit.groups[0] is None and hit.groups[1].text == "c"


@pytest.mark.parametrize(("pattern", "culprit"), [
    ("(a", "("), ("a)", ")"), ("a{2,1}", "}"), ("[b-a]x", "a"), ("(?i)x(?<=a", "("), ("a**", "*"),
])
def test_syntax_errors_name_a_position(pattern: str, culprit: str) -> None:
    report = regex_report(pattern, "anything")
    assert report.error and report.error.startswith("Invalid regular expression")
    assert report.error_position is not None and pattern[report.error_position] == culprit


def test_the_playground_agrees_with_the_manager_on_gates() -> None:
    rule = _rule(condition=["\\.unwrap\\("], globs=["*.rs"])
    prose = explain_rule(rule, "x.unwrap()", source="text")
    assert not prose.fires and prose.why and prose.why.startswith("path gate")
    assert prose.conditions[0].hits, "the regex itself matches: the gate is what stops it"
    tool = explain_rule(rule, "x.unwrap()", source="tool", tool_name="edit", path="src/main.rs")
    manager = TtsrManager()
    manager.add_rule(rule)
    expected = bool(manager.check_snapshot("x.unwrap()", MatchContext("tool", tool_name="edit", file_paths=["src/main.rs"])))
    assert tool.fires is expected is True and tool.why is None


def test_a_rule_the_manager_refuses_says_why() -> None:
    report = explain_rule(_rule(condition=["(unclosed"]), "text")
    assert not report.registered and not report.fires and report.rejected
    assert report.warnings and report.warnings[0].startswith("r: ")


def test_ast_condition_shows_tree_nodes_bindings_and_parse_errors() -> None:
    rule = _rule(ast_condition=["$X as any"], scope=["tool:write(*.ts)"])
    report = explain_rule(rule, "const a = b as any;\nlet c = (d as any) +;", source="tool", path="src/a.ts")
    assert report.fires
    (ast,) = report.ast
    assert [h.node.text for h in ast.hits] == ["b as any", "d as any"]
    assert [dict(h.bindings)["$X"][0].text for h in ast.hits] == ["b", "d"]
    assert report.tree and "as_expression" in report.tree
    assert report.parse_errors and report.parse_errors[0].line == 2


def test_ast_condition_without_a_known_language_says_so() -> None:
    rule = _rule(ast_condition=["$X as any"])
    report = explain_rule(rule, "b as any", source="tool", path="notes")
    assert report.ast[0].error and "no language" in report.ast[0].error


def test_ast_condition_on_a_dynamic_grammar_language() -> None:
    # toml is parsed by the agent's native engine; the workbench loads a grammar for it dynamically.
    rule = _rule(ast_condition=['version = "1.0"'], scope=["tool:write(*.toml)"])
    report = explain_rule(rule, '[package]\nversion = "1.0"\n', source="tool", path="Cargo.toml")
    (ast,) = report.ast
    assert ast.error is None and [h.node.text for h in ast.hits] == ['version = "1.0"']
    assert report.fires
