"""Bun.Glob semantics (spec §6.6), including where they part from fnmatch."""

from __future__ import annotations

import pytest

from workbench.ttsr.globs import glob_match, matches_any_path


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("*.ts", "a.ts", True),
        ("*.ts", "src/a.ts", False),  # `*` never crosses `/` (fnmatch would say True)
        ("**/*.ts", "a.ts", True),
        ("**/*.ts", "/abs/a/main.ts", True),
        ("src/**", "src", False),
        ("src/**", "src/a/b.ts", True),
        ("a/**/b", "a/b", True),
        ("*.ts", ".hidden.ts", True),
        ("*.TS", "a.ts", False),
        ("*.{ts,{js,jsx}}", "a.jsx", True),
        ("[!a].ts", "b.ts", True),
        ("[^a].ts", "a.ts", False),
        ("[a", "a", False),  # unterminated class matches nothing
        ("{a,b", "a", True),  # unterminated brace keeps the first alternative
        ("{a,b", "b", False),
        ("./src/*.ts", "./src/a.ts", True),
        ("./src/*.ts", "src/a.ts", False),
        ("!*.md", "a.ts", True),
        ("!*.md", "a.md", False),
        ("\\*.ts", "*.ts", True),
        ("?.ts", "ab.ts", False),
    ],
)
def test_glob_match(glob: str, path: str, expected: bool) -> None:
    assert glob_match(glob, path) is expected


def test_basename_fallback_and_backslashes() -> None:
    assert matches_any_path(["*.ts"], ["src\\deep\\main.ts"])
    assert not matches_any_path(["src/*.ts"], ["/repo/src/main.ts"])
    assert not matches_any_path(["*"], [])
    assert not matches_any_path(["*"], None)
