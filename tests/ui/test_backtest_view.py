"""The Backtest tab's chart driven from Python: which bar a point hits, and picks that follow the shown rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bokeh.events import DoubleTap

from workbench.ui.app import Server
from workbench.ui.backtest_view import BacktestView, bar_at

FIXTURES = Path(__file__).with_name("fixtures")


def test_bar_at_maps_a_point_to_the_bar_under_it():
    turns = [3, 1]  # bar 0 spans y 0.15..0.85 and x 0..3, bar 1 y 1.15..1.85 and x 0..1
    assert bar_at(turns, 2.5, 0.5) == 0
    assert bar_at(turns, 0.5, 1.2) == 1
    assert bar_at(turns, 1.5, 1.5) is None  # right of the shorter bar
    assert bar_at(turns, 0.5, 1.0) is None  # between two bars
    assert bar_at(turns, 0.5, 2.5) is None and bar_at(turns, 0.5, -0.5) is None  # above and below the axis
    assert bar_at(turns, -0.1, 0.5) is None


@pytest.fixture
def view(tmp_path) -> BacktestView:
    # two rules fire, each in a session of its own: no-any (shown after the run) and no-unwrap
    served = tmp_path / "served"
    shutil.copytree(FIXTURES, served)
    lines = (served / "branched.jsonl").read_text().splitlines()
    for name, text in (("unwrap", "let v = res.unwrap();"), ("anytype", "function f(x: any) { return x; }")):
        extra = {"type": "message", "id": f"{name}1", "parentId": "e09", "timestamp": "2026-01-05T10:10:00.000Z",
                 "message": {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": text}]}}
        (served / f"{name}.jsonl").write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    server = Server([served], uploads=False)
    state = server.new_state()
    state.rules_dir = "project"
    view = BacktestView(state=state, catalog=server.catalog)
    view.run()
    return view


def _shown(view: BacktestView) -> tuple[str | None, list[str]]:
    bars = view._bars
    assert bars is not None
    picked = [bars.data["rule"][i] for i in bars.selected.indices]
    return (picked[0] if picked else None), list(view.hits.value["session"])


def test_a_double_tap_on_a_bar_lists_that_rules_hits(view):
    assert _shown(view) == ("no-any", ["anytype.jsonl"])
    figure = view.chart.object
    rules = list(view._bars.data["rule"])
    at = rules.index("no-unwrap")
    figure._trigger_event(DoubleTap(figure, x=0.5, y=at + 0.5))
    assert _shown(view) == ("no-unwrap", ["unwrap.jsonl"])
    figure._trigger_event(DoubleTap(figure, x=0.5, y=at + 1.0))  # between the bars: nothing changes
    assert _shown(view) == ("no-unwrap", ["unwrap.jsonl"])


def test_a_tap_beside_the_bars_keeps_the_shown_rules_bar_selected(view):
    bars = view._bars
    bars.selected.indices = [list(bars.data["rule"]).index("no-unwrap")]  # what a tap on its bar sends
    assert _shown(view) == ("no-unwrap", ["unwrap.jsonl"])
    bars.selected.indices = []  # a tap off every bar clears the browser's selection
    assert _shown(view) == ("no-unwrap", ["unwrap.jsonl"])


def _formatters(df):
    import panel as pn
    from bokeh.document import Document

    model = pn.widgets.Tabulator(df, show_index=False).get_root(Document())
    return [(c.field, type(c.formatter).__name__) for c in model.columns]


def test_the_tables_columns_do_not_change_with_their_first_rows():
    # a Tabulator whose columns change is drawn again in the browser, and rows sent meanwhile were lost
    import pandas as pd

    from workbench.ui import backtest_view as bv

    summary = pd.DataFrame([{"rule": "r", "sessions": 1, "turns": 2, "interrupting": 0, "disabled": ""}],
                           columns=bv.SUMMARY_COLUMNS)
    hits = pd.DataFrame([{"session": "s.jsonl", "turn": 1, "step": 4, "source": "text", "interrupts": True,
                          "snippet": "x"}], columns=bv.HIT_COLUMNS)
    assert _formatters(bv._empty(bv.SUMMARY_TYPES)) == _formatters(summary)
    assert _formatters(bv._empty(bv.HIT_TYPES)) == _formatters(hits)
