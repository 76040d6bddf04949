"""The views in a notebook's width (~970 px, the file browser open): nothing covered, nothing pushed
off to the side (the Tree's filters, the Stepper's "why now" and Discard, the Rules editor's buttons)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

WIDTH = 970
STREAM = "project/unwrap.stream.jsonl"


@pytest.fixture
def narrow(page):
    page.set_viewport_size({"width": WIDTH, "height": 900})
    return page


def _inside(page, locator) -> None:
    """``locator`` is drawn, and wholly within the window's width (not scrolled off to the right)."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH + 1, box


def test_tree_filters_are_not_covered_by_the_graph(narrow, app_url, shot):
    page = narrow
    page.goto(f"{app_url}?session=branched.jsonl&tab=tree")
    expect(page.locator(".wb-tree-row").first).to_be_visible()
    expect(page.locator(".bk-Canvas, canvas").first).to_be_visible()
    for name in ("default", "no-tools", "user", "labeled", "all"):
        button = page.get_by_role("button", name=name, exact=True)
        _inside(page, button)
        button.click(trial=True)  # fails when another element (the graph) would take the click
    page.get_by_role("button", name="all", exact=True).click()
    expect(page.locator(".wb-tree-row")).to_have_count(9)
    shot(page, f"tree_{WIDTH}")


def test_stepper_shows_why_now_and_discard_without_sideways_scrolling(narrow, app_url, shot):
    page = narrow
    page.goto(f"{app_url}?session=branched.jsonl&tab=stepper&stream={STREAM}")
    expect(page.locator(".wb-step-position")).to_contain_text("step ")
    _inside(page, page.locator(".wb-rules-table").get_by_text("why now", exact=True))
    _inside(page, page.locator(".card-title", has_text="Discard").first)
    _inside(page, page.get_by_role("button", name="Next trigger ▶|"))
    shot(page, f"stepper_{WIDTH}")


def test_rules_editor_buttons_fit(narrow, app_url, shot):
    page = narrow
    page.goto(f"{app_url}?session=branched.jsonl&tab=rules&rules=project")
    _inside(page, page.get_by_role("button", name="Revert to file"))
    _inside(page, page.get_by_role("button", name="Open first fire in Stepper"))
    _inside(page, page.locator("textarea").first)
    shot(page, f"rules_{WIDTH}")


# The chosen option's text, in the select's own font, against the room the select gives it (its
# width less the arrow and padding): a <select> clips its text without any overflow to measure.
_FITS = """(sel) => {
  const style = getComputedStyle(sel);
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const text = sel.options[sel.selectedIndex].text;
  const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
  return {text, fits: ctx.measureText(text).width <= room};
}"""


@pytest.mark.parametrize("width", [1280, 1400])
def test_judge_and_rules_from_selects_show_their_whole_choice(page, tmp_path, width):
    from tests.ui.conftest import FIXTURES, serving

    page.set_viewport_size({"width": width, "height": 900})

    bare = tmp_path / "bare"  # a folder without any rules: "Rules from" says so
    bare.mkdir()
    (bare / "branched.jsonl").write_text((FIXTURES / "branched.jsonl").read_text(), encoding="utf-8")
    with serving([bare]) as url:
        page.goto(f"{url}?session=branched.jsonl&tab=stepper")
        expect(page.locator(".wb-step-position")).to_contain_text("step ")
        selects = page.locator(".wb-tab-stepper select")
        expect(selects.first).to_be_visible()
        judge = page.locator("select").filter(has_text="yes to all").first
        rules = page.locator("select").filter(has_text="no rules folder").first
        for select in (judge, rules):
            result = select.evaluate(_FITS)
            assert result["fits"], result
