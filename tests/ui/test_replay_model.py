"""``workbench.ui.replay_model``: the page's replay, owned by the state and read by every view that needs it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.errors import UsageError
from workbench.sessions import OnDisk, load_session, loader
from workbench.ui.replay_model import load_source, open_session
from workbench.ui.roots import ServedRoots
from workbench.ui.state import AppState

FIXTURES = Path(__file__).with_name("fixtures")
SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"




def test_a_stream_file_is_read_and_has_no_session(served):
    state = AppState.for_file(served / "project" / "unwrap.stream.jsonl", served / "project")
    source = load_source(state)
    assert source.session is None and source.label == "unwrap.stream.jsonl" and len(source.stream.events) > 0


def test_the_open_session_is_re_chunked_from_the_trees_copy(served):
    path = served / "branched.jsonl"
    state = AppState.for_file(path, chunking="fixed")
    stat = path.stat()
    held = load_session(path)
    state.remember_session(path, (stat.st_size, stat.st_mtime_ns), held)
    source = load_source(state)
    assert source.session is held  # no second parse of the file
    assert source.label == "branched.jsonl re-chunked by fixed" and len(source.stream.events) > 0


def test_a_big_session_opened_straight_in_the_stepper_is_read_as_the_tree_reads_it(served, monkeypatch):
    # (every file is big here, and every tool result long enough to be left in the file)
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    monkeypatch.setattr(loader, "results_left_from", lambda size: 0)
    path = Path(shutil.copy(SAMPLES / "big-refactor.jsonl", served))
    state = AppState.for_file(path)
    session = open_session(state)
    assert any(type(e.record) is OnDisk for e in session.entries), "no tool result was left in the file"
    lean = load_source(state, session=session).stream
    full = load_source(state, session=load_session(path)).stream
    assert len(lean.events) == len(full.events) > 0
    assert list(lean.events) == list(full.events)


def test_nothing_chosen_says_what_to_choose(served):
    state = AppState(ServedRoots.of([served]))
    with pytest.raises(UsageError, match="open a session"):
        load_source(state)


def test_the_replay_is_built_for_the_rules_tab_without_any_view(served):
    state = AppState.for_file(served / "project" / "unwrap.stream.jsonl", served / "project", tab="sessions")
    model = state.replay_model
    assert state.replay_model is model  # one per state
    model.ensure()
    assert state.replay is None  # no tab that shows it: a replay is not free
    state.tab = "rules"
    assert state.replay is not None and state.replay is model.stepper and model.built == 1
    assert model.label == "unwrap.stream.jsonl" and "agent: <b>main</b>" in model.config_note


def test_a_judge_choice_and_a_rule_edit_rebuild_at_the_same_step(served):
    state = AppState.for_file(served / "project" / "unwrap.stream.jsonl", served / "project", tab="stepper")
    model = state.replay_model
    model.ensure()
    first = state.replay
    assert first.session.judge is None
    model.go(4)
    model.judge = "yes"
    assert state.replay is not first and state.replay.session.judge is not None and state.step == 4
    state.rules_revision += 1
    assert model.built == 3 and state.step == 4


def test_next_trigger_moves_the_states_step(served):
    state = AppState.for_file(served / "project" / "unwrap.stream.jsonl", served / "project", tab="stepper")
    model = state.replay_model
    model.ensure()
    model.next_trigger()
    assert state.step > 0 and state.replay.seek(state.step).is_trigger
    assert not any(state.replay.seek(i).is_trigger for i in range(state.step))


def test_closing_the_page_stops_its_replay_and_its_pre_check(served, monkeypatch):
    state = AppState.for_file(served / "project" / "unwrap.stream.jsonl", served / "project", tab="stepper")
    model = state.replay_model
    model.ensure()
    stepper = model.stepper
    assert stepper is not None and stepper.precheck is not None
    stopped: list[bool] = []
    monkeypatch.setattr(stepper.precheck, "cancel", lambda: stopped.append(True))
    generation = model._generation
    state.close()
    assert stopped == [True]  # the time-bound check (a thread and a child process) is told to stop
    assert model._generation > generation  # a result still on its way is not installed for nobody


def test_closing_a_page_that_never_replayed_does_nothing(served):
    state = AppState(ServedRoots.of([served]))
    state.close()
    assert state._replay_model is None  # closing made no replay
