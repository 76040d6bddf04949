"""``workbench.rulecheck.snippet``: one snippet through the rules as ``omp ttsr test`` checks it."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.rulecheck.snippet import check_snippet, isolated_manager, snippet_context
from workbench.rules import Rule

ANY_TS = Rule("no-any", "r/no-any.md", "b", condition=[r":\s*any\b"], scope=["tool:edit(*.ts)"])
AST_TS = Rule("as-any", "r/as-any.md", "b", ast_condition=["$E as any"], scope=["tool:edit(*.ts)"])
PROSE = Rule("sorry", "r/sorry.md", "b", condition=["sorry", "apolog"], scope=["text"])


def _manager(*rules: Rule):
    manager = isolated_manager()
    for rule in rules:
        assert manager.add_rule(rule)
    return manager


def test_the_context_is_inferred_from_the_path_as_the_agent_does():
    ctx = snippet_context(None, None, "src/a.ts")
    assert (ctx.source, ctx.tool, ctx.file_path, ctx.note) == ("tool", "edit", "src/a.ts", None)
    prose = snippet_context(None, None, "notes.txt")
    assert (prose.source, prose.tool) == ("text", None)
    assert prose.note is not None and prose.note.startswith("inferred --source text from '.txt'")
    assert snippet_context("tool", "write", None).label() == "tool:write"
    assert snippet_context(None, None, None).source == "text"


def test_a_file_stands_in_for_a_missing_path(tmp_path):
    path = tmp_path / "x.rs"
    ctx = snippet_context(None, None, None, str(path))
    assert (ctx.source, ctx.file_path) == ("tool", str(path))
    assert snippet_context(None, None, None, "-").file_path is None


def test_an_unknown_source_is_an_error():
    with pytest.raises(InputError, match="Invalid --source: code"):
        snippet_context("code", None, None)


def test_tool_scoped_rules_fire_only_in_their_context():
    manager = _manager(ANY_TS, PROSE)
    report = check_snippet(manager, "const x: any = 1", snippet_context(None, None, "src/a.ts"), "main")
    assert [m.name for m in report.triggered] == ["no-any"]
    assert report.triggered[0].matched_regex == (r":\s*any\b",)
    as_prose = check_snippet(manager, "const x: any = 1 sorry", snippet_context("text", None, None), "main")
    assert [m.name for m in as_prose.triggered] == ["sorry"]
    assert as_prose.triggered[0].matched_regex == ("sorry",)  # only the conditions that match are named


def test_ast_conditions_need_a_tool_source_and_an_extension():
    manager = _manager(AST_TS)
    hit = check_snippet(manager, "const u = (req as any).user;", snippet_context(None, None, "a.ts"), "main")
    assert [m.matched_ast for m in hit.triggered] == [("$E as any",)]
    miss = check_snippet(manager, "const u = (req as any).user;", snippet_context("text", None, None), "main")
    assert miss.triggered == () and miss.not_triggered[0].skipped_ast is not None


def test_report_json_and_lines_follow_the_agent():
    manager = _manager(ANY_TS)
    report = check_snippet(manager, "const   x: any\n= 1", snippet_context(None, None, "src/a.ts"), "scout")
    data = report.to_json()
    assert (data["source"], data["tool"], data["filePath"], data["agent"]) == ("tool", "edit", "src/a.ts", "scout")
    assert data["snippetPreview"] == "const x: any = 1" and data["snippetBytes"] == 18 and data["evaluated"] == 1
    assert data["triggered"][0]["matched"] == {"regex": [r":\s*any\b"], "ast": []}
    lines = report.lines()
    assert lines[0] == "TTSR test — source=tool:edit path=src/a.ts agent=scout snippet=18b"
    assert lines[-1] == r"  ✓ no-any  condition: /:\s*any\b/"
    none = check_snippet(manager, "ok", snippet_context(None, None, "src/a.ts"), "main")
    assert "No rules triggered. (evaluated 1)" in none.lines()
    assert none.lines(verbose=True)[-1].startswith("  ✗ no-any")
