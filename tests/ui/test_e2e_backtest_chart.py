"""Browser test of the Backtest tab's per-rule chart: clicking a bar lists that rule's hits."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

CHART_TITLE = "Turns that would trigger, per rule"

# Where a bar is on the screen, from Bokeh's own view of the figure: the frame's scales map data to
# canvas pixels (the frame is inset by the axes, so the canvas box alone cannot say where a factor is)
# and the canvas element's bounding box maps those to the page. Returns null until the figure is
# drawn, so the caller can wait for it instead of clicking blind.
BAR_POSITION = """([title, factor, value]) => {
  const view = window.Bokeh && Bokeh.index.query_one(
      (v) => v.model.type === "Figure" && v.model.title?.text?.startsWith(title));
  if (view == null || !view.has_finished()) return null;
  const frame = view.frame;
  const x = frame.x_scale.compute(value);
  const y = frame.y_scale.compute(view.model.y_range.synthetic(factor));
  const box = view.canvas_view.el.getBoundingClientRect();
  if (box.width === 0 || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  return {x: box.left + x, y: box.top + y};
}"""

# The rule whose bar the chart has selected in the browser (null: none, or not drawn yet).
SELECTED_BAR = """(title) => {
  const view = window.Bokeh && Bokeh.index.query_one(
      (v) => v.model.type === "Figure" && v.model.title?.text?.startsWith(title));
  if (view == null) return null;
  const source = view.model.renderers[0].data_source;
  const picked = source.selected.indices;
  return picked.length ? source.data.rule[picked[0]] : null;
}"""


def _session(lines: list[str], id_: str, text: str) -> str:
    extra = {"type": "message", "id": id_, "parentId": "e09", "timestamp": "2026-01-05T10:10:00.000Z",
             "message": {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": text}]}}
    return "\n".join([*lines, json.dumps(extra)]) + "\n"


@pytest.fixture(scope="module")
def served_dir(served_dir):
    # two rules fire, each in its own session, so the bars' hits differ: no-any (listed first, shown
    # after the run) and no-unwrap (shown only once its bar is clicked)
    lines = (served_dir / "branched.jsonl").read_text().splitlines()
    (served_dir / "unwrap.jsonl").write_text(_session(lines, "u01", "let v = res.unwrap();"))
    (served_dir / "anytype.jsonl").write_text(_session(lines, "a01", "function f(x: any) { return x; }"))
    return served_dir


def test_clicking_a_bar_lists_that_rules_hits(page, app_url, shot):
    page.goto(f"{app_url}?tab=backtest&rules=project")
    page.get_by_role("button", name="Run backtest over the served sessions").click()
    expect(page.locator(".wb-backtest-status")).to_contain_text("2 hit(s) in", timeout=60_000)
    hits = page.locator(".wb-backtest-hits .tabulator-row")
    # after the run the first rule that fired is shown, not the one about to be clicked
    expect(page.get_by_role("heading", name="Hits of no-any")).to_be_visible()
    expect(hits.filter(has_text="anytype.jsonl")).to_have_count(1)
    expect(hits.filter(has_text="unwrap.jsonl")).to_have_count(0)

    # no-unwrap fired in one turn: click the middle of its bar (x = 0.5 turns, y = its factor)
    page.wait_for_function(BAR_POSITION, arg=[CHART_TITLE, "no-unwrap", 0.5])
    at = page.evaluate(BAR_POSITION, [CHART_TITLE, "no-unwrap", 0.5])
    shot(page, "backtest-chart")
    page.mouse.click(at["x"], at["y"])

    expect(page.get_by_role("heading", name="Hits of no-unwrap · 1")).to_be_visible()
    expect(hits.filter(has_text="unwrap.jsonl")).to_have_count(1)
    expect(hits.filter(has_text="anytype.jsonl")).to_have_count(0)

    # the table shows another rule; the same bar, clicked again, must bring its hits back (a tap on a
    # bar that stayed selected changes no selection, so the chart must follow the shown rule)
    page.locator(".wb-backtest-rules .tabulator-row", has_text="no-any").first.click()
    expect(page.get_by_role("heading", name="Hits of no-any · 1")).to_be_visible()
    # the chart follows the shown rule: its selection moves to no-any (so the tap below changes it)
    page.wait_for_function(f"() => ({SELECTED_BAR})({CHART_TITLE!r}) === 'no-any'")
    page.mouse.click(at["x"], at["y"])
    expect(page.get_by_role("heading", name="Hits of no-unwrap · 1")).to_be_visible()
    expect(hits.filter(has_text="unwrap.jsonl")).to_have_count(1)


def test_a_bar_picked_right_after_another_is_not_lost(page, app_url):
    # Bokeh reads a tap within 300 ms of the one before as a double tap, which no tap tool answers;
    # the chart answers it itself, so the second of two quick picks lists its rule's hits
    page.goto(f"{app_url}?rules=project")
    page.locator(".bk-tab", has_text="Backtest").first.click()
    page.get_by_role("button", name="Run backtest over the served sessions").click()
    expect(page.get_by_role("heading", name="Hits of no-any")).to_be_visible(timeout=60_000)
    page.wait_for_function(BAR_POSITION, arg=[CHART_TITLE, "no-unwrap", 0.5])
    unwrap = page.evaluate(BAR_POSITION, [CHART_TITLE, "no-unwrap", 0.5])
    any_ = page.evaluate(BAR_POSITION, [CHART_TITLE, "no-any", 0.5])
    page.mouse.click(unwrap["x"], unwrap["y"])
    page.mouse.click(any_["x"], any_["y"])
    # the browser selected no-unwrap on the first tap; only the server, answering the second, moves the
    # selection to no-any (the heading already read no-any before the taps, so it cannot tell)
    page.wait_for_function(f"() => ({SELECTED_BAR})({CHART_TITLE!r}) === 'no-any'")
    expect(page.get_by_role("heading", name="Hits of no-any · 1")).to_be_visible()
    hits = page.locator(".wb-backtest-hits .tabulator-row")
    expect(hits.filter(has_text="anytype.jsonl")).to_have_count(1)
