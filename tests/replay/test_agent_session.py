"""Agent-session behaviours of the reference (agent-session.ts, ttsr-coordinator.ts) as replays.

Each test is a stream in the workbench's format with the events and the conversation the agent
produces, under both context modes.
"""

from __future__ import annotations

import json

import pytest

from tests.replay.agent_ends import AgentEnd, replay_with_agent_ends
from tests.replay.conftest import ev, prose_turn, rule, stream_of, tool_turn
from workbench.replay import ReplayConfig
from workbench.replay.conversation import text_of

MODES = ["keep", "discard"]
UNWRAP = rule("no-unwrap", r"\.unwrap\(")


def _replay(stream, rules, mode, **settings):
    return replay_with_agent_ends(stream, rules, ReplayConfig.of({"contextMode": mode, **settings}, cwd="/proj"))


def _roles(context) -> list[str]:
    return [m["role"] for m in context]


def _texts(context) -> list[str]:
    return [text_of(m) for m in context]


@pytest.mark.parametrize("mode", MODES)
def test_text_interrupt_retries_and_the_conversation_keeps_the_retry(mode: str) -> None:
    stream = stream_of([ev("user_message", content="fix it")], prose_turn("let v = x.unw", "rap();"),
                       prose_turn("let v = x?;"))
    result, ends, sim = _replay(stream, [UNWRAP], mode)
    assert result.status == "completed" and sim.streaming is None  # nothing left streaming
    assert [e.type for e in result.events] == ["ttsr_triggered", "abort", "retry", "injection"]
    if mode == "keep":
        assert _roles(result.context) == ["user", "assistant", "custom", "assistant"]
        assert result.context[1]["stopReason"] == "aborted" and _texts(result.context)[1] == "let v = x.unwrap();"
    else:
        assert _roles(result.context) == ["user", "custom", "assistant"]
    last = result.context[-1]
    assert text_of(last) == "let v = x?;" and last["stopReason"] == "stop"  # the retry's output is kept


@pytest.mark.parametrize("mode", MODES)
def test_only_the_agent_end_that_settles_the_abort_will_continue(mode: str) -> None:
    stream = stream_of(prose_turn("a.unwrap("), prose_turn("fixed"), prose_turn("and more"))
    result, ends, _ = _replay(stream, [UNWRAP], mode)
    abort_step = next(e.step for e in result.events if e.type == "abort")
    assert ends[0] == AgentEnd(abort_step, True)
    assert [e.will_continue for e in ends] == [True, False, False]
    assert ends[1].to_json() == {"type": "agent_end", "step": ends[1].step, "willContinue": False}


@pytest.mark.parametrize("mode", MODES)
def test_tool_call_abort_texts_name_the_rule_and_the_other_call(mode: str) -> None:
    # The first call completes; the second arrives without deltas (providers that synthesise the
    # call) and matches on its finalized arguments at toolcall_end, so it is complete when aborted.
    stream = stream_of(
        [
            ev("turn_start"),
            ev("message_start", role="assistant"),
            ev("toolcall_start", contentIndex=0, id="read_1", name="read"),
            ev("toolcall_delta", contentIndex=0, delta='{"path": "notes.txt"}'),
            ev("toolcall_end", contentIndex=0, arguments={"path": "notes.txt"}),
            ev("toolcall_start", contentIndex=1, id="bash_1", name="bash"),
            ev("toolcall_end", contentIndex=1, arguments={"command": "cargo run -- x.unwrap()"}),
            ev("message_end", stopReason="toolUse"),
            ev("tool_result", toolCallId="read_1", toolName="read", content=[{"type": "text", "text": "n"}]),
            ev("turn_end"),
        ],
        prose_turn("done"),
    )
    result, _, _ = _replay(stream, [UNWRAP], mode)
    abort = next(e for e in result.events if e.type == "abort")
    assert abort.tool_call_id == "bash_1" and abort.reason == "TTSR matched rule: no-unwrap"
    placeholders = {r["toolCallId"]: text_of(r) for r in result.context if r["role"] == "toolResult"}
    if mode == "keep":
        assert placeholders == {
            "read_1": "Tool execution was aborted: TTSR interrupt on another tool call",
            "bash_1": "Tool execution was aborted: TTSR matched rule: no-unwrap",
        }
    else:
        assert placeholders == {}  # the aborted message and its placeholders are dropped
    everything = json.dumps([dict(m) for m in result.context]) + json.dumps(sim_events(result))
    assert "Request was aborted" not in everything
    assert result.status == "completed" and text_of(result.context[-1]) == "done"


def sim_events(result) -> list[dict]:
    return [e.to_json() for e in result.events]


@pytest.mark.parametrize("mode", MODES)
def test_persisted_injection_names_the_rule_path_relative_to_the_cwd(mode: str) -> None:
    result, _, sim = _replay(stream_of(prose_turn("a.unwrap("), prose_turn("b")), [UNWRAP], mode)
    customs = [e for e in result.entries if e["type"] == "custom_message"]
    assert len(customs) == 1 and customs[0]["customType"] == "ttsr-injection"
    content = customs[0]["content"]
    assert 'reason="rule_violation"' in content and 'path=".omp/rules/no-unwrap.md"' in content
    assert "/proj/.omp" not in content
    assert customs[0]["details"] == {"rules": ["no-unwrap"]} and customs[0]["display"] is False
    assert [e["type"] for e in result.entries] == ["custom_message", "ttsr_injection"]
    assert next(m for m in result.context if m["role"] == "custom")["content"] == content


