"""Firing records (``workbench.replay.firings``): the first firing of each rule in each turn, located."""

from __future__ import annotations

from workbench.replay import ReplayConfig, not_registered, record_firings
from workbench.replay.firings import ast_patterns, snippet
from workbench.rules import Rule
from workbench.ttsr import TtsrSettings

from .conftest import prose_turn, rule, stream_of, tool_turn

PROBE = TtsrSettings.of(interrupt_mode="never", repeat_mode="after-gap", repeat_gap=0)


def test_one_firing_per_rule_and_turn_with_where_it_matched():
    stream = stream_of(prose_turn("let a = x", ".unwrap();", " and y.unwrap()"), prose_turn("fine"),
                       prose_turn("z.unwrap()"))
    _sim, recorder = record_firings(stream, [rule("no-unwrap", r"\.unwrap\(")], ReplayConfig.of(PROBE, cwd="/proj"))
    firings = recorder.firings
    assert [(f.rule, f.turn, f.source, f.via) for f in firings] == [("no-unwrap", 0, "text", "regex"),
                                                                  ("no-unwrap", 2, "text", "regex")]
    first = firings[0]
    text = "let a = x.unwrap();"
    assert (first.offset, first.end) == (text.index(".unwrap("), text.index(".unwrap(") + len(".unwrap("))
    assert first.fired_at == len(text)  # it fired at the delta that completed the match
    assert ".unwrap(" in first.snippet
    assert first.to_json()["stream_key"] == first.stream_key


def test_a_tool_call_firing_names_the_tool_and_its_paths():
    args = {"path": "src/a.rs", "content": "fn main() { x.unwrap(); }"}
    stream = stream_of(tool_turn("t1", "write", ['{"path": "src/a.rs", "content": "fn main() { x.', 'unwrap(); }"}'],
                                 args, "ok"))
    rules = [rule("no-unwrap", r"\.unwrap\(", scope=["tool:write(*.rs)"])]
    _sim, recorder = record_firings(stream, rules, ReplayConfig.of(PROBE, cwd="/proj"))
    (firing,) = recorder.firings
    assert (firing.source, firing.tool_name) == ("tool", "write")
    assert firing.file_paths is not None and "src/a.rs" in firing.file_paths


def test_an_ast_firing_is_located_with_ast_grep():
    code = "const a = 1;\nconst b = value as any;\n"
    stream = stream_of(tool_turn("t1", "write", ['{"path": "src/a.ts", "content": ', f'{code!r}}}'.replace("'", '"')],
                                 {"path": "src/a.ts", "content": code}, "ok"))
    rules = [Rule("no-any", "/proj/.omp/rules/no-any.md", "b", ast_condition=["$X as any"], scope=["tool:write"])]
    _sim, recorder = record_firings(stream, rules, ReplayConfig.of(PROBE, cwd="/proj"))
    (firing,) = recorder.firings
    assert firing.via == "ast" and firing.offset is not None
    assert "value as any" in firing.snippet


def test_rules_that_can_never_fire_say_why():
    assert not_registered(Rule("plain", "p.md", "body")) == "no condition or astCondition (not a TTSR rule)"
    assert not_registered(rule("ok", "x")) is None
    assert not_registered(rule("bad", "(")) == "no valid regex condition and no AST pattern"


def test_ast_patterns_drop_blanks_and_accept_one_string():
    assert ast_patterns(Rule("r", "r.md", "b", ast_condition=[" $X ", "", "  "])) == ("$X",)
    assert ast_patterns(Rule("r", "r.md", "b", ast_condition="console.log($A)")) == ("console.log($A)",)  # type: ignore[arg-type]
    assert ast_patterns(Rule("r", "r.md", "b")) == ()


def test_snippets_keep_context_on_one_line():
    text = "a" * 100 + "\nMATCH\t" + "b" * 100
    start = text.index("MATCH")
    cut = snippet(text, start, start + 5, context=10)
    assert cut.startswith("…") and cut.endswith("…") and "⏎MATCH " in cut and len(cut) == 10 + 5 + 10 + 2
    assert snippet("short", None, None) == "short"
