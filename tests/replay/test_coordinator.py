"""The agent's TTSR coordinator around the manager (oh-my-pi 18.3.4 ``session/ttsr-coordinator.ts``):
one announcement per stream key per violation, reserved deferred reminders, the chat notice."""

from __future__ import annotations

import json

from tests.replay.conftest import ev, prose_turn, rule, stream_of, tool_turn
from workbench.replay import ReplayConfig, run_session
from workbench.replay.notifications import NoticeRule, Notification


def _chunks(raw: str, size: int = 4) -> list[str]:
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def _two_calls_turn(args_a: dict, args_b: dict) -> list:
    """One assistant message streaming two edit calls, then both results."""
    events = [ev("turn_start"), ev("message_start", role="assistant")]
    for index, (cid, args) in enumerate((("a", args_a), ("b", args_b))):
        events.append(ev("toolcall_start", contentIndex=index, id=cid, name="edit"))
        events += [ev("toolcall_delta", contentIndex=index, delta=d) for d in _chunks(json.dumps(args))]
        events.append(ev("toolcall_end", contentIndex=index, arguments=args))
    events.append(ev("message_end", stopReason="toolUse"))
    events += [ev("tool_result", toolCallId=cid, toolName="edit", content=[{"type": "text", "text": "ok"}])
               for cid in ("a", "b")]
    return [*events, ev("turn_end")]


NEVER = rule("no-unwrap", r"\.unwrap\(", scope=["tool:edit(*.rs)"], interrupt_mode="never",
             description="No unwrap in Rust")


def test_a_call_that_keeps_matching_announces_once():
    """With ``repeatGap: 0`` a claimed rule may match again at once, so it matches on every delta and at
    toolcall_end; the coordinator announces it once for the call's stream key (#12729), where one event
    per check was emitted before (10 for this call)."""
    args = {"path": "src/a.rs", "old_string": "x", "new_string": "y.unwrap() and a lot more text here to stream"}
    gap0 = {"repeatMode": "after-gap", "repeatGap": 0}
    result = run_session(stream_of(tool_turn("c1", "edit", _chunks(json.dumps(args), 5), args, "ok")), [NEVER], ReplayConfig.of(gap0, cwd="/proj"))
    assert [(e.type, e.stream_key) for e in result.events] == [("ttsr_triggered", "toolcall:c1"), ("reminder", None)]


def test_announcements_start_afresh_each_turn():
    args = {"path": "src/x.rs", "old_string": "x", "new_string": "y.unwrap()"}
    gap = {"repeatMode": "after-gap", "repeatGap": 1}
    turns = [tool_turn("c1", "edit", _chunks(json.dumps(args)), args, "ok") for _ in range(2)]
    result = run_session(stream_of(*turns), [NEVER], ReplayConfig.of(gap, cwd="/proj"))
    assert [e.stream_key for e in result.events if e.type == "ttsr_triggered"] == ["toolcall:c1", "toolcall:c1"]


def test_a_deferred_reminder_reserves_its_rule_until_delivered():
    """A prose reminder queued at message end is delivered when the agent would stop; a match of the
    same rule in between does not queue it again (#12065)."""
    hint = rule("hint", r"TODO", interrupt_mode="never")
    first = [ev("turn_start"), ev("message_start", role="assistant"), ev("text_delta", contentIndex=0, delta="a TODO"),
             ev("toolcall_start", contentIndex=1, id="c", name="bash"),
             ev("toolcall_end", contentIndex=1, arguments={"command": "ls"}),
             ev("message_end", stopReason="toolUse"),
             ev("tool_result", toolCallId="c", toolName="bash", content=[{"type": "text", "text": "x"}]),
             ev("turn_end")]
    result = run_session(stream_of(first, prose_turn("another TODO")), [hint], ReplayConfig(cwd="/proj"))
    injections = [e for e in result.events if e.type == "injection"]
    assert [(e.rules, e.detail["deferred"]) for e in injections] == [(("hint",), True)]
    assert result.injected == ("hint",)


def test_the_notice_names_the_rule_with_its_description_and_merges_consecutive_triggers():
    args = {"path": "src/x.rs", "old_string": "x", "new_string": "y.unwrap()"}
    other = rule("no-expect", r"\.expect\(", scope=["tool:edit(*.rs)"], interrupt_mode="never",
                 content="Line one\nLine two")
    result = run_session(stream_of(_two_calls_turn(args, {**args, "new_string": "z.expect()"})), [NEVER, other],
                         ReplayConfig(cwd="/proj"))
    (notice,) = result.to_json()["notifications"]
    assert notice["rules"] == ["no-unwrap", "no-expect"]
    assert notice["text"] == "Injecting 2 rules:\nno-unwrap: No unwrap in Rust\nno-expect: Line one…\n (ctrl+o to expand)"


def test_a_notice_after_other_transcript_output_is_a_new_block():
    args = {"path": "src/x.rs", "old_string": "x", "new_string": "y.unwrap()"}
    gap = {"repeatMode": "after-gap", "repeatGap": 1}
    turns = [tool_turn(f"c{i}", "edit", _chunks(json.dumps(args)), args, "ok") for i in range(2)]
    result = run_session(stream_of(*turns), [NEVER], ReplayConfig.of(gap, cwd="/proj"))
    assert [n["text"] for n in result.to_json()["notifications"]] == ["Injecting rule: no-unwrap\nNo unwrap in Rust"] * 2


def test_notice_texts():
    body = NoticeRule("r", None, "  one\ntwo\nthree\n")
    assert Notification(0, (body,)).text() == "Injecting rule: r\none\ntwo…\n (ctrl+o to expand)"
    assert Notification(0, (body,)).text(expanded=True) == "Injecting rule: r\none\ntwo\nthree"
    assert Notification(0, (NoticeRule("bare", "", " "),)).text() == "Injecting rule: bare"
    many = Notification(0, tuple(NoticeRule(f"r{i}", f"d{i}") for i in range(6)))
    assert many.text().splitlines() == ["Injecting 6 rules:", "r0: d0", "r1: d1", "r2: d2", "r3: d3",
                                        "… +2 more (ctrl+o to expand)"]
    assert Notification(0, (NoticeRule("a"),)).merged([NoticeRule("a"), NoticeRule("b")]).rules == (
        NoticeRule("a"), NoticeRule("b"))
