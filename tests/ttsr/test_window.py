"""The incremental matcher answers exactly as a full re-test (property test, not timed)."""

from __future__ import annotations

import random

import pytest

from workbench.ttsr.conditions import compile_rule_condition
from workbench.ttsr.window import StreamBuffer, condition_matches

PATTERNS = [
    r"\bas any\b", "foo$", "(?m)^bar", "(?m)foo$", "x*", "", "a.b", "(?s)a.b", r"[\s\S]{0,5}?zz",
    "(?<=a)b", "(?<!a)b", "(?<=a+)b", "ab(?!c)", "ab(?=c)", r"(?i)AB\b", r"\Bb", "^a", r"a\s*b",
    r"a[^\n]*b", r"(['\"]).*?\1", "(?i:ab)c", r"a|\bb", "\U0001F600", "^x..y$", r"\d{2,3}\b", "(?m)$",
    r"(?=[\s\S]*foo)(?=[\s\S]*bar)", r"^(?=[\s\S]*TODO)", r"(?i)password\s*=\s*['\"][^'\"]+['\"]",
    r"\bsetTimeout\(\s*\w+\s*,\s*0\s*\)", r"(?m)^\s*debugger;?$", r"(ab)+\1", r"(?<=a\s*)b", r"a(?!\s*b)",
    r"\b[A-Z]{3,}_SECRET\b", r"(?i)a[^b]*B", r"(?:x\s*){2}y",
]
PIECES = ["a", "b", "c", "x", "y", " ", "\n", "\r", "foo", "bar", "as any", "\U0001F600", "\u00e9", "'", '"',
          "TODO", "AB", "1", "12", "password", "=", "setTimeout(", ",", "0", ")", "debugger;", "ABC", "_SECRET"]


@pytest.mark.parametrize("seed", range(4))
def test_incremental_equals_full_retest_on_random_streams(seed: int) -> None:
    rng = random.Random(seed)
    conds = [compile_rule_condition(p) for p in PATTERNS]
    for _ in range(150):
        buf, text = StreamBuffer(), ""
        for _ in range(rng.randint(1, 25)):
            delta = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
            if rng.random() < 0.1:
                buf, text = StreamBuffer(delta), delta
            else:
                buf.append(delta)
                text += delta
            for cid, cond in enumerate(conds):
                if rng.random() < 0.3:
                    continue  # rules gated off for a while lag behind; they must catch up exactly
                assert condition_matches(cond, cid, buf) is cond.test(text), (cond.pattern, text)


def test_buffer_text_and_tail() -> None:
    buf = StreamBuffer("ab")
    buf.append("c\U0001F600")
    buf.append("d")
    assert buf.text == "abc\U0001F600d"
    assert buf.length == 6
    assert buf.etail(4) == buf.etext[4:]
    assert buf.copy().text == buf.text
