"""Which conditions the time bound may skip: provably linear ones only."""

from __future__ import annotations

import pytest

from workbench.rules import Rule
from workbench.ttsr.conditions import compile_rule_condition
from workbench.ttsr.linearity import pattern_is_linear, provably_linear

LINEAR = [r"\.unwrap\(\)", r"console\.(log|debug)\(", r"panic!\(|todo!\(", r"\bas any\b", "<any>", "a?b",
          r"\bnever\b[\s\S]{0,300}?\bworks\b", r"(?s)<script>.{0,200}?</script>", r"(?i)\bdeprecated api\b"]
NOT_LINEAR = [r"(a+)+c", r"(a+)+b\d", r"(a|aa)*c", r"(x\s?){2}y", r"(a{0,10}){0,10}b", r"(a)\1", r":\s*any\b",
              r"(?=[\s\S]*foo)", r"[ab]{0,5}[cd]{0,5}[ef]{0,5}", r"(?<=a+)b", r"a.*b", r"\w{2,}x"]


@pytest.mark.parametrize("pattern", LINEAR)
def test_linear(pattern: str) -> None:
    assert pattern_is_linear(compile_rule_condition(pattern))


@pytest.mark.parametrize("pattern", NOT_LINEAR)
def test_not_linear(pattern: str) -> None:
    assert not pattern_is_linear(compile_rule_condition(pattern))


def test_rules() -> None:
    def rule(**kw) -> Rule:
        return Rule(name="r", path="r.md", content="", **kw)

    assert provably_linear(rule(condition=(r"\.unwrap\(",)))
    assert not provably_linear(rule(condition=(r"\.unwrap\(", r"(a+)+c")))
    # AST conditions run once per finished call (as in the agent), linear in its source: no bound needed
    assert provably_linear(rule(ast_condition=("$X as any",)))
    assert not provably_linear(rule(condition=(r"(a+)+c",), ast_condition=("$X as any",)))
    assert provably_linear(rule(condition=("(?P<bad>x)",)))  # invalid: never runs


def test_a_rule_is_judged_by_its_patterns_alone_every_time() -> None:
    # ``provably_linear`` remembers each pattern's answer (a backtest asks it per batch): the same
    # answers as judging each compiled pattern, asked once or again, invalid patterns skipped.
    def rule(*patterns: str) -> Rule:
        return Rule(name="r", path="r.md", content="", condition=patterns)

    for patterns in [LINEAR[:3], NOT_LINEAR[:1], [LINEAR[0], NOT_LINEAR[2]], ["(unclosed", LINEAR[1]], ["(unclosed"], []]:
        expected = all(pattern_is_linear(compile_rule_condition(p)) for p in patterns if p != "(unclosed")
        assert provably_linear(rule(*patterns)) is expected
        assert provably_linear(rule(*patterns)) is expected
