"""The simulated agent session (spec §8): interrupts, retries, reminders, deferred prose, persistence."""

from __future__ import annotations

import json

import pytest

from tests.replay.conftest import ev, prose_turn, rule, stream_of, tool_turn
from workbench.errors import UsageError
from workbench.replay import ReplayConfig, SimulatedSession, run_session
from workbench.replay.conversation import text_of

UNWRAP = rule("no-unwrap", r"\.unwrap\(")


def _run(stream, rules, **settings):
    return run_session(stream, rules, ReplayConfig.of(settings, cwd="/proj", time_bound=None))


def test_prose_interrupt_names_the_delta_that_completed_the_match():
    stream = stream_of(prose_turn("let x = res", "ult.unw", "rap(", ");"), prose_turn("let x = result?;"))
    result = _run(stream, [UNWRAP])
    types = [e.type for e in result.events]
    assert types == ["ttsr_triggered", "abort", "retry", "injection"]
    trig, abort, retry, inject = result.events
    assert trig.delta == "rap(" and abort.delta == "rap(" and trig.step == 4
    assert abort.reason == "TTSR matched rule: no-unwrap"
    assert retry.detail["continuation"] is True
    assert result.injected == ("no-unwrap",)
    assert result.status == "completed"


def test_discard_drops_the_partial_output_and_keep_keeps_it():
    stream = stream_of(prose_turn("let x = res", "ult.unwrap(", ");"), prose_turn("let x = result?;"))
    discard = _run(stream, [UNWRAP], contextMode="discard")
    keep = _run(stream, [UNWRAP], contextMode="keep")
    assert [m["role"] for m in discard.context] == ["custom", "assistant"]
    assert [m["role"] for m in keep.context] == ["assistant", "custom", "assistant"]
    partial = keep.context[0]
    assert partial["stopReason"] == "aborted" and text_of(partial) == "let x = result.unwrap("
    injection = keep.context[1]
    assert injection["customType"] == "ttsr-injection" and injection["display"] is False
    assert 'rule="no-unwrap"' in injection["content"] and "Rule no-unwrap body." in injection["content"]
    assert text_of(keep.context[2]) == "let x = result?;"  # the retry consumed the next recorded turn


def test_retry_without_a_recorded_turn_ends_the_run():
    result = _run(stream_of(prose_turn("a.unwrap(")), [UNWRAP])
    assert result.status == "interrupted, no recorded continuation"
    assert result.events[2].type == "retry" and result.events[2].detail["continuation"] is False


def test_tool_scoped_never_rule_folds_its_reminder_into_the_tool_result():
    never = rule("no-unwrap", r"\.unwrap\(", scope=["tool:edit(*.rs)"], interrupt_mode="never")

    def edit(path):
        args = {"path": path, "old_string": "x", "new_string": "y.unwrap()"}
        raw = json.dumps(args)
        return stream_of(tool_turn("call_1", "edit", [raw[:20], raw[20:]], args, "done"), prose_turn("ok"))

    result = _run(edit("src/a.rs"), [never])
    assert [e.type for e in result.events] == ["ttsr_triggered", "reminder"]
    assert result.events[0].detail["interrupt"] is False and result.events[0].tool_call_id == "call_1"
    assert result.events[0].stream_key == "toolcall:call_1"
    tool_result = next(m for m in result.context if m["role"] == "toolResult")
    first, second = tool_result["content"]
    assert first["text"].startswith("<system-reminder") and 'rule="no-unwrap"' in first["text"]
    assert second == {"type": "text", "text": "done"}
    assert result.stream_calls == 2 and result.injected == ("no-unwrap",)
    assert _run(edit("src/a.ts"), [never]).events == ()  # the path gate of the scope


