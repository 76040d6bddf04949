"""Judged rules in the simulated session and the stepper: outputs, candidates, verdicts, delivery."""

from __future__ import annotations

import pytest

from tests.replay.conftest import ev, prose_turn, rule, stream_of, tool_turn
from workbench.errors import JudgePending
from workbench.replay import ReplayConfig, Stepper, run_session
from workbench.replay.judge.judges import AskJudge, FixedJudge, ScriptJudge
from workbench.replay.judge.queue import completed_outputs
from workbench.rules import Rule


def judged(name: str, question: str = "Does it break the rule?", **kw) -> Rule:
    return Rule(name, f"/proj/.omp/rules/{name}.md", f"Rule {name} body.", question=question, **kw)


def types(result):
    return [e.type for e in result.events]


def test_yes_delivers_a_warning_without_aborting():
    stream = stream_of(prose_turn("All ", "done, ", "trust me."))
    result = run_session(stream, [judged("no-promises")], ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert types(result) == ["ttsr_triggered", "injection"]
    trig, inj = result.events
    assert trig.rules == ("no-promises",) and trig.source == "text"
    assert trig.to_json()["judged"] is True and trig.to_json()["interrupt"] is False
    assert trig.step == 5  # message_end
    assert inj.step == 6 and inj.detail["judged"] is True  # turn_end: the step boundary
    assert result.injected == ("no-promises",)
    warning = result.context[-1]
    assert warning["customType"] == "ttsr-injection" and warning["details"] == {"rules": ["no-promises"]}
    assert "your reply" in warning["content"] and "Rule no-promises body." in warning["content"]
    assert result.status == "completed"


def test_without_a_judge_nothing_is_delivered_and_the_summary_says_so():
    stream = stream_of(prose_turn("hello"))
    result = run_session(stream, [judged("j")], ReplayConfig(cwd="/proj", time_bound=None))
    assert result.events == () and result.injected == ()
    summary = result.judged_summary()
    assert summary["judge"] is None and summary["not_asked"] == 1 and summary["asked"] == 0
    assert result.to_json()["judged"]["queue"][0]["items"][0]["status"] == "no judge"


def test_no_answer_delivers_nothing_but_counts_the_call():
    result = run_session(stream_of(prose_turn("hello")), [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(False), time_bound=None))
    assert result.events == ()
    assert result.judged_summary()["asked"] == 1


@pytest.mark.parametrize("stop", ["aborted", "error"])
def test_aborted_or_failed_messages_are_not_judged(stop):
    result = run_session(stream_of(prose_turn("hello", stop=stop)), [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert result.events == () and result.judge_rounds == ()


def test_a_judged_condition_only_prefilters_and_never_interrupts():
    rules = [judged("todo", condition=["TODO"])]
    hit = run_session(stream_of(prose_turn("a TODO left")), rules, ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert types(hit) == ["ttsr_triggered", "injection"]  # no abort, no retry
    miss = run_session(stream_of(prose_turn("all clean")), rules, ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert miss.events == ()
    assert miss.judge_rounds[0].items[0].status == "no candidates"


def edit_and_reply_turn():
    args = {"path": "src/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    return [
        ev("turn_start"),
        ev("message_start", role="assistant"),
        ev("text_delta", contentIndex=0, delta="Changing x."),
        ev("toolcall_start", contentIndex=1, id="c1", name="edit"),
        ev("toolcall_delta", contentIndex=1, delta='{"path":"src/a.py"}'),
        ev("toolcall_end", contentIndex=1, arguments=args),
        ev("message_end", stopReason="toolUse"),
        ev("tool_result", toolCallId="c1", toolName="edit", content=[{"type": "text", "text": "ok"}]),
        ev("turn_end"),
    ]


def test_outputs_are_tools_then_reply_and_candidates_follow_scope_and_globs():
    rules = [judged("py-only", globs=["*.py"]), judged("reply-only", scope=["text"])]
    result = run_session(stream_of(edit_and_reply_turn()), rules, ReplayConfig(cwd="/proj", judge=FixedJudge(False), time_bound=None))
    (round_,) = result.judge_rounds
    assert round_.turn == 0 and round_.judge == "fixed:no"
    subjects = [(i.subject, i.candidates) for i in round_.items]
    assert subjects == [("`edit` call on `src/a.py`", ("py-only",)), ("reply", ("reply-only",))]
    tool_request = round_.items[0].request
    assert tool_request.source == "tool" and tool_request.stream_key.startswith("toolcall:c1")
    assert [q.key for q in tool_request.questions] == ["q0"]


def test_one_rule_flagged_on_two_outputs_is_delivered_once():
    result = run_session(stream_of(edit_and_reply_turn()), [judged("any")], ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    items = result.judge_rounds[0].items
    assert [i.flagged for i in items] == [("any",), ("any",)]
    assert [i.claimed for i in items] == [("any",), ()]
    assert types(result) == ["ttsr_triggered", "injection"]
    trig = result.events[0]
    assert trig.tool_call_id == "c1" and trig.detail["subject"] == "`edit` call on `src/a.py`"


def test_repeat_gate_applies_to_candidates():
    stream = stream_of(prose_turn("one"), prose_turn("two"))
    once = run_session(stream, [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert [len(r.items[0].candidates) for r in once.judge_rounds] == [1, 0]
    # The claim records turn 0; delivering the warning after turn_end records turn 1 (as persisting
    # the aside does in the agent), so a gap of 1 skips turn 1 and fires again at turn 2.
    three = stream_of(prose_turn("one"), prose_turn("two"), prose_turn("three"))
    again = run_session(three, [judged("j")], ReplayConfig.of({"repeatMode": "after-gap", "repeatGap": 1}, cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert [len(r.items[0].candidates) for r in again.judge_rounds] == [1, 0, 1]
    assert [e.type for e in again.events].count("ttsr_triggered") == 2


def test_script_answers_by_rule_and_turn():
    script = ScriptJudge.parse("rules:\n  j:\n    1: yes\n    default: no\n", "a.yaml")
    stream = stream_of(prose_turn("one"), prose_turn("two"), prose_turn("three"))
    result = run_session(stream, [judged("j")], ReplayConfig(cwd="/proj", judge=script, time_bound=None))
    trig = [e for e in result.events if e.type == "ttsr_triggered"]
    assert len(trig) == 1 and result.judge_rounds[1].items[0].claimed == ("j",)
    assert [r.items[0].answers for r in result.judge_rounds] == [(0.0,), (1.0,), ()]  # spent after turn 1


def test_probability_threshold_is_point_seven():
    low = ScriptJudge.parse("rules: {j: 0.69}")
    high = ScriptJudge.parse("rules: {j: 0.7}")
    stream = stream_of(prose_turn("x"))
    assert run_session(stream, [judged("j")], ReplayConfig(cwd="/proj", judge=low, time_bound=None)).injected == ()
    assert run_session(stream, [judged("j")], ReplayConfig(cwd="/proj", judge=high, time_bound=None)).injected == ("j",)


def test_content_is_cut_to_the_token_limit(monkeypatch):
    from workbench.replay.judge import queue

    monkeypatch.setattr(queue, "JUDGED_CONTENT_MAX_TOKENS", 3)
    result = run_session(stream_of(prose_turn("one two three four five six")), [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(False), time_bound=None))
    request = result.judge_rounds[0].items[0].request
    assert request.truncated and request.content == "one two three" and request.tokens == 3
    assert request.length == len("one two three four five six")


def test_buffers_reset_at_every_assistant_message_even_inside_a_turn():
    events = [
        ev("turn_start"),
        ev("message_start", role="assistant"), ev("text_delta", contentIndex=0, delta="foo"),
        ev("message_end", stopReason="stop"),
        ev("message_start", role="assistant"), ev("text_delta", contentIndex=0, delta="bar"),
        ev("message_end", stopReason="stop"),
        ev("turn_end"),
    ]
    result = run_session(stream_of(events), [rule("fb", "foobar")], ReplayConfig(cwd="/proj", time_bound=None))
    assert result.events == ()


def test_completed_outputs_join_text_and_thinking_and_skip_blank():
    message = {"content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "a"},
                           {"type": "text", "text": "b"}, {"type": "thinking", "thinking": "  "}]}
    outs = completed_outputs(message, cwd="/proj", edit_mode=None)
    assert [(o.subject, o.content, o.ctx.source) for o in outs] == [
        ("reply", "a\n\nb", "text"), ("reasoning", "hmm\n\n  ", "thinking")]
    assert completed_outputs({"content": [{"type": "text", "text": " \n"}]}, cwd="/", edit_mode=None) == []


def test_a_tool_without_paths_is_named_by_its_tool_and_sends_compact_json():
    message = {"content": [{"type": "toolCall", "id": "b1", "name": "bash", "arguments": {"command": "ls -l"}}]}
    (out,) = completed_outputs(message, cwd="/proj", edit_mode=None)
    assert out.subject == "`bash` call" and out.content == '{"command":"ls -l"}'
    assert out.ctx.stream_key == "toolcall:b1"


def test_stepper_pauses_at_an_ask_judge_and_resumes_with_the_answer():
    stream = stream_of(prose_turn("I fixed", " everything."), prose_turn("next"))
    judge = AskJudge()
    stepper = Stepper(stream, [judged("no-promises", question="Does it claim unverified success?")], ReplayConfig(cwd="/proj", judge=judge, time_bound=None))
    paused = stepper.seek(4)  # message_end: the judge is asked here
    assert paused.judge_waiting is not None and paused.is_trigger
    request = stepper.waiting
    assert request.content == "I fixed everything." and request.subject == "reply"
    assert [q.question for q in request.questions] == ["Does it claim unverified success?"]
    with pytest.raises(JudgePending):
        stepper.seek(5)
    snap = stepper.answer({"no-promises": "yes"})
    assert snap.index == 4 and snap.judge_waiting is None
    assert [e.type for e in snap.events] == ["ttsr_triggered"]
    (round_,) = snap.judge_queue
    assert round_.items[0].status == "answered" and round_.items[0].claimed == ("no-promises",)
    assert stepper.seek(5).events[0].type == "injection"
    assert stepper.result().injected == ("no-promises",)
    assert stepper.seek(4) is snap  # snapshots stay put once computed


def test_stepper_snapshot_shows_the_queue_of_the_completed_message_only():
    stream = stream_of(prose_turn("x"))
    stepper = Stepper(stream, [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(False), time_bound=None))
    assert [len(s.judge_queue) for s in stepper.snapshots()] == [0, 0, 0, 1, 0]
    assert stepper.seek(3).to_json(conversations=False)["judge_queue"][0]["items"][0]["answers"] == [0.0]


def test_run_session_with_an_unanswered_ask_judge_raises():
    with pytest.raises(JudgePending):
        run_session(stream_of(prose_turn("x"), prose_turn("y")), [judged("j")], ReplayConfig(cwd="/proj", judge=AskJudge(), time_bound=None))


def test_judged_and_stream_rules_live_side_by_side():
    rules = [rule("stream", "BAD", interrupt_mode="never"), judged("j")]
    stream = stream_of(tool_turn("c1", "bash", ['{"command":"BAD"}'], {"command": "BAD"}, "ok"))
    result = run_session(stream, rules, ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    triggered = [(e.rules, e.detail.get("judged", False)) for e in result.events if e.type == "ttsr_triggered"]
    assert triggered == [(("stream",), False), (("j",), True)]
    assert set(result.injected) == {"stream", "j"}


def test_the_judge_setting_off_keeps_judged_rules_inactive():
    result = run_session(stream_of(prose_turn("x")), [judged("j")], ReplayConfig.of({"judge": "off"}, cwd="/proj", judge=FixedJudge(True), time_bound=None))
    assert result.injected == () and result.judge is None
    assert result.judge_rounds[0].items[0].status == "no judge"


def test_a_custom_warning_template():
    result = run_session(stream_of(prose_turn("x")), [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(True), templates={"warning": "WARN {{name}} about {{subject}}"}, time_bound=None))
    assert result.context[-1]["content"] == "WARN j about reply"


def test_stepper_result_carries_the_judge_queue():
    stepper = Stepper(stream_of(prose_turn("x")), [judged("j")], ReplayConfig(cwd="/proj", judge=FixedJudge(True), time_bound=None))
    result = stepper.result()
    assert result.judge == "fixed:yes" and result.judged_rules == ("j",)
    assert result.judged_summary()["delivered"] == ["j"]
