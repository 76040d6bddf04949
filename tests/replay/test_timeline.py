"""The timeline: one lane per turn, deltas by kind, the replay's acts marked, filters."""

from __future__ import annotations

from workbench.replay import ReplayConfig, event, make_stream, run_session
from workbench.replay.timeline import build_timeline
from workbench.rules import Rule

RULE = Rule("no-unwrap", "/p/.omp/rules/no-unwrap.md", "Do not unwrap.", condition=["\\.unwrap\\("])


def _stream():
    return make_stream([
        event("turn_start"),
        event("message_start", role="assistant", model="m-small"),
        event("thinking_delta", contentIndex=0, delta="hmm"),
        event("text_delta", contentIndex=1, delta="let v = r.unw"),
        event("text_delta", contentIndex=1, delta="rap();"),
        event("message_end", stopReason="stop"),
        event("turn_end"),
        event("turn_start"),
        event("message_start", role="assistant", model="m-big"),
        event("toolcall_start", contentIndex=0, id="t1", name="bash"),
        event("toolcall_delta", contentIndex=0, delta='{"command":"ls"}'),
        event("toolcall_end", contentIndex=0, arguments={"command": "ls"}),
        event("message_end", stopReason="toolUse"),
        event("tool_result", toolCallId="t1", toolName="bash", content=[{"type": "text", "text": "no"}], isError=True),
        event("turn_end"),
    ])


def test_lanes_follow_turns_and_carry_the_replay_markers() -> None:
    stream = _stream()
    result = run_session(stream, [RULE], ReplayConfig(cwd="/p"))
    timeline = build_timeline(stream, result.events)
    assert [(lane.start, lane.end) for lane in timeline.lanes] == [(0, 6), (7, 14)]
    first, second = timeline.lanes
    assert [k for _, k, _ in first.deltas] == ["thinking", "text", "text"] and first.characters == 3 + 13 + 6
    kinds = [m.kind for m in first.markers]
    assert "ttsr_triggered" in kinds and "abort" in kinds
    assert all(first.start <= m.step <= first.end for m in first.markers)
    assert {m.step for m in first.markers} == {e.step for e in result.events if e.step <= first.end}
    assert second.tools == ("bash",) and second.error and not first.error
    assert timeline.models == ("m-big", "m-small") and timeline.tools == ("bash",)


def test_filters_pick_lanes() -> None:
    timeline = build_timeline(_stream())
    assert [lane.turn for lane in timeline.filter(tool="bash").lanes] == [1]
    assert [lane.turn for lane in timeline.filter(error=False).lanes] == [0]
    assert [lane.turn for lane in timeline.filter(model="m-small").lanes] == [0]
    assert timeline.filter(tool="edit").lanes == ()
    assert timeline.lane_at(9).turn == 1 and timeline.lane_at(99) is None
