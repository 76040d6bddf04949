"""Pattern shapes drive the incremental matcher; check the facts it relies on."""

from __future__ import annotations

import math

from workbench.ttsr.pattern_shape import engine_text, scan


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


def test_engine_text_maps_astral_chars_to_two_units() -> None:
    assert len(engine_text("x\U0001F600y")) == 4
    assert engine_text("plain") == "plain"
    assert scan("\U0001F600", "").shape.max_width == 2
