"""AST conditions: language from Node's extname, smart strictness, unknown languages."""

from __future__ import annotations

import pytest

from workbench.ttsr.ast import UnsupportedLanguage, ast_match, extname, language_for


@pytest.mark.parametrize(
    ("path", "ext"),
    [("a.ts", ".ts"), (".bashrc", ""), (".ts", ""), ("a.", "."), ("dir.v2/Makefile", ""), ("x/a.d.ts", ".ts"), ("..", "")],
)
def test_extname_matches_node(path: str, ext: str) -> None:
    assert extname(path) == ext


def test_first_path_with_an_extension_decides() -> None:
    assert language_for(["Makefile", "notes.txt", "a.ts"]) == "txt"
    assert language_for(["SRC\\A.TS"]) == "ts"
    assert language_for([".bashrc", "a."]) is None


def test_matching_and_failures() -> None:
    assert ast_match(["console.log($A)"], "console.log(1)", "ts")
    assert not ast_match(["console.log($A"], "console.log(1)", "ts")  # bad pattern: no match
    assert ast_match(["$X"], "", "ts")
    assert not ast_match(["if ($X) clearTimeout($X)"], "if (t) { clearTimeout(t) }", "ts")
    with pytest.raises(UnsupportedLanguage):
        ast_match(["x"], "x", "foo")
    assert ast_match(['name = "x"'], 'name = "x"\n', "toml")  # a dynamic grammar (ast_languages)
    assert not ast_match(["x"], "x", "diff")  # known to the native engine, no grammar here


def test_parse_language_resolves_dynamic_grammars() -> None:
    from workbench.ttsr.ast import parse_language

    assert parse_language("toml") == "toml" and parse_language("tla") == "tlaplus"
    assert parse_language("ts") == "typescript" and parse_language("mdx") == "markdown"
    assert parse_language("diff") is None and parse_language("no-such-language") is None


def test_the_empty_source_answers_are_remembered_as_computed() -> None:
    # An empty source is answered once per language and pattern groups (the agent's pi-style edit
    # has an empty digest): the remembered answer is the parse's, ``$X`` matching the empty program.
    from workbench.ttsr import ast

    groups_list = [[["$X"]], [["($X as { $$$BODY }).$PROP", "($X as { $$$BODY })[$IDX]"], ["$X"], ["console.log($A"]],
                   [["if ($X) clearTimeout($X)"], ["$A"]], [["x"]]]
    for lang in ("ts", "tsx", "py", "rs", "toml"):
        for groups in groups_list:
            ast._EMPTY_SOURCE.clear()
            fresh = ast._match_each(groups, "", ast.parse_language(lang) or "", None) if ast.parse_language(lang) else None
            first = ast.ast_match_each(groups, "", lang)
            again = ast.ast_match_each(groups, "", lang)
            assert first == again
            if fresh is not None:
                assert first == fresh, (lang, groups)
    assert ast.ast_match_each([["$X"]], "", "ts") == [True]
    with pytest.raises(UnsupportedLanguage):
        ast.ast_match_each([["x"]], "", "foo")
