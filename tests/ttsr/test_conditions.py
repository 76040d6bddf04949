"""compileRuleCondition with JS semantics (spec notes §7): flags, JS-only syntax, rejections."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.ttsr import compile_rule_condition


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("(?i)abc", "ABC", True),
        ("(?mi)^b", "a\nB", True),
        ("(?s)a.b", "a\nb", True),
        ("a.b", "a\rb", False),  # `.` excludes \r
        ("foo$", "foo\n", False),  # `$` without m is the very end
        ("(?m)foo$", "foo\r", True),
        (r"^\w\d$", "\u00e91", False),  # ASCII-only \w
        (r"\s", "\ufeff", True),
        (r"\s", "\x85", False),
        ("(?<=a+)b", "aaab", True),  # variable-width lookbehind
        (r"\p{L}", "p{L}", True),
        (r"[\d-z]", "-", True),
        (r"a\8", "a8", True),
        (r"(a)\2", "a\x02", True),
        (r"\u{2}", "uu", True),
        (r"\x4g", "x4g", True),
        ("a[^]b", "a\nb", True),
        ("[]", "anything", False),
        (r"\e\h\R", "ehR", True),
        (r"\k<n>", "k<n>", True),
        (r"(?<n>a)\k<n>", "aa", True),
        (r"\A", "A", True),
        ("a{,3}", "a{,3}", True),
        ("(?i)K", "\u212a", False),
        ("(?i)\u00e9", "\u00c9", True),
        ("^x..y$", "x\U0001F600y", True),  # an emoji is two UTF-16 units
        ("(?i:abc)", "ABC", True),
        ("/foo/i", "FOO", False),
        ("", "", True),
    ],
)
def test_js_semantics(pattern: str, text: str, expected: bool) -> None:
    assert compile_rule_condition(pattern).test(text) is expected


@pytest.mark.parametrize(
    "pattern",
    ["(?x)a", "(?u)a", "(?iu)a", "(?I)a", "foo(?i)bar", "(?i)(?m)a", " (?i)a", "a++", "(?>a)", "(?#c)", "(?P<n>x)",
     r"\b+", r"\B{2}", "*a", "^*", "("],
)
def test_rejected_like_javascript(pattern: str) -> None:
    with pytest.raises(InputError):
        compile_rule_condition(pattern)


def test_flags_are_canonical_and_deduplicated() -> None:
    assert compile_rule_condition("(?smi)x").flags == "ims"
    assert compile_rule_condition("(?ii)x").flags == "i"


def test_spans_are_python_indices_even_after_astral_chars() -> None:
    cond = compile_rule_condition("b+")
    assert cond.spans("\U0001F600 bb b") == [(2, 4), (5, 6)]


def test_compilation_is_shared_between_callers() -> None:
    first = compile_rule_condition(r"(?i)\bconsole\.log\(")
    assert compile_rule_condition(r"(?i)\bconsole\.log\(") is first
    assert compile_rule_condition(r"\bconsole\.log\(") is not first


def test_invalid_pattern_raises_the_same_error_every_time() -> None:
    messages = []
    for _ in range(3):
        with pytest.raises(InputError) as err:
            compile_rule_condition("a(")
        messages.append(str(err.value))
    assert len(set(messages)) == 1 and "Invalid regular expression" in messages[0]
