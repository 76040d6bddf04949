"""Scope tokens (spec §6.3): defaults, keywords, tool tokens, warnings."""

from __future__ import annotations

from workbench.ttsr import MatchContext
from workbench.ttsr.scope import DEFAULT_SCOPE, build_scope


def _build(tokens):
    bad: list[str] = []
    return build_scope(tokens, bad.append), bad


def test_absent_and_empty_scope_are_the_default_without_thinking() -> None:
    assert _build(None)[0] == DEFAULT_SCOPE
    assert _build([])[0] == DEFAULT_SCOPE
    assert not DEFAULT_SCOPE.allows(MatchContext("thinking"))
    assert DEFAULT_SCOPE.allows(MatchContext("tool", tool_name="anything"))


def test_blank_token_reaches_nothing() -> None:
    scope, bad = _build([""])
    assert not scope.reaches_anything and bad == []


def test_tool_tokens_and_keywords() -> None:
    scope, bad = _build(["TOOL:Edit(*.TS)", " THINKING ", "text(*.ts)", "tooling", "tool:edit( )", "tool:"])
    assert bad == ["tool:"]
    assert scope.allow_thinking and not scope.allow_text
    names = {(t.tool_name, t.path_glob) for t in scope.tool_scopes}
    assert names == {("edit", "*.TS"), ("text", "*.ts"), ("tooling", None), ("edit", None)}
    # The glob keeps its case: `*.TS` does not match a.ts, but tool:edit( ) admits any edit.
    assert scope.allows(MatchContext("tool", tool_name=" EDIT ", file_paths=("a.ts",)))
    assert not scope.allows(MatchContext("tool", tool_name="write", file_paths=("a.ts",)))


def test_tool_glob_without_name_means_any_tool_on_those_paths() -> None:
    scope, _ = _build(["tool(*.md)"])
    assert scope.allows(MatchContext("tool", tool_name="bash", file_paths=("x.md",)))
    assert not scope.allows(MatchContext("tool", tool_name="bash", file_paths=("x.ts",)))
    assert scope.explain(MatchContext("text")) == "scope: text not monitored"


def test_explain_says_no_file_path_in_words() -> None:
    scope, _ = _build(["tool:edit(*.ts)"])
    bare = scope.explain(MatchContext("tool", tool_name="write", file_paths=()))
    assert bare == "scope: tool write (no file path) not in [tool:edit(*.ts)]" and "[]" not in bare.split(" not in ")[0]
    on = scope.explain(MatchContext("tool", tool_name="write", file_paths=("a.py", "b.py")))
    assert on == "scope: tool write on a.py, b.py not in [tool:edit(*.ts)]"
