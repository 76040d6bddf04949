"""The literal prefilter of AST conditions (``ttsr.ast_literals``) never changes an answer.

Seeded property tests compare the prefiltered check with a full parse (the prefilter switched off) on
random sources built from the patterns' own tokens, near-instances of the patterns (so that matches
are common), and on the manager's answers over growing snapshots.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from workbench.rules import Rule
from workbench.ttsr import MatchContext, TtsrManager
from workbench.ttsr.ast import ast_match, ast_match_each
from workbench.ttsr.ast_literals import ast_prefilter_enabled, pattern_literals, set_ast_prefilter

# The bundled rules' patterns, the samples' and the differential suite's, per language.
PATTERNS: dict[str, list[str]] = {
    "ts": [
        "($X as { $$$BODY }).$PROP", "($X as { $$$BODY })?.$PROP", "($X as { $$$BODY })[$IDX]",
        "if ($X) clearTimeout($X)", "if ($X !== null) { clearTimeout($X) }", "if ($X != null) clearInterval($X)",
        "$EXPR as any", "console.log($A)", "eval($$$)", "var $A = $B", "function $F($$$) { $$$ }", "$A == null",
        "debugger", "$X", "(((", "import { $$$A } from '$M'", "`a${$X}b`", "foo /* c */ ($A)",
    ],
    "go": [
        "for $I := 0; $I < $N; $I++ { $$$BODY }", "func $F($V $T) *$T { return &$V }",
        "func $F[$$$TP]($V $T) *$T { return &$V }", "fmt.Println($$$)", "if err != nil { return $E }",
    ],
    "py": ["print($X)", "def $F($$$): $$$", "$A == None", "import $M", "assert $X, $Y", "f'{$X}'"],
    "rs": ["$A.unwrap()", "let $A = $B;", "println!($$$)", "impl $T for $U { $$$ }", "r#match"],
}

TOKENS: dict[str, list[str]] = {
    "ts": ["(", ")", "{", "}", "[", "]", ".", "?.", ";", ",", "as", "any", "x", "y", "clearTimeout", "clearInterval",
           "if", "!==", "!=", "null", "console", "log", "eval", "var", "=", "==", "function", "f", "debugger",
           "//", "/*", "*/", "'", "`", "${", "import", "from", "\n", " ", "  ", "µ", "$", "as{", "anyx"],
    "go": ["for", "i", ":=", "0", ";", "<", "n", "++", "{", "}", "func", "(", ")", "*", "T", "return", "&", "v",
           "[", "]", "fmt", ".", "Println", "if", "err", "!=", "nil", "\n", " ", "//", "\"", "µ"],
    "py": ["print", "(", ")", "def", "f", ":", "pass", "==", "None", "import", "os", "assert", "x", ",", "\n",
           "    ", " ", "#", "'", "f'", "{", "}"],
    "rs": ["x", ".", "unwrap", "(", ")", "let", "=", ";", "println", "!", "impl", "for", "T", "U", "{", "}",
           "r#", "match", "\n", " ", "//"],
}

LANGS = sorted(PATTERNS)


@contextmanager
def prefilter(enabled: bool) -> Iterator[None]:
    previous = set_ast_prefilter(enabled)
    try:
        yield
    finally:
        set_ast_prefilter(previous)


def full_match(patterns: list[str], source: str, lang: str) -> bool:
    with prefilter(False):
        return ast_match(patterns, source, lang)


def test_literals_are_the_patterns_named_non_metavariable_leaves() -> None:
    assert pattern_literals("$EXPR as any", "typescript") == ()  # `as` and `any` are unnamed leaves
    assert pattern_literals("if ($X !== null) { clearTimeout($X) }", "typescript") == ("clearTimeout", "null")
    assert pattern_literals("fmt.Println($$$)", "go") == ("Println", "fmt")
    assert pattern_literals("print($X)", "python") == ("print",)
    assert pattern_literals("$X", "typescript") == ()
    # Unknown languages, patterns that do not compile or do not match their own text: nothing.
    assert pattern_literals("color: red", "css") is None
    assert pattern_literals("a; b", "typescript") is None  # two nodes: ast-grep refuses the pattern


def test_a_missing_literal_skips_the_parse_and_the_answer_stays() -> None:
    source = "const t = setTimeout(f, 1);\nif (t) { clearTimeout(t) }\n"
    for patterns in (["if ($X) clearTimeout($X)"], ["$EXPR as any"], ["if ($X) { clearTimeout($X) }"]):
        assert ast_match(patterns, source, "ts") == full_match(patterns, source, "ts")
    assert ast_match(["if ($X) { clearTimeout($X) }"], source, "ts")
    assert ast_prefilter_enabled()


def near_instance(rng: random.Random, lang: str) -> str:
    """A pattern with its metavariables filled in, then a few tokens inserted or deleted."""
    pattern = rng.choice(PATTERNS[lang])
    filler = rng.choice(["x", "y.z", "f(a)", "", "null", "{}", "i"])
    text = pattern.replace("$$$BODY", filler).replace("$$$TP", "T any").replace("$$$", filler)
    for name in ("$EXPR", "$PROP", "$IDX", "$X", "$A", "$B", "$F", "$I", "$N", "$V", "$T", "$E", "$M", "$Y", "$U"):
        text = text.replace(name, rng.choice(["x", "v", "T", "n", "a1"]))
    tokens = TOKENS[lang]
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(text))
        if rng.random() < 0.5:
            text = text[:at] + rng.choice(tokens) + text[at:]
        else:
            text = text[:at] + text[at + rng.randint(1, 4):]
    return text


def random_source(rng: random.Random, lang: str) -> str:
    parts = [rng.choice(TOKENS[lang]) for _ in range(rng.randint(0, 30))]
    for _ in range(rng.randint(0, 2)):
        parts.insert(rng.randint(0, len(parts)), near_instance(rng, lang))
    source = "".join(parts)
    # Often cut short, as a streamed snapshot is (error recovery then inserts missing tokens): at
    # any point, or a few characters before the end of a near-instance that ends the text.
    roll = rng.random()
    if roll < 0.3:
        return source[: rng.randint(0, len(source))]
    if roll < 0.6:
        tail = near_instance(rng, lang)
        return source + "\n" + tail[: max(0, len(tail) - rng.randint(0, 3))]
    return source


def test_a_streamed_prefix_can_match_through_a_missing_token() -> None:
    # ast-grep matches the `}` of the pattern with the parser's zero-width MISSING `}`: punctuation
    # and keywords (unnamed leaves) are no literals, only named ones (identifiers, `null`, numbers);
    # the exception is a keyword the grammar never inserts as MISSING (`KEYWORD_TOKENS`, below).
    assert full_match(["if ($C) { ret }"], "if (a) { ret", "ts")
    assert ast_match(["if ($C) { ret }"], "if (a) { ret", "ts")
    assert pattern_literals("if ($C) { ret }", "typescript") == ("ret",)


@pytest.mark.parametrize("seed", range(8))
def test_prefiltered_match_equals_a_full_parse(seed: int) -> None:
    rng = random.Random(seed)
    agreed = matched = 0
    for _ in range(150):
        lang = rng.choice(LANGS)
        groups = [[p] for p in PATTERNS[lang]] + [rng.sample(PATTERNS[lang], 2)]
        source = random_source(rng, lang)
        with prefilter(False):
            full = ast_match_each(groups, source, lang)
        assert ast_match_each(groups, source, lang) == full, (lang, source)
        agreed += 1
        matched += any(full)
    assert agreed == 150 and matched > 10  # the cases reach matches, not only misses


@pytest.mark.parametrize("seed", range(4))
def test_manager_answers_over_growing_snapshots_agree(seed: int) -> None:
    rng = random.Random(100 + seed)
    statements = ["if (t) clearTimeout(t);\n", "(o as {a: 1}).a;\n", "const y = z as any;\n", "console.log(x);\n",
                  "let b = 2;\n", "if (t) "]
    pieces = [rng.choice(statements) if rng.random() < 0.6 else rng.choice(TOKENS["ts"]) for _ in range(60)]

    def run() -> list[list[str]]:
        mgr = TtsrManager({"repeatMode": "after-gap", "repeatGap": 1})
        for i, pattern in enumerate(PATTERNS["ts"][:8]):
            mgr.add_rule(Rule(name=f"r{i}", path=f"r{i}.md", content="", ast_condition=(pattern,),
                              scope=("tool:edit(*.ts)",)))
        ctx = MatchContext("tool", tool_name="edit", file_paths=["src/a.ts"], stream_key="toolcall:1")
        out: list[list[str]] = []
        snapshot = ""
        for n, piece in enumerate(pieces):
            snapshot += piece
            out.append([r.name for r in mgr.check_ast_snapshot(snapshot, ctx)])
            if n % 4 == seed:
                mgr.increment_message_count()
        return out

    with prefilter(False):
        full = run()
    assert run() == full
    assert any(full)


def test_presence_follows_growing_and_replaced_snapshots() -> None:
    from workbench.ttsr.ast_literals import Presence

    rng = random.Random(7)
    literals = ["as", "any", "clearTimeout", "(", "{}", "null", "x y"]
    previous: Presence | None = None
    text = ""
    for _ in range(300):
        if rng.random() < 0.1:
            text = text[: rng.randint(0, len(text))]  # replaced by a shorter or different text
        text += rng.choice(["a", "s", "n", "y", " ", "(", "{", "}", "clearTime", "out", "nu", "ll", "x"])
        presence = Presence(text, previous)
        for lit in rng.sample(literals, 3):  # each snapshot asks only some literals, as rules do
            assert presence.has(lit) == (lit in text), (text, lit)
        previous = presence


# --- keywords and runs of tokens (``KEYWORD_TOKENS``, ``pattern_tokens``) ---------------------------


def test_the_bundled_cast_patterns_need_as_then_a_brace() -> None:
    from workbench.ttsr.ast_literals import pattern_tokens

    for lang in ("typescript", "tsx"):
        for pattern in PATTERNS["ts"][:3]:
            assert pattern_tokens(pattern, lang) == ("as {",)
        assert pattern_tokens("$EXPR as any", lang) == ("as",)  # `any` may be inserted as MISSING
        assert pattern_tokens("x as const", lang) == ("as",)
    assert pattern_tokens("$EXPR as any", "javascript") == ()  # only the grammars checked
    assert pattern_tokens("print($X)", "python") == ()


def test_the_gap_between_tokens_admits_every_extra() -> None:
    # Unicode White_Space (PropList), \p{Zs} and the extras tree-sitter-javascript lists besides.
    import re
    import unicodedata

    from workbench.ttsr.ast_literals import tokens_present

    white = [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F,
             0x3000, 0xFEFF, 0x2060, 0x200B]
    white += [cp for cp in range(0x110000) if unicodedata.category(chr(cp)) == "Zs"]
    for cp in white:
        assert tokens_present("as {", f"(x as{chr(cp)}{{a}}).b"), hex(cp)
    for gap in ["", " ", "\n", "/* c */", "/**/", "/* * / */", "// c\n", "// c\r", "// c\u2028", "<!-- c\n", "--> c\n",
                " /* a */ // b\n /*c*/ "]:
        assert tokens_present("as {", f"(x as{gap}{{a}}).b"), gap
    assert not tokens_present("as {", "(x as y {a}).b")
    assert not tokens_present("as {", "(x as /* open {a}).b")
    assert not tokens_present("as", "(x asy {a}).b") and not tokens_present("as", "has_x") and tokens_present("as", "has")
    assert re.search(r"\s", "\u2028")


def cast_variants(rng: random.Random) -> str:
    """A cast pattern filled in, its `as` and the gap before `{` often broken, often cut short."""
    pattern = rng.choice(PATTERNS["ts"][:3] + ["$EXPR as any"])
    text = pattern.replace("$$$BODY", rng.choice(["a: T", "", "b", "a: 1; b: 2"])).replace("$X", rng.choice(["x", "f(y)", "o.p"]))
    text = text.replace("$PROP", "p").replace("$IDX", "0").replace("$EXPR", "v")
    junk = ["", " ", "\n", "\u00a0", "\u2028", "\ufeff", "/* c */", "// c\n", "@", ";", ")", "(", "x", "{", "}", ".",
            "as", "<!-- c\n", "\\u0061", "$", "_", "1", "é", "satisfies "]
    if rng.random() < 0.7:
        at = text.index(" as ") + 3
        text = text[:at] + rng.choice(junk) + text[at + 1:]
    if rng.random() < 0.4:
        at = text.index("as")
        text = text[:at] + rng.choice(["", "a", "s", "As", "asx", "a s", "sa", "is", "as"]) + text[at + 2:]
    if rng.random() < 0.3:
        text = text[: rng.randint(0, len(text))]
    context = rng.choice(["", "const y = ", "f(", "if (", "return ", "let s: string = "])
    return context + text + rng.choice(["", ";", "\n", ")", " as any"])


@pytest.mark.parametrize("seed", range(6))
def test_sources_without_the_tokens_never_match(seed: int) -> None:
    # The keyword runs' claim, checked against the parser's error recovery: a source without the run
    # is never matched by a full parse, for the cast patterns on near-misses and cut-off texts.
    from workbench.ttsr.ast_literals import pattern_tokens, tokens_present

    rng = random.Random(300 + seed)
    patterns = PATTERNS["ts"][:3] + ["$EXPR as any"]
    lacking = matched = 0
    for _ in range(250):
        source = cast_variants(rng)
        for lang in ("ts", "tsx"):
            with prefilter(False):
                full = [ast_match([p], source, lang) for p in patterns]
            sg = "typescript" if lang == "ts" else "tsx"
            for pattern, hit in zip(patterns, full):
                if not all(tokens_present(r, source) for r in pattern_tokens(pattern, sg)):
                    lacking += 1
                    assert not hit, (pattern, source)
            assert ast_match_each([[p] for p in patterns], source, lang) == full, source
            matched += any(full)
    assert lacking > 200 and matched > 50