@pytest.mark.parametrize("mode", MODES)
def test_user_abort_while_a_deferred_continuation_waits_resolves(mode: str) -> None:
    # A non-interrupting prose match queues a hidden follow-up; the continuation it starts is then
    # aborted by the user (a turn recorded with stopReason "aborted"): the run settles, no retry.
    never = rule("no-unwrap", r"\.unwrap\(", interrupt_mode="never")
    stream = stream_of(prose_turn("x.unwrap() is fine here"), prose_turn("I will", stop="aborted"))
    result, ends, sim = _replay(stream, [never], mode)
    assert result.status == "completed" and sim.streaming is None and not sim.awaiting_retry
    assert [e.type for e in result.events] == ["injection"] and result.events[0].detail["deferred"] is True
    assert "retry" not in [e.type for e in result.events]
    assert _roles(result.context) == ["assistant", "custom", "assistant"]
    assert result.context[-1]["stopReason"] == "aborted"
    assert [e.will_continue for e in ends] == [False]  # the user's abort settles the run for good


@pytest.mark.parametrize("mode", MODES)
def test_a_retry_whose_continuation_calls_tools_runs_them_and_completes_every_turn(mode: str) -> None:
    args = {"command": "cargo test"}
    stream = stream_of(
        prose_turn("let v = x.unwrap("),
        tool_turn("bash_1", "bash", [json.dumps(args)], args, "test result: ok"),
        prose_turn("All tests pass."),
    )
    result, ends, sim = _replay(stream, [UNWRAP], mode)
    assert result.status == "completed" and sim.streaming is None
    tail = ["custom", "assistant", "toolResult", "assistant"]
    assert _roles(result.context) == (["assistant", *tail] if mode == "keep" else tail)
    call = result.context[-3]
    assert call["stopReason"] == "toolUse" and call["content"][0]["type"] == "toolCall"
    assert text_of(result.context[-2]) == "test result: ok" and result.context[-2]["isError"] is False
    assert text_of(result.context[-1]) == "All tests pass."
    assert sim.manager.get_message_count() == 3  # the aborted turn and both continuation turns ended
    assert [e.will_continue for e in ends] == [True, False]


@pytest.mark.parametrize("mode", MODES)
def test_interrupt_never_runs_three_matching_siblings_with_one_reminder(mode: str) -> None:
    commands = ["a.unwrap()", "b.unwrap()", "c.unwrap()"]
    events = [ev("turn_start"), ev("message_start", role="assistant")]
    for i, cmd in enumerate(commands):
        raw = json.dumps({"command": cmd})
        events += [
            ev("toolcall_start", contentIndex=i, id=f"call_{i}", name="bash"),
            ev("toolcall_delta", contentIndex=i, delta=raw[:12]),
            ev("toolcall_delta", contentIndex=i, delta=raw[12:]),
            ev("toolcall_end", contentIndex=i, arguments={"command": cmd}),
        ]
    events.append(ev("message_end", stopReason="toolUse"))
    events += [ev("tool_result", toolCallId=f"call_{i}", toolName="bash", content=[{"type": "text", "text": f"ran {i}"}])
               for i in range(3)]
    events.append(ev("turn_end"))
    result, ends, _ = _replay(stream_of(events, prose_turn("ok")), [UNWRAP], mode, interruptMode="never")
    types = [e.type for e in result.events]
    assert "abort" not in types and types.count("reminder") == 1
    results = [m for m in result.context if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["call_0", "call_1", "call_2"]  # all three executed
    assert all(r["isError"] is False for r in results)
    assert [len(r["content"]) for r in results] == [2, 1, 1]  # one reminder, folded into the first
    assert 'rule="no-unwrap"' in results[0]["content"][0]["text"] and text_of(results[1]) == "ran 1"
    assert [e["type"] for e in result.entries] == ["ttsr_injection"]
    assert [e.will_continue for e in ends] == [False]


@pytest.mark.parametrize("mode", MODES)
def test_an_ast_rule_checks_a_call_that_arrived_without_deltas(mode: str) -> None:
    ast_rule = rule("no-console", content="No console.", ast_condition=["console.log($X)"])
    args = {"path": "a.ts", "old_string": "", "new_string": "console.log(1)"}
    stream = stream_of(
        [ev("turn_start"), ev("message_start", role="assistant"),
         ev("toolcall_start", contentIndex=0, id="edit_1", name="edit"),
         ev("toolcall_end", contentIndex=0, arguments=args),
         ev("message_end", stopReason="toolUse"), ev("turn_end")],
        prose_turn("ok"),
    )
    result, _, _ = _replay(stream, [ast_rule], mode)
    abort = next(e for e in result.events if e.type == "abort")
    assert abort.step == 3 and abort.reason == "TTSR matched rule: no-console"
    placeholders = [text_of(m) for m in result.context if m["role"] == "toolResult"]
    assert placeholders == (["Tool execution was aborted: TTSR matched rule: no-console"] if mode == "keep" else [])
