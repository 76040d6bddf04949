"""JS non-unicode case folding under `i`, against JavaScriptCore's own answers (Bun 1.3.14).

tests/ttsr/js_case_fold_probe.js wrote the table; regress alone disagrees on 204 of its answers (`s`
matching `ſ`, `[a-z]` matching KELVIN SIGN, `ı` matching `i` …).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.ttsr.conditions import compile_rule_condition
from workbench.ttsr.js_case_fold import DIFFERING, canonicalize, char_set, literal

_TABLE = json.loads((Path(__file__).parent / "data" / "js_case_fold_cases.json").read_text(encoding="utf-8"))
_SUBJECTS: list[str] = _TABLE["subjects"]
_ROWS = [(p, f, [a == "1" for a in answers]) for p, f, answers in _TABLE["rows"]]


def test_table_shape() -> None:
    assert _TABLE["bun"] == "1.3.14"
    assert "\u017f" in _SUBJECTS and "\u212a" in _SUBJECTS and "\u0131" in _SUBJECTS
    assert all(len(answers) == len(_SUBJECTS) for _, _, answers in _ROWS)


@pytest.mark.parametrize("flags", ["i", ""])
def test_every_row_agrees_with_javascriptcore(flags: str) -> None:
    wrong = []
    for pattern, row_flags, answers in _ROWS:
        if row_flags != flags:
            continue
        cond = compile_rule_condition(("(?i)" if flags else "") + pattern)
        for subject, expected in zip(_SUBJECTS, answers, strict=True):
            if cond.test(subject) is not expected:
                wrong.append((pattern, subject, expected))
    assert wrong == []


def test_long_s_and_dotless_i_fold_only_to_themselves() -> None:
    cond = compile_rule_condition("(?i)password")
    assert cond.test("PASSWORD")
    assert not cond.test("pa\u017f\u017fword")  # regress alone says it matches
    assert compile_rule_condition("(?i)\u017f").test("\u017f")
    assert not compile_rule_condition("(?i)[a-z]").test("\u212a")
    assert not compile_rule_condition("(?i)i").test("\u0131")
    assert compile_rule_condition("(?i)\u00b5").test("\u039c")  # MICRO SIGN still folds to MU


def test_canonicalize_is_ecmascript() -> None:
    assert canonicalize("s") == "S"
    assert canonicalize("\u017f") == "\u017f"  # upper is ASCII `S`: refused
    assert canonicalize("\u00df") == "\u00df"  # upper is two characters
    assert canonicalize("\u00b5") == "\u039c"


def test_rewrites_only_what_regress_gets_wrong() -> None:
    assert literal("a") is None and literal("s") is not None
    assert char_set("[0-9]") is None and char_set("\\d") is None
    assert char_set("[a-z]") is not None
    assert len(DIFFERING) == len(set(DIFFERING)) == 75
