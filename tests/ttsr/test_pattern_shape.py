"""The shape algebra: how per-node summaries combine under concatenation, alternation, lookaround."""

from __future__ import annotations

import math
import re

from workbench.ttsr.pattern_shape import (
    UNKNOWN,
    ShapeInfo,
    char_info,
    join_classes,
    literal_info,
)


def test_concatenation_adds_widths_and_keeps_the_furthest_reach() -> None:
    word = literal_info("a", icase=False).then(literal_info("b", icase=False))
    peek = ShapeInfo(0, 1, 1, False, True, False)  # a `\b`: reads one unit each side
    info = word.then(peek)
    assert (info.maxw, info.reach, info.back) == (2, 3, 1)
    assert info.nonmono and not info.nl
    assert info.classes is not None and len(info.classes) == 2
    assert re.fullmatch(info.classes[0], "a") and not re.fullmatch(info.classes[0], "b")
    assert info.bcount == 2


def test_alternation_takes_the_wider_branch() -> None:
    info = literal_info("a", icase=False).union(literal_info("x", False).then(char_info(True, None)))
    assert (info.maxw, info.reach, info.bcount) == (2, 2, 2)
    assert info.nl
    assert info.classes is None  # `char_info(..., None)` is an undescribed atom


def test_zero_width_keeps_reads_but_consumes_nothing() -> None:
    body = literal_info("a", icase=False).then(literal_info("b", icase=False))
    look = body.zero_width(nonmono=True)
    assert look.maxw == 0 and look.reach == 2 and look.nonmono
    assert not body.nonmono  # the original is untouched


def test_literals_count_utf16_units_and_fold_ascii_case() -> None:
    astral = literal_info("\U0001F600", icase=False)
    assert astral.maxw == 2 and astral.classes is None
    assert literal_info("k", icase=True).classes == ("[kK]",)  # both cases, one unit
    assert literal_info("\u00e9", icase=True).classes is None  # non-ASCII folding is not described
    assert literal_info("\n", icase=False).nl


def test_join_classes_is_an_ordered_union_and_none_absorbs() -> None:
    assert join_classes(("[a]",), ("[b]", "[a]")) == ("[a]", "[b]")
    assert join_classes(("[a]",), None) is None


def test_unknown_shape_forces_full_searches() -> None:
    assert UNKNOWN.reach == math.inf and UNKNOWN.back == math.inf
    assert UNKNOWN.crosses_newline and not UNKNOWN.monotonic
