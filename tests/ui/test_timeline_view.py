"""The Timeline tab from Python: lanes of the Stepper's stream, acts marked, filters, totals, clicks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bokeh.models import Span

from workbench.ui.app import Server, build_views
from workbench.ui.timeline_view import TimelineView, lane_label, timeline_figure

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def views(tmp_path):
    target = tmp_path / "served"
    shutil.copytree(FIXTURES, target)
    server = Server([target], uploads=False)
    state = server.new_state()
    return build_views(server, state), state


def test_a_stream_with_a_trigger_is_drawn_with_its_marker(views):
    views, state = views
    state.param.update(session="branched.jsonl", stream="project/unwrap.stream.jsonl", rules_dir="project",
                       tab="timeline")
    view = views["timeline"]
    tl = view.timeline
    assert tl is not None and tl.lanes
    kinds = {m.kind for lane in tl.lanes for m in lane.markers}
    assert "ttsr_triggered" in kinds
    trigger = next(m for lane in tl.lanes for m in lane.markers if m.kind == "ttsr_triggered")
    assert "no-unwrap" in trigger.rules
    # the figure holds one glyph per act and a lane bar per turn
    fig = view.plot.object
    scatter = [r for r in fig.renderers if "x" in r.data_source.data and "label" in r.data_source.data]
    assert any(trigger.step in r.data_source.data["x"] for r in scatter)
    assert "unwrap.stream.jsonl" in view.status.object
    # totals come from the open session's usage records
    assert "assistant message(s)" in view.totals.object and "$0." in view.totals.object


def test_click_opens_the_stepper_at_that_step_and_the_cursor_follows(views):
    views, state = views
    state.stream = "project/unwrap.stream.jsonl"
    state.rules_dir = "project"
    state.tab = "timeline"
    view = views["timeline"]
    view.open_step(3.4)
    assert (state.step, state.tab) == (3, "stepper")
    cursor = view.figure.select_one({"type": Span})
    assert cursor.location == 3
    view.open_step(10_000)
    assert state.step == view.timeline.steps - 1


def test_a_tap_and_a_quick_second_tap_on_the_figure_both_open_their_step(views):
    from bokeh.events import DoubleTap, Tap

    views, state = views
    state.param.update(stream="project/unwrap.stream.jsonl", rules_dir="project", tab="timeline")
    view = views["timeline"]
    view.figure._trigger_event(Tap(view.figure, x=2.2, y=0.0))
    assert (state.step, state.tab) == (2, "stepper")
    state.tab = "timeline"
    # a click within 300 ms of the one before reaches the server as a double tap
    view.figure._trigger_event(DoubleTap(view.figure, x=4.0, y=0.0))
    assert (state.step, state.tab) == (4, "stepper")


def test_filters_keep_the_matching_lanes(views):
    views, state = views
    state.session = "branched.jsonl"
    state.tab = "timeline"
    view = views["timeline"]
    all_lanes = len(view.timeline.lanes)
    assert all_lanes >= 2
    tools = view.timeline.tools
    assert "read" in tools
    view.tool.value = "read"
    assert 0 < len(view.shown().lanes) < all_lanes
    assert all("read" in lane.tools for lane in view.shown().lanes)
    assert f"of {all_lanes} turn(s) shown" in view.status.object
    view.tool.value = "(any)"
    view.error.value = "with errors"
    assert all(lane.error for lane in view.shown().lanes)


def test_nothing_is_replayed_until_the_tab_is_shown(views):
    views, state = views
    view = views["timeline"]
    assert view.timeline is None
    state.tab = "timeline"
    assert view.timeline is not None


def test_figure_of_an_empty_timeline():
    from workbench.replay.timeline import Timeline

    fig = timeline_figure(Timeline((), 0))
    assert list(fig.y_range.factors) == ["(no turns)"]


def test_a_filter_refills_the_same_figure(views):
    views, state = views
    state.session = "branched.jsonl"
    state.tab = "timeline"
    view = views["timeline"]
    fig = view.figure
    view.tool.value = "read"
    assert view.figure is fig  # the zoom and the canvas stay
    shown = [lane_label(lane.turn) for lane in view.shown().lanes]
    assert list(fig.select_one({"name": "lanes"}).data_source.data["y"]) == shown
    assert list(fig.y_range.factors) == shown[::-1]
    view.tool.value = "(any)"
    assert len(fig.select_one({"name": "lanes"}).data_source.data["y"]) == len(view.timeline.lanes)


def test_from_paths_draws_a_stream_file_with_its_rules(served):
    view = TimelineView.from_paths(served / "project" / "unwrap.stream.jsonl", served / "project")
    assert view.state.tab == "timeline"
    assert view.state.roots.contains(served / "project")
    kinds = {m.kind for lane in view.timeline.lanes for m in lane.markers}
    assert "ttsr_triggered" in kinds
    assert "unwrap.stream.jsonl" in view.status.object


def test_from_paths_re_chunks_a_session_file_with_the_settings_given(served):
    view = TimelineView.from_paths(served / "branched.jsonl", chunking="fixed")
    assert view.state.chunking == "fixed"
    assert view.timeline is not None and view.timeline.lanes
    assert "branched.jsonl re-chunked by fixed" in view.status.object
    assert "assistant message(s)" in view.totals.object
