"""condition / astCondition / scope normalisation and the file-glob shorthand."""

from __future__ import annotations

import pytest

from workbench.rules import (
    is_likely_file_glob,
    normalize_rule_field,
    parse_rule_condition_and_scope,
    split_scope_tokens,
)


def test_normalize_rule_field_trims_dedupes_and_drops_non_strings():
    assert normalize_rule_field("  x  ") == ("x",)
    assert normalize_rule_field("   ") is None
    assert normalize_rule_field([" a", "b ", "a", 3, "", None]) == ("a", "b")
    assert normalize_rule_field([]) is None
    assert normalize_rule_field(5) is None
    # The reference's trimming is lossy: a meaningful trailing space in a regex is lost.
    assert normalize_rule_field("\\(ref mut ") == ("\\(ref mut",)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("text, tool:edit(*.{ts,tsx})", ["text", "tool:edit(*.{ts,tsx})"]),
        ("tool:edit(a,b), text", ["tool:edit(a,b)", "text"]),
        ('"text","thinking"', ['"text"', '"thinking"']),
        ("a,,b, ", ["a", "b"]),
        ("x), y", ["x)", "y"]),
        ("'a,b', c", ["'a,b'", "c"]),
    ],
)
def test_scope_tokenizer_respects_brackets_and_quotes(text, tokens):
    assert split_scope_tokens(text) == tokens


def test_scope_tokens_are_unquoted_and_deduplicated():
    parsed = parse_rule_condition_and_scope({"condition": "x", "scope": ['"text","thinking"', "text"]})
    assert parsed.scope == ("text", "thinking")


@pytest.mark.parametrize(
    ("token", "is_glob"),
    [
        ("*.rs", True),
        ("*.test.ts", True),
        ("*.{ts,tsx}", True),
        ("src/**/*.py", True),
        ("*_test.go", False),
        ("error.*timeout", False),
        ("(foo)*", False),
        ("plain", False),
        ("   ", False),
        ("a/b", False),
    ],
)
def test_is_likely_file_glob(token, is_glob):
    assert is_likely_file_glob(token) is is_glob


def test_glob_condition_becomes_edit_write_scope_with_catch_all():
    parsed = parse_rule_condition_and_scope({"condition": "*.rs"})
    assert parsed.condition == (".*",)
    assert parsed.scope == ("tool:edit(*.rs)", "tool:write(*.rs)")


def test_glob_next_to_a_regex_gives_no_catch_all():
    parsed = parse_rule_condition_and_scope({"condition": ["*.ts", "TODO"]})
    assert parsed.condition == ("TODO",)
    assert parsed.scope == ("tool:edit(*.ts)", "tool:write(*.ts)")


def test_explicit_scope_comes_before_inferred_scope():
    parsed = parse_rule_condition_and_scope({"condition": "*.ts", "scope": "text"})
    assert parsed.condition == (".*",)
    assert parsed.scope == ("text", "tool:edit(*.ts)", "tool:write(*.ts)")


def test_legacy_keys_are_fallbacks_but_an_empty_condition_blocks_them():
    assert parse_rule_condition_and_scope({"ttsr_trigger": "a"}).condition == ("a",)
    assert parse_rule_condition_and_scope({"ttsrTrigger": "b"}).condition == ("b",)
    assert parse_rule_condition_and_scope({"ttsr_trigger": "a", "ttsrTrigger": "b"}).condition == ("a",)
    assert parse_rule_condition_and_scope({"condition": "", "ttsr_trigger": "a"}).condition is None


def test_ast_condition_is_never_glob_inferred():
    parsed = parse_rule_condition_and_scope({"astCondition": ["*.ts", "console.log($A)"]})
    assert parsed.ast_condition == ("*.ts", "console.log($A)")
    assert parsed.condition is None and parsed.scope is None
