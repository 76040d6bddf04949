"""Judged rules (reference 18.3): the ``question`` frontmatter key and how such rules are bucketed."""

from __future__ import annotations

import pytest

from workbench.rules import Rule, RuleSource, bucket_rules, build_rule_from_markdown, parse_rule_condition_and_scope

SOURCE = RuleSource(provider="test", provider_name="Test", path="/x/r.md", level="project")


def build(frontmatter: str) -> Rule:
    return build_rule_from_markdown("r.md", f"---\n{frontmatter}\n---\nbody\n", "/x/r.md", SOURCE)


def test_question_is_trimmed():
    assert build('question: "  Does the reply promise work it has not done?  "').question == (
        "Does the reply promise work it has not done?"
    )


@pytest.mark.parametrize("value", ['""', '"   "', "[a, b]", "42", "true", "null"])
def test_blank_or_non_string_question_is_absent(value):
    assert build(f"question: {value}").question is None


def test_question_absent_by_default_and_sits_beside_the_conditions():
    plain = build("condition: foo")
    assert plain.question is None
    judged = build("condition: foo\nquestion: Is it bad?\nscope: tool")
    assert (judged.condition, judged.question, judged.scope) == (("foo",), "Is it bad?", ("tool",))


def test_parse_returns_question_field():
    parsed = parse_rule_condition_and_scope({"question": "\tWhy?\n"})
    assert parsed.question == "Why?"
    assert parsed.condition is None and parsed.scope is None


class Recorder:
    def __init__(self):
        self.offered = []

    def add_rule(self, rule):
        self.offered.append(rule.name)
        return True


def test_a_question_alone_is_a_ttsr_trigger():
    manager = Recorder()
    judged = Rule("j", "/r/j.md", "body", question="Is it bad?")
    none = Rule("n", "/r/n.md", "body", description="d")
    buckets = bucket_rules([judged, none], manager)
    assert manager.offered == ["j"]
    assert [b.rule.name for b in buckets.ttsr] == ["j"]
    assert [b.rule.name for b in buckets.rulebook] == ["n"]