def test_interrupt_on_a_tool_call_gives_siblings_the_other_call_reason():
    stream = stream_of(
        [
            ev("turn_start"),
            ev("message_start", role="assistant"),
            ev("toolcall_start", contentIndex=0, id="a", name="read"),
            ev("toolcall_delta", contentIndex=0, delta='{"path": "x.txt"}'),
            ev("toolcall_end", contentIndex=0, arguments={"path": "x.txt"}),
            ev("toolcall_start", contentIndex=1, id="b", name="bash"),
            ev("toolcall_delta", contentIndex=1, delta='{"command": "y.unwrap("'),
            ev("toolcall_end", contentIndex=1, arguments={"command": "y.unwrap("}),
            ev("message_end", stopReason="toolUse"),
            ev("turn_end"),
        ],
        prose_turn("fine"),
    )
    result = run_session(stream, [UNWRAP], ReplayConfig.of({"contextMode": "keep"}, cwd="/proj", time_bound=None))
    abort = next(e for e in result.events if e.type == "abort")
    assert abort.tool_call_id == "b" and abort.detail["dropped_calls"] == ["b"]
    aborted, placeholder = result.context[0], result.context[1]
    assert [b["id"] for b in aborted["content"]] == ["a"]  # the incomplete call is dropped
    assert placeholder["toolCallId"] == "a"
    assert text_of(placeholder) == "Tool execution was aborted: TTSR interrupt on another tool call"


def test_once_rule_never_fires_again():
    stream = stream_of(prose_turn("a.unwrap("), prose_turn("fine"), prose_turn("b.unwrap("), prose_turn("c.unwrap("))
    result = _run(stream, [UNWRAP], repeatMode="once")
    assert [e.type for e in result.events].count("ttsr_triggered") == 1


def test_after_gap_fires_again_once_the_gap_has_passed():
    turns = [prose_turn(f"v{i}.unwrap(") for i in range(10)]
    result = _run(stream_of(*turns), [UNWRAP], repeatMode="after-gap", repeatGap=3)
    fired = [e.step for e in result.events if e.type == "ttsr_triggered"]
    starts = [i for i, e in enumerate(stream_of(*turns).events) if e.type == "turn_start"]
    turn_of = [max(t for t, s in enumerate(starts) if s <= step) for step in fired]
    # The aborted turn still ends (count 1) and the retry marks the rule at 1; turn k runs at count k,
    # so it may fire again in turn 4 (4 - 1 >= 3), is marked at 5, and fires next in turn 8.
    assert turn_of == [0, 4, 8]


def test_deferred_prose_reminder_waits_for_message_end_and_is_dropped_on_abort():
    never = rule("no-unwrap", r"\.unwrap\(", interrupt_mode="never")
    ok = _run(stream_of(prose_turn("a.unwrap("), prose_turn("next")), [never])
    assert [e.type for e in ok.events] == ["injection"] and ok.events[0].detail["deferred"] is True
    assert [m["role"] for m in ok.context] == ["assistant", "custom", "assistant"]
    dropped = _run(stream_of(prose_turn("a.unwrap(", stop="aborted"), prose_turn("next")), [never])
    assert dropped.events == () and dropped.injected == ()


def test_prose_only_rule_does_not_interrupt_a_tool_stream():
    prose_only = rule("no-unwrap", r"\.unwrap\(", interrupt_mode="prose-only")
    stream = stream_of(tool_turn("c1", "bash", ['{"command": "x.unwrap()"}'], {"command": "x.unwrap()"}, "ok"))
    result = _run(stream, [prose_only])
    assert "abort" not in [e.type for e in result.events] and "reminder" in [e.type for e in result.events]


def test_persisted_entries_go_to_a_copy_and_resume_restores_injected(tmp_path):
    original = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/proj"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "ttsr_injection", "id": "t1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z",
         "injectedRules": ["no-unwrap"]},
    ]
    original.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    before = original.read_text()
    sim = SimulatedSession([UNWRAP], ReplayConfig(cwd="/proj", resume=str(original)))
    assert sim.manager.get_injected_rule_names() == ["no-unwrap"]
    for i, e in enumerate(stream_of(prose_turn("a.unwrap(")).events):
        sim.feed(i, e)
    assert sim.events == []  # restored under once: spent
    other = rule("no-todo", r"TODO", interrupt_mode="never")
    sim2 = SimulatedSession([other], ReplayConfig(cwd="/proj", resume=str(original)))
    for i, e in enumerate(stream_of(prose_turn("TODO later"), prose_turn("x")).events):
        sim2.feed(i, e)
    with pytest.raises(UsageError):
        sim2.write_session_copy(str(original))
    copy = sim2.write_session_copy(str(tmp_path / "copy.jsonl"))
    assert original.read_text() == before
    written = [json.loads(x) for x in copy.read_text().splitlines()]
    assert written[:3] == lines
    assert [e["type"] for e in written[3:]] == ["custom_message", "ttsr_injection"]
    assert written[3]["parentId"] == "t1" and written[4]["injectedRules"] == ["no-todo"]


