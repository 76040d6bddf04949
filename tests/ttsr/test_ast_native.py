"""AST matching against the agent's own native engine (pi-natives `astMatch`, table written by
tests/ttsr/native_ast_probe.mjs), including the languages ast-grep-py parses only through the dynamic
grammars of workbench.ttsr.ast_languages, on whole and on truncated (still streaming) sources."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from workbench.ttsr import ast_languages
from workbench.ttsr.ast import NATIVE_ALIASES, UnsupportedLanguage, ast_match

_TABLE = json.loads((Path(__file__).parent / "data" / "native_ast_cases.json").read_text(encoding="utf-8"))
_CASES = [tuple(c) for c in _TABLE["cases"]]

# Where the workbench answers otherwise, per language (README "known deviations"): JSON patterns that
# are a bare pair (`"name": $V`, `"a": "^1"`) compile only in the native engine, which then matches
# pairs (string-valued ones for a `$V` value: `"deps": $D` matches nothing there either); its make
# grammar splits rules otherwise; no grammar package provides diff or just.
KNOWN_DIFFERENCES = {"json": 26, "make": 2, "diff": 6, "just": 1}


def _ours(lang: str, pattern: str, source: str) -> bool | str:
    try:
        return ast_match([pattern], source, lang)
    except UnsupportedLanguage:
        return "error"


def test_table_covers_the_dynamic_languages_and_broken_sources() -> None:
    langs = {lang for lang, *_ in _CASES}
    dynamic = {alias for alias, sg in NATIVE_ALIASES.items() if sg in ast_languages.DYNAMIC}
    assert {"toml", "sql", "xml", "vue", "svelte", "graphql", "proto", "tla", "regex"} <= langs
    assert len(langs & dynamic) >= 25
    assert sum(1 for *_, matched in _CASES if matched is True) > 500
    assert sum(1 for *_, matched in _CASES if matched is False) > 500


def test_the_dynamic_grammars_register() -> None:
    missing = [name for name in ast_languages.DYNAMIC if not ast_languages.available(name)]
    assert missing == [], ast_languages.problem()


def test_every_case_agrees_with_the_native_engine_but_the_known_ones() -> None:
    wrong = Counter(lang for lang, pattern, source, native in _CASES if _ours(lang, pattern, source) != native)
    assert dict(wrong) == KNOWN_DIFFERENCES


def test_zig_metavariables_never_compile_as_in_the_native_engine() -> None:
    source = "pub fn main() void {\n    const x = f() catch unreachable;\n    _ = x;\n}\n"
    assert ("zig", "const $X = $E;", source, False) in _CASES
    assert ("zig", "f() catch unreachable", source, True) in _CASES
    assert not ast_match(["const $X = $E;"], source, "zig")
    assert ast_match(["f() catch unreachable"], source, "zig")
    assert ast_languages.native_pattern("$A + $$B + $$$C + $x + $$$", "zig") == "µA + µµB + µµµC + $x + µµµ"
    assert ast_languages.native_pattern("$A", "typescript") == "$A"
