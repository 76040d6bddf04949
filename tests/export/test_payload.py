"""The export's payload: what a page carries must rebuild every step and row exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.export import session_payload, stepper_payload, triggers
from workbench.replay import ReplayConfig, Stepper, read_stream
from workbench.rules import load_rules
from workbench.sessions import load_session
from workbench.tree import FILTER_MODES, TreeList

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
STREAM = SAMPLES / "streams" / "prose-unwrap.stream.jsonl"


@pytest.fixture(scope="module")
def stepper() -> Stepper:
    stream = read_stream(STREAM)
    rules = load_rules(cwd=str(SAMPLES / "project")).rules
    return Stepper(stream, rules, ReplayConfig(cwd=stream.cwd or str(SAMPLES / "project")))


def _unchain(chains: list[list[int]], strings: list[str], node: int) -> list[dict]:
    out = []
    while node >= 0:
        node, message = chains[node]
        out.append(json.loads(strings[message]))
    return out[::-1]


def test_every_buffer_rebuilds_from_the_string_table(stepper: Stepper) -> None:
    payload = stepper_payload(stepper)
    snaps = stepper.snapshots()
    assert len(payload["steps"]) == len(snaps) > 0
    checked = 0
    for snap, item in zip(snaps, payload["steps"], strict=True):
        assert [b[0] for b in item["buffers"]] == [b.key for b in snap.buffers]
        for view, (_key, text_id, length, spans) in zip(snap.buffers, item["buffers"], strict=True):
            assert payload["strings"][text_id][:length] == str(view.text)
            assert [tuple(s) for s in spans] == list(view.spans)
            checked += 1
    assert checked > 0


def test_conversations_at_key_steps_match_the_snapshots(stepper: Stepper) -> None:
    payload = stepper_payload(stepper, step=5)
    snaps = stepper.snapshots()
    keyed = [i for i, s in enumerate(payload["steps"]) if "conversation" in s]
    assert 5 in keyed and 0 in keyed
    for i in keyed:
        conv = payload["steps"][i]["conversation"]
        for name, value in (("now", snaps[i].conversation), ("keep", snaps[i].retry_keep),
                            ("discard", snaps[i].retry_discard)):
            expected = json.loads(json.dumps(value.messages(), sort_keys=True))
            assert _unchain(payload["chains"], payload["strings"], conv[name]) == expected
    for i, item in enumerate(payload["steps"]):
        if "conversation" not in item:
            assert item["conversationAt"] in keyed and item["conversationAt"] < i


def test_rules_rows_and_triggers_follow_the_snapshots(stepper: Stepper) -> None:
    payload = stepper_payload(stepper)
    snaps = stepper.snapshots()
    for snap, item in zip(snaps, payload["steps"], strict=True):
        assert [json.loads(payload["strings"][r]) for r in item["rules"]] == [
            json.loads(json.dumps(r.to_json(), sort_keys=True)) for r in snap.rules]
    expected = [s.index for s in snaps if s.is_trigger]
    assert expected, "the sample stream fires a rule"
    assert list(triggers(payload)) == expected


def test_opening_step_is_clamped(stepper: Stepper) -> None:
    assert stepper_payload(stepper, step=10_000)["open"] == len(stepper) - 1
    assert stepper_payload(stepper, step=-3)["open"] == 0


def test_session_rows_per_filter_mode_are_the_tree_lists() -> None:
    session = load_session(SAMPLES / "fix-auth.jsonl")
    payload = session_payload(session)
    assert payload["filters"] == list(FILTER_MODES)
    for mode in FILTER_MODES:
        rows = TreeList(session).set_filter(mode).rows()
        assert [r["line"] for r in payload["rows"][mode]] == [r.line for r in rows]
    entry = session.entries[-1]
    assert payload["entries"][entry.id]["raw"] == json.loads(json.dumps(dict(entry.raw)))
    assert payload["entries"][entry.id]["line"] == entry.line
