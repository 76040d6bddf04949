"""Opening a session (a Sessions row, a search hit, the header's list) logs no model errors and rings
the selection in the branch graph at once; a page closed mid-update leaves no wall of log lines."""

from __future__ import annotations

import logging
import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"
SAMPLES = FIXTURES.parents[2] / "sample_sessions"
BAD_CONSOLE = re.compile(r"isn't known|reference .* already known|Failed sending", re.I)

# The ring's point and the node of the entry shown, from the figure's own sources: equal when the
# graph rings the selection (null until the figure is drawn).
_RING = """(id) => {
  const views = [...Bokeh.index.query(v => v.model.type == "Figure"
                                         && String(v.model.title?.text ?? "").startsWith("Branch graph"))];
  if (!views.length) return null;
  const rs = views[0].model.renderers;
  const ring = rs.find(r => r.name == "wb-selected-ring");
  const nodes = rs.find(r => r.data_source && r.data_source.data.id);
  if (!ring || !nodes) return null;
  const i = [...nodes.data_source.data.id].indexOf(id);
  const d = ring.data_source.data;
  return {ring: d.x.length, at: d.x.length == 1 && i >= 0 && d.x[0] == nodes.data_source.data.x[i]
                                 && d.y[0] == nodes.data_source.data.y[i]};
}"""


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("opening") / "served"
    shutil.copytree(FIXTURES, folder)
    for name in ("fix-auth.jsonl", "ttsr-fired.jsonl"):
        shutil.copy(SAMPLES / name, folder / name)
    with serving([folder]) as served:
        yield served


def _ring_on_selection(page) -> None:
    entry = page.locator(".wb-entry")
    expect(entry).to_contain_text("id ")
    shown = re.search(r"id (\S+)", entry.inner_text()).group(1)
    page.wait_for_function(f"() => {{ const r = ({_RING})({shown!r}); return r !== null && r.at; }}")


def test_opening_sessions_three_ways_logs_no_model_errors_and_rings_the_selection(clean_page, url, recwarn, caplog):
    # clean_page fails the test on any console error and any BokehUserWarning ("reference already known")
    page = clean_page
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    caplog.set_level(logging.WARNING)
    page.goto(url)
    table = page.locator(".wb-sessions-table")
    # 1. a Sessions row
    table.locator(".tabulator-row", has_text="fix-auth").first.click()
    expect(page).to_have_url(re.compile(r"session=fix-auth\.jsonl"))
    expect(page.locator(ROW).first).to_be_visible()
    _ring_on_selection(page)
    # 2. a search hit
    page.locator(".bk-tab", has_text="Sessions").first.click()
    box = page.get_by_placeholder("Search all sessions")
    box.fill("return a Result")
    box.press("Enter")
    page.locator(".tabulator-row", has_text="e09").first.click()
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("Approach B: return a Result instead.")
    _ring_on_selection(page)
    # 3. the header's session picker
    picker = page.locator(".wb-session-picker input")
    picker.fill("")
    picker.press_sequentially("ttsr-fired")
    page.locator(".wb-session-picker .bk-menu > div", has_text="ttsr-fired.jsonl").first.click()
    expect(page).to_have_url(re.compile(r"session=ttsr-fired\.jsonl"))
    expect(page.locator(".wb-entry")).not_to_contain_text("id e09")
    _ring_on_selection(page)
    # and back by a row, with the list in the Tree tab already drawn once
    page.locator(".bk-tab", has_text="Sessions").first.click()
    table.locator(".tabulator-row", has_text="branched").first.click()
    expect(page.locator(ROW, has_text="try approach B")).to_be_visible()
    _ring_on_selection(page)
    # the first events of the models that came with the newly opened session (a row, a tab whose view
    # joins the page late) refer to them by id
    page.locator(ROW, has_text="try approach B").click()
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("try approach B")
    page.locator(".bk-tab", has_text="Problems").first.click()
    expect(page.locator(".wb-problems")).to_be_visible()
    assert not [c for c in console if BAD_CONSOLE.search(c)], console
    known = [str(w.message) for w in recwarn if "reference already known" in str(w.message)]
    assert not known
    assert not [r.getMessage() for r in caplog.records if "Failed sending" in r.getMessage()]


def test_a_page_closed_while_it_loads_leaves_at_most_one_log_line(browser, url, caplog):
    caplog.set_level(logging.INFO)
    for _ in range(3):
        page = browser.new_page()
        page.goto(f"{url}?session=ttsr-fired.jsonl&tab=tree")
        expect(page.locator(ROW).first).to_be_visible()
        page.locator(".bk-tab", has_text="Stepper").first.click()  # the replay starts: updates flow
        page.close()
    # the last page's session is closed by the server (the disconnect arrives on its loop): the
    # check waits for that, not for a fixed time
    page = browser.new_page()
    page.goto(f"{url}?session=branched.jsonl&tab=tree")
    expect(page.locator(ROW).first).to_be_visible()
    page.close()
    assert not [r for r in caplog.records if r.getMessage() == "Failed sending message as connection was closed"]
    assert len([r for r in caplog.records if "browser page closed while the server" in r.getMessage()]) <= 1
