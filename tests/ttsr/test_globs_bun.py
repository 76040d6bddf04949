"""Bun.Glob answers recorded from Bun itself (tests/ttsr/bun_glob_probe.js writes the table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.ttsr.globs import glob_match

_TABLE = json.loads((Path(__file__).parent / "data" / "bun_glob_cases.json").read_text(encoding="utf-8"))
_CASES = [tuple(case) for case in _TABLE["cases"]]


def test_table_is_a_bun_run() -> None:
    # Every answer must come from a Bun run: a half-written table would hold nulls.
    assert _TABLE["bun"] == "1.3.14"
    assert len(_CASES) > 2000
    assert all(isinstance(expected, bool) for _, _, expected in _CASES)
    assert {expected for _, _, expected in _CASES} == {True, False}


def test_every_probed_case_agrees_with_bun() -> None:
    wrong = [(glob, path, bun) for glob, path, bun in _CASES if glob_match(glob, path) is not bun]
    assert wrong == []


@pytest.mark.parametrize(
    ("glob", "path", "bun"),
    [
        # The cases: a trailing `**/*` needs a non-empty last segment.
        ("**/*", "", False),
        ("**/*", "src/", False),
        ("src/**/*", "src/", False),
        ("a/**/*", "a/", False),
        ("**/*", "/a", True),
        ("**", "", True),
        ("*", "", True),
        ("*/", "a/", True),
        # Only at the pattern's top-level end: inside a brace the empty segment matches again.
        ("{x,**/*}", "", True),
        ("x/{**/*,y}", "x/", True),
        # A `!` prefix turns a leading `**` into two plain stars.
        ("!**", "a/b", True),
        ("!**/*", "a/b", False),
        ("!**/*", "a/b/c", True),
        # `**` closed by `,` or `}` is not a globstar.
        ("{**,x}", "a/b", False),
    ],
)
def test_named_bun_quirks(glob: str, path: str, bun: bool) -> None:
    assert (glob, path, bun) in _CASES  # the expectation is Bun's own, not written by hand
    assert glob_match(glob, path) is bun
