"""The Usage tab without a browser: its table and totals are ``workbench usage --by … --json``'s."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.sessions import load_session, session_files
from workbench.sessions.synthetic import write_corpus
from workbench.ui import notify
from workbench.ui.app import Server, build_view
from workbench.ui.usage_view import BY, METRICS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


def _cli(capsys: pytest.CaptureFixture[str], folder: Path, *flags: str) -> dict:
    assert main(["usage", str(folder), *flags, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _view(folder: Path):
    server = Server([folder], uploads=False)
    return build_view("usage", server, server.new_state(), {})


def _records(frame) -> list[dict]:
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in frame.to_dict("records")]


@pytest.fixture(scope="module")
def samples_view():
    return _view(SAMPLES)


@pytest.mark.parametrize("by", list(BY.values()))
def test_the_table_and_totals_are_the_clis_on_the_samples(samples_view, by: str, capsys) -> None:
    view = samples_view
    view.by.value = by
    cli = _cli(capsys, SAMPLES, "--by", by)
    assert cli["rows"] and _records(view.table.value) == cli["rows"]
    assert {k: view.totals[k] for k in cli["totals"]} == cli["totals"]
    assert view.judge == cli["judgeByRule"]
    # the line above the chart says the same numbers
    assert f"{view.totals['messages']:,}</b> assistant" in view.summary.object
    assert f"{int(cli['totals']['totalTokens']):,}</b> tokens" in view.summary.object


def test_the_session_count_is_the_files_with_model_calls(samples_view) -> None:
    with_usage = 0
    for path in session_files([SAMPLES]):
        try:
            session = load_session(path, strict=False)
        except Exception:
            continue
        with_usage += any(e.type == "model_usage" or (e.message or {}).get("role") == "assistant"
                          for e in session.entries)
    samples_view.by.value = "model"
    assert samples_view.totals["sessions"] == with_usage > 0


def test_judge_calls_per_rule_and_the_day_range(tmp_path: Path, capsys) -> None:
    write_corpus(tmp_path, 36)
    view = _view(tmp_path)
    cli = _cli(capsys, tmp_path, "--by", "model")
    assert view.judge == cli["judgeByRule"] and {j["rule"] for j in view.judge} >= {"no-any", "no-unwrap"}
    assert view.judge_table.visible and "counted apart" in view.judge_title.object
    view.by.value = "day"
    view.set_days(date(2026, 10, 3), date(2026, 10, 4))
    ranged = _cli(capsys, tmp_path, "--by", "day", "--since", "2026-10-03", "--until", "2026-10-04")
    assert [r["group"] for r in _records(view.table.value)] == ["2026-10-03", "2026-10-04"]
    assert _records(view.table.value) == ranged["rows"] and view.judge == ranged["judgeByRule"]


def test_the_chart_orders_bars_and_follows_the_metric(tmp_path: Path) -> None:
    write_corpus(tmp_path, 20)
    view = _view(tmp_path)
    view.by.value = "cwd"
    groups, values = view.bars()
    assert values == sorted(values, reverse=True) and len(groups) == 5  # largest project on top
    view.metric.value = METRICS["Tokens"]
    groups, tokens = view.bars()
    table = {r["group"]: r["totalTokens"] for r in _records(view.table.value)}
    assert dict(zip(groups, tokens)) == table
    fig = view.chart.object
    assert list(fig.y_range.factors) == list(reversed(groups))  # Bokeh draws the first factor at the bottom
    view.by.value = "day"
    days, _ = view.bars()
    assert days == sorted(days)  # time order, not size


def test_a_reversed_range_is_an_error_notification(tmp_path: Path) -> None:
    write_corpus(tmp_path, 3)
    view = _view(tmp_path)
    view.set_days(date(2026, 10, 5), date(2026, 10, 1))
    level, message = notify.history()[-1]
    assert level == "error" and "after until" in message
