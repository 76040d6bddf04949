"""Clicking a dot of the Bokeh branch graph in the browser selects that entry."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"

# Page coordinates of one node, from the figure's own scales (data -> canvas pixels) plus the
# canvas position: robust to the toolbar, title and legend moving the frame around.
_NODE_POSITION = """(id) => {
  const views = [...Bokeh.index.query(v => v.model.type == "Figure"
                                         && String(v.model.title?.text ?? "").startsWith("Branch graph"))];
  if (!views.length) return null;
  const v = views[0];
  const nodes = v.model.renderers.find(r => r.data_source && r.data_source.data.id);
  const data = nodes.data_source.data;
  const i = [...data.id].indexOf(id);
  if (i < 0 || !(v.frame.bbox.width > 0)) return null;
  const box = v.canvas_view.el.getBoundingClientRect();
  return {x: box.left + v.frame.x_scale.compute(data.x[i]), y: box.top + v.frame.y_scale.compute(data.y[i])};
}"""


def test_clicking_a_graph_dot_opens_that_entry(page, app_url):
    page.goto(f"{app_url}?session=branched.jsonl&tab=tree&leaf=e09")
    entry = page.locator(".wb-entry")
    expect(entry).to_contain_text("id e09")
    page.wait_for_function(f"() => ({_NODE_POSITION})('e05') !== null", timeout=20_000)
    pos = page.evaluate(_NODE_POSITION, "e05")  # "try approach A", off the active path
    page.mouse.click(pos["x"], pos["y"])
    expect(entry).to_contain_text("id e05")
    expect(entry).to_contain_text("try approach A")
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("try approach A")
    expect(page).to_have_url(re.compile(r"leaf=e05"))


def test_a_dot_clicked_again_after_the_list_moved_on_opens_it_again(page, app_url):
    # the graph's own selection must follow the entry shown: a click on the dot it still thought
    # selected changed nothing, so the click did nothing (and Bokeh's toggle unselected the dot)
    page.goto(f"{app_url}?session=branched.jsonl&tab=tree&leaf=e09")
    entry = page.locator(".wb-entry")
    expect(entry).to_contain_text("id e09")
    page.wait_for_function(f"() => ({_NODE_POSITION})('e05') !== null", timeout=20_000)
    pos = page.evaluate(_NODE_POSITION, "e05")
    page.mouse.click(pos["x"], pos["y"])
    expect(entry).to_contain_text("id e05")
    page.locator(ROW, has_text="try approach A").first.click()  # the list takes the keys
    page.keyboard.press("ArrowDown")  # the list moves on: the graph's own selection must follow it
    expect(entry).not_to_contain_text("id e05")
    page.wait_for_timeout(400)  # past Bokeh's double-tap window: this is a plain second click
    page.mouse.click(pos["x"], pos["y"])
    expect(entry).to_contain_text("id e05")
    expect(page).to_have_url(re.compile(r"leaf=e05"))


# The title's box and the toolbar's box as the figure laid them out (page pixels), and whether the
# title's text, measured in its own font, fits its box.
_TITLE_AND_TOOLBAR = """() => {
  const views = [...Bokeh.index.query(v => v.model.type == "Figure"
                                         && String(v.model.title?.text ?? "").startsWith("Branch graph"))];
  if (!views.length) return null;
  const m = views[0].model;
  const box = model => {
    const view = [...Bokeh.index.query(x => x.model === model)][0];
    return view && view.el ? view.el.getBoundingClientRect().toJSON() : null;
  };
  const title = box(m.title), toolbar = box(m.toolbar_location ? views[0]._toolbar : null);
  if (!title || !toolbar || !(title.width > 0)) return null;
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = `${m.title.text_font_style} ${m.title.text_font_size} ${m.title.text_font}`;
  return {title, toolbar, text: m.title.text, fits: ctx.measureText(m.title.text).width <= title.width};
}"""


@pytest.fixture(scope="module")
def big_url(tmp_path_factory):
    from tests.ui.conftest import FIXTURES, serving

    folder = tmp_path_factory.mktemp("graph") / "served"
    folder.mkdir()
    shutil.copy(FIXTURES.parents[2] / "sample_sessions" / "big-refactor.jsonl", folder / "big-refactor.jsonl")
    with serving([folder]) as url:
        yield url


@pytest.mark.parametrize("width", [1280, 1400])
def test_the_graph_title_of_a_big_session_is_clear_of_its_toolbar(page, big_url, width, shot):
    # a big session's title is long ("Branch graph · 968 entries · 5 branch points"): on the toolbar's
    # line it ran into the tool icons (issue 27); the toolbar is under the plot
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{big_url}?session=big-refactor.jsonl&tab=tree")
    expect(page.locator(ROW).first).to_be_visible()
    page.wait_for_function(f"() => ({_TITLE_AND_TOOLBAR})() !== null")
    got = page.evaluate(_TITLE_AND_TOOLBAR)
    assert "968 entries" in got["text"] and got["fits"], got
    title, toolbar = got["title"], got["toolbar"]
    assert title["bottom"] <= toolbar["top"] or toolbar["bottom"] <= title["top"], got
    shot(page, f"graph_title_{width}")
