"""The grammar pass: translation for the engine and the shapes the incremental matcher relies on."""

from __future__ import annotations

import math

import pytest

from workbench.ttsr.pattern_scanner import PatternSyntaxError, scan
from workbench.ttsr.pattern_shape import UNKNOWN


def test_bounded_reach_and_back_context() -> None:
    shape = scan(r"\bas any\b", "").shape
    assert shape.reach == 7  # six units plus the peek of the trailing \b
    assert shape.back == 1
    assert not shape.monotonic


def test_newline_and_monotonic_flags() -> None:
    assert not scan("a.*b", "").shape.crosses_newline
    assert scan("a.*b", "s").shape.crosses_newline
    assert scan(r"a\s*b", "").shape.crosses_newline
    assert scan("a[^x]b", "").shape.crosses_newline
    assert scan("abc", "").shape.monotonic
    assert not scan("a(?!b)", "").shape.monotonic
    assert scan(r"(?<=a+)b", "").shape.back == math.inf


def test_barrier_counts_only_units_the_free_class_cannot_take() -> None:
    shape = scan(r"\bsetTimeout\(\s*\w+\s*,\s*0\s*\)", "").shape
    assert shape.barrier_count == 4  # `(`, `,`, `)` and one peek
    assert shape.nonfree_class is not None


def test_astral_literal_is_two_units() -> None:
    assert scan("\U0001F600", "").shape.max_width == 2
    assert scan("\U0001F600", "").source == "\\uF03D\\uF600"


@pytest.mark.parametrize(
    ("pattern", "source"),
    [
        (r"\u{2}", "u{2}"),  # JS: the letter u, then a quantifier
        (r"\101\8", "A8"),  # legacy octal and identity escape
        (r"a(?<n>b)\k<n>", r"a(?<n>b)\k<n>"),
        (r"(a)\2", r"(a)\u0002"),  # more than the group count: octal
    ],
)
def test_translation_for_the_engine(pattern: str, source: str) -> None:
    assert scan(pattern, "").source == source


def test_quantified_word_boundary_is_rejected_as_javascript_does() -> None:
    with pytest.raises(PatternSyntaxError, match="Nothing to repeat"):
        scan(r"\b+", "")


def test_unsupported_syntax_falls_back_to_the_raw_pattern() -> None:
    scanned = scan("(?x)a", "")
    assert scanned.source == "(?x)a" and scanned.shape == UNKNOWN
