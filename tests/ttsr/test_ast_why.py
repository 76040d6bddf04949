"""Why an AST condition missed: each gate, and the notes on where ast-grep-py may differ from the agent."""

from __future__ import annotations

from workbench.ttsr.ast_why import explain_no_match, rule_patterns


def test_gates_before_parsing() -> None:
    assert "no path with an extension" in explain_no_match(["x"], "x", None)
    assert "rejects language 'foo'" in explain_no_match(["x"], "x", "foo")
    assert "no grammar package here provides it" in explain_no_match(["x"], "x", "diff")


def test_clean_and_broken_sources() -> None:
    clean = explain_no_match(["eval($X)"], "print(1)\n", "py")
    assert clean == "AST pattern did not match"
    broken = explain_no_match(["eval($X)"], "def f(:\n", "py")
    assert broken.startswith("AST pattern did not match; the snapshot does not parse cleanly yet")


def test_uncompilable_patterns_and_language_notes() -> None:
    why = explain_no_match(['"name": $V'], '{"other": 1}', "json")
    assert "pattern '\"name\": $V' does not compile for 'json'" in why and "is a bare pair" in why
    assert "make grammar" in explain_no_match(["install:"], "all:\n\tcc x\n", "mk")
    assert explain_no_match(['x = "1"'], 'y = "2"\n', "toml") == "AST pattern did not match"  # a dynamic grammar


def test_rule_patterns() -> None:
    assert rule_patterns(" a ") == ("a",)
    assert rule_patterns(["a", " ", 3, "b"]) == ("a", "b")
    assert rule_patterns(None) == ()
