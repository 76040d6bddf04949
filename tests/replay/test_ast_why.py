"""The stepper's why text for AST rules: dynamic grammars fire, misses say where ast-grep-py may differ."""

from __future__ import annotations

import json

from tests.replay.conftest import stream_of, tool_turn
from workbench.replay import ReplayConfig, Stepper
from workbench.rules import Rule


def _ast_rule(name: str, *patterns: str) -> Rule:
    return Rule(name, f"/proj/.omp/rules/{name}.md", "body", ast_condition=list(patterns))


def _write_turn(path: str, content: str, pieces: int = 6) -> list:
    raw = json.dumps({"path": path, "content": content})
    step = max(1, len(raw) // pieces)
    deltas = [raw[i : i + step] for i in range(0, len(raw), step)]
    return tool_turn("toolu_1", "write", deltas, {"path": path, "content": content}, "ok")


def _whys(stepper: Stepper, name: str) -> list[str | None]:
    return [snap.rule(name).why for snap in stepper.snapshots()]


def test_a_toml_rule_fires_through_the_dynamic_grammar() -> None:
    rule = _ast_rule("no-wildcard-dep", 'serde = "*"')
    stream = stream_of(_write_turn("Cargo.toml", '[dependencies]\nserde = "*"\n'))
    st = Stepper(stream, [rule], ReplayConfig(cwd="/proj", time_bound=None))
    assert st.next_trigger(0) is not None


def test_a_miss_on_broken_source_says_the_engines_may_differ() -> None:
    rule = _ast_rule("no-name", '"name": $V')
    # AST conditions run only on the finished call (as the agent's coordinator does), so the broken
    # source is the written file itself: an object left open.
    stream = stream_of(_write_turn("package.json", '{\n  "name": "x",\n  "deps": {\n'))
    st = Stepper(stream, [rule], ReplayConfig(cwd="/proj", time_bound=None))
    whys = [w for w in _whys(st, "no-name") if w and w.startswith("AST")]
    assert whys, _whys(st, "no-name")
    assert any("does not parse cleanly yet" in w for w in whys)
    assert all("is a bare pair" in w for w in whys)  # the JSON note the native engine needs
    assert any("does not compile for 'json'" in w for w in whys)


def test_a_clean_miss_says_only_that_the_pattern_did_not_match() -> None:
    rule = _ast_rule("no-eval", "eval($X)")
    st = Stepper(stream_of(_write_turn("a.py", "print(1)\n", pieces=1)), [rule], ReplayConfig(cwd="/proj", time_bound=None))
    assert "AST pattern did not match" in _whys(st, "no-eval")
    assert not any(w and "parse cleanly" in w for w in _whys(st, "no-eval"))


def test_a_language_without_a_grammar_is_named() -> None:
    rule = _ast_rule("no-todo", "TODO")
    st = Stepper(stream_of(_write_turn("build.just", "build:\n    TODO\n", pieces=1)), [rule], ReplayConfig(cwd="/proj", time_bound=None))
    assert any(w and "no grammar package here provides it" in w for w in _whys(st, "no-todo"))


def test_tool_call_deltas_say_the_ast_check_waits_for_the_finished_call() -> None:
    """The agent (18.3.4's coordinator) runs ast-grep conditions only at toolcall_end: at each delta the
    why text says so, and the rule fires at the call's end although the pattern is complete earlier."""
    from workbench.replay.stepper import AST_AT_CALL_END

    rule = _ast_rule("no-eval", "eval($X)")
    st = Stepper(stream_of(_write_turn("a.js", "eval(1);\n" + "x = 2;\n" * 20, pieces=8)), [rule],
                 ReplayConfig(cwd="/proj", time_bound=None))
    snaps = st.snapshots()
    deltas = [s for s in snaps if s.event.type == "toolcall_delta"]
    assert len(deltas) >= 4
    assert all(s.rule("no-eval").why == f"no regex condition (AST only); {AST_AT_CALL_END}" for s in deltas)
    first = st.next_trigger(-1)
    assert first is not None and snaps[first].event.type == "toolcall_end"
    assert snaps[first].rule("no-eval").why is None and "no-eval" in snaps[first].matched
