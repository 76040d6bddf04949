"""The lexical layer: JS escapes, character classes and group counting."""

from __future__ import annotations

import pytest

from workbench.ttsr.pattern_lexer import PatternCursor, ScanAbort, count_groups


@pytest.mark.parametrize(
    ("escape", "char", "consumed"),
    [
        (r"\101", "A", 4),  # legacy octal
        (r"\400", " 0", 3),  # over \377: two octal digits, the `0` stays for the next atom
        (r"\8", "8", 2),
        (r"\x41", "A", 4),
        (r"\x4g", "x", 2),  # incomplete \x is the letter x
        (r"\u0041", "A", 6),
        (r"\u{2}", "u", 2),  # non-unicode mode: \u without four hex digits is the letter u
        (r"\cJ", "\n", 3),
        (r"\n", "\n", 2),
        (r"\.", ".", 2),
    ],
)
def test_char_escape_decodes_like_annex_b(escape: str, char: str, consumed: int) -> None:
    cursor = PatternCursor(escape, dotall=False)
    assert cursor.char_escape(in_class=False) == char[0]
    assert cursor.i == consumed


def test_backspace_escape_only_inside_a_class() -> None:
    assert PatternCursor(r"\b", dotall=False).char_escape(in_class=True) == "\b"


def test_char_class_translation_and_description() -> None:
    cursor = PatternCursor(r"[^a-c\s]x", dotall=False)
    info = cursor.char_class()
    assert cursor.i == 8 and "".join(cursor.out) == r"[^a-c\s]"
    assert info.maxw == 1 and not info.nl  # a negated class holding \s cannot match \n
    assert info.classes is not None and info.classes[0].startswith("[^")


def test_range_next_to_a_class_escape_is_a_literal_dash() -> None:
    cursor = PatternCursor(r"[a-\d]", dotall=False)
    cursor.char_class()
    assert "".join(cursor.out) == r"[a\-\d]"


def test_unterminated_class_gives_up() -> None:
    with pytest.raises(ScanAbort):
        PatternCursor("[abc", dotall=False).char_class()


def test_count_groups_skips_escapes_classes_and_non_capturing_groups() -> None:
    assert count_groups(r"(a)(?:b)(?<n>c)[(](?=d)(?<!e)\(") == (2, True)
    assert count_groups(r"(a)(b)") == (2, False)
