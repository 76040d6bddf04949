"""The stepper: one immutable snapshot per event, time travel, shared structure, keep vs discard."""

from __future__ import annotations

import dataclasses

import pytest

from tests.replay.conftest import prose_turn, rule, stream_of, tool_turn
from workbench.replay import ReplayConfig, Stepper
from workbench.replay.conversation import text_of

UNWRAP = rule("no-unwrap", r"\.unwrap\(")


def _stepper(stream, rules, **settings):
    return Stepper(stream, rules, ReplayConfig.of(settings, cwd="/proj", time_bound=None))


def test_trigger_step_shows_match_span_abort_and_both_retry_views():
    stream = stream_of(prose_turn("let x = res", "ult.unw", "rap(", ");"), prose_turn("x?"))
    st = _stepper(stream, [UNWRAP])
    i = st.next_trigger(0)
    snap = st.seek(i)
    assert snap.event.delta == "rap(" and snap.matched == ("no-unwrap",)
    assert [e.type for e in snap.events] == ["ttsr_triggered", "abort", "retry", "injection"]
    buf = snap.buffer("text")
    assert str(buf.text) == "let x = result.unwrap(" and buf.spans == (("no-unwrap", 14, 22),)
    assert snap.rule("no-unwrap").why is None
    keep, discard = snap.retry_keep.messages(), snap.retry_discard.messages()
    assert [m["role"] for m in keep] == ["assistant", "custom"] and text_of(keep[0]) == "let x = result.unwrap("
    assert [m["role"] for m in discard] == ["custom"]
    assert ("injection", keep[1]["content"]) in snap.rendered
    # The rest of the aborted turn is skipped; the retry runs on the next recorded turn.
    assert [st.seek(j).status for j in range(i + 1, i + 4)] == ["skipped", "skipped", "skipped"]
    assert st.seek(i + 4).event.type == "turn_start" and st.seek(i + 4).status == "live"


def test_why_names_the_first_failed_gate_at_each_step():
    scoped = rule("ts-only", r"any", globs=["*.ts"])
    st = _stepper(stream_of(prose_turn("nothing here", " any")), [UNWRAP, scoped])
    first = st.seek(2)
    assert first.rule("no-unwrap").why == "no condition matched"
    assert first.rule("ts-only").why.startswith("path gate")
    assert st.seek(0).rule("no-unwrap").why == "not checked at this event"


def test_stepping_back_and_forth_gives_identical_snapshots():
    stream = stream_of(prose_turn("a", ".unwrap(", "b"), prose_turn("c"), prose_turn("d.unwrap("), prose_turn("e"))
    st = _stepper(stream, [UNWRAP], repeatMode="after-gap", repeatGap=1)
    forward = [st.seek(i) for i in range(len(st))]
    back = [st.seek(i) for i in reversed(range(len(st)))]
    assert forward == list(reversed(back))
    # Time travel without the cache: a fresh stepper asked for the last step first, then backwards,
    # gives the snapshots the forward walk gave.
    backwards_first = _stepper(stream, [UNWRAP], repeatMode="after-gap", repeatGap=1)
    assert len(forward) > 1
    # (Snapshots hold conversations, compared by identity: compare what they show instead.)
    def shown(snaps):
        return [(s.to_json(), s.conversation.messages(), s.retry_keep.messages(), s.retry_discard.messages())
                for s in snaps]

    assert shown(backwards_first.seek(i) for i in reversed(range(len(forward)))) == shown(reversed(forward))
    fresh = _stepper(stream, [UNWRAP], repeatMode="after-gap", repeatGap=1)
    assert [s.to_json() for s in fresh.snapshots()] == [s.to_json() for s in forward]
    with pytest.raises(dataclasses.FrozenInstanceError):
        forward[0].index = 3  # type: ignore[misc]


def test_snapshots_share_unchanged_structure():
    stream = stream_of(prose_turn(*["word "] * 50))
    st = _stepper(stream, [UNWRAP])
    a, b = st.seek(10), st.seek(11)
    assert a.rules[0] is b.rules[0]  # nothing changed for the rule between two deltas
    assert a.buffer("text").text._rope is b.buffer("text").text._rope  # one rope per turn buffer
    assert str(a.buffer("text").text) == "word " * 9 and str(b.buffer("text").text) == "word " * 10


def test_counters_predict_the_after_gap_refire():
    turns = [prose_turn(f"v{i}.unwrap(") for i in range(6)]
    st = _stepper(stream_of(*turns), [UNWRAP], repeatMode="after-gap", repeatGap=3)
    starts = [i for i, e in enumerate(st.stream.events) if e.type == "turn_start"]
    remaining = [st.seek(s).rule("no-unwrap").remaining for s in starts]
    fired = [any(st.seek(j).matched for j in range(s, (starts + [len(st)])[k + 1])) for k, s in enumerate(starts)]
    assert remaining[0] is None and fired[0]
    assert [st.seek(s).rule("no-unwrap").status for s in starts[:2]] == ["armed", "waiting"]
    for k in range(1, len(starts)):
        assert fired[k] == (remaining[k] == 0), (k, remaining, fired)
    assert fired == [True, False, False, False, True, False]


def test_once_rule_is_reported_spent():
    st = _stepper(stream_of(prose_turn("a.unwrap("), prose_turn("b.unwrap(")), [UNWRAP])
    last_delta = max(i for i, e in enumerate(st.stream.events) if e.type == "text_delta")
    state = st.seek(last_delta).rule("no-unwrap")
    assert state.remaining == "spent" and state.why.startswith("repeat") and not state.matched
    assert state.status == "spent" and st.seek(2).rule("no-unwrap").status == "triggered"
    assert st.next_trigger(last_delta) is None and st.prev_trigger(last_delta) == 2


def test_claims_and_tool_buffers_are_visible():
    never = rule("no-unwrap", r"\.unwrap\(", interrupt_mode="never")
    stream = stream_of(tool_turn("c1", "bash", ['{"command": "x', '.unwrap()"}'], {"command": "x.unwrap()"}, "ok"))
    st = _stepper(stream, [never])
    snap = st.seek(4)
    assert snap.claims == (("c1", ("no-unwrap",)),)
    assert snap.buffer("toolcall:c1") is not None
    kind, text = snap.rendered[0]
    assert kind == "reminder-preview" and text.startswith("<system-reminder")
    assert [e.type for e in st.seek(7).events] == ["reminder"]


def test_unregistered_rule_says_why():
    bad = rule("bad", "(unclosed")
    snap = _stepper(stream_of(prose_turn("x")), [bad, UNWRAP]).seek(2)
    state = snap.rule("bad")
    assert not state.registered and state.why.startswith("not registered") and state.status == "not registered"


def test_seek_out_of_range():
    st = _stepper(stream_of(prose_turn("x")), [UNWRAP])
    assert st.seek(-1).index == len(st) - 1
    with pytest.raises(IndexError):
        st.seek(len(st))
