"""UTF-16 unit emulation and the class algebra behind the barrier cut."""

from __future__ import annotations

import re

from workbench.ttsr.code_units import engine_text, nonfree_class


def test_surrogates_and_astral_chars_become_private_use_units() -> None:
    mapped = engine_text("a\U0001F600b")
    assert len(mapped) == 4
    assert all(0xF000 <= ord(c) <= 0xF7FF for c in mapped[1:3])
    # A lone surrogate (possible in JSON input) maps to the same unit as inside a pair.
    assert engine_text("\ud83d") == mapped[1]


def test_nonfree_class_is_the_complement_of_the_union() -> None:
    rx = re.compile(nonfree_class(("[ \t]", "[^'\"\n]")))
    assert rx.match("'") and rx.match('"') and rx.match("\n")
    assert not rx.match("a") and not rx.match(" ")
    assert re.compile(nonfree_class(("[0-9]",))).match("x")
    assert nonfree_class(()) is None


def test_engine_text_is_identity_on_bmp_text() -> None:
    assert engine_text("plain") == "plain"
    assert engine_text("caf\u00e9") == "caf\u00e9"
    assert len(engine_text("x\U0001F600y")) == 4