def test_ast_rule_interrupts_an_edit_of_a_matching_file():
    ast_rule = rule("no-console", content="No console.", ast_condition=["console.log($X)"])
    args = {"path": "a.ts", "old_string": "", "new_string": "console.log(1)"}
    raw = ['{"path": "a.ts", "old_string": "", "new_str', 'ing": "console.log(1)"}']
    result = _run(stream_of(tool_turn("c1", "edit", raw, args, "ok"), prose_turn("ok")), [ast_rule])
    # The agent (18.3.4 coordinator) checks ast-grep conditions only on the finalized call: not at the
    # delta (step 4) where the partial new_string already reads ``console.log(1)``, but at toolcall_end
    # (step 5). The call is complete by then, so it is not dropped: it gets the placeholder result.
    assert [(e.type, e.step) for e in result.events][:2] == [("ttsr_triggered", 5), ("abort", 5)]
    abort = result.events[1]
    assert abort.detail["placeholder_results"] == ["c1"] and abort.detail["dropped_calls"] == []
    kept = _run(stream_of(tool_turn("c1", "edit", raw, args, "ok"), prose_turn("ok")), [ast_rule], contextMode="keep")
    placeholder = next(m for m in kept.context if m.get("role") == "toolResult")
    assert placeholder["content"][0]["text"] == "Tool execution was aborted: TTSR matched rule: no-console"
    other = dict(args, path="a.md")
    quiet = _run(stream_of(tool_turn("c1", "edit", [json.dumps(other)], other, "ok")), [ast_rule])
    assert quiet.events == ()


def test_custom_templates_are_used_for_both_paths():
    never = rule("no-unwrap", r"\.unwrap\(", interrupt_mode="never")
    stream = stream_of(tool_turn("c1", "bash", ['{"command": "x.unwrap()"}'], {"command": "x.unwrap()"}, "ok"),
                       prose_turn("y.unwrap("), prose_turn("z"))
    result = run_session(stream, [never], ReplayConfig.of({"repeatMode": "after-gap", "repeatGap": 0}, cwd="/proj", time_bound=None, templates={"interrupt": "I:{{name}}", "reminder": "R:{{name}}"}))
    contents = [(e.type, e.content) for e in result.events if e.content]
    assert contents == [("reminder", "R:no-unwrap"), ("injection", "I:no-unwrap")]


def test_thinking_is_checked_only_for_rules_that_scope_it():
    thinking = rule("no-unwrap", r"\.unwrap\(", scope=["thinking"])
    stream = stream_of(
        [ev("turn_start"), ev("message_start", role="assistant"), ev("thinking_delta", contentIndex=0, delta="a.unwrap("),
         ev("message_end", stopReason="stop"), ev("turn_end")],
        prose_turn("ok"),
    )
    assert [e.type for e in _run(stream, [thinking]).events][0] == "ttsr_triggered"
    assert _run(stream, [UNWRAP]).events == ()


def test_tool_call_without_an_id_uses_the_fallback_key_and_the_prose_path():
    never = rule("no-unwrap", r"\.unwrap\(", interrupt_mode="never")
    stream = stream_of(tool_turn("", "bash", ['{"command": "x.unwrap()"}'], {"command": "x.unwrap()"}, "ok"),
                       prose_turn("done"))
    sim = SimulatedSession([never], ReplayConfig(cwd="/proj"), stream=stream)
    keys = []
    sim.on_check = lambda ctx, method, matches: keys.append((ctx.stream_key, method, [r.name for r in matches]))
    for i, e in enumerate(stream.events):
        sim.feed(i, e)
    result = sim.finish()
    # toolcall_end checks the finalized arguments once more (the 18.3 coordinator); same key, no claim.
    assert keys == [("tool:bash:0", "check_delta", ["no-unwrap"]), ("tool:bash:0", "check_snapshot", ["no-unwrap"]),
                    (None, "check_delta", [])]
    # No claim (no id): deferred like prose, delivered once the agent would stop.
    assert [(e.type, e.detail.get("deferred")) for e in result.events] == [("injection", True)]
    assert [m["role"] for m in result.context] == ["assistant", "toolResult", "assistant", "custom"]
