"""Browser tests of the Sessions and Tree tabs (Playwright + Debian chromium)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"


def _open_tree(page, app_url, session="branched.jsonl", extra=""):
    page.goto(f"{app_url}?session={session}&tab=tree{extra}")
    expect(page.locator(ROW).first).to_be_visible(timeout=20_000)


def test_sessions_table_lists_fixtures_and_opens_one(page, app_url, shot):
    page.goto(app_url)
    table = page.locator(".wb-sessions-table")
    expect(table.locator(".tabulator-row").first).to_be_visible(timeout=20_000)
    expect(table).to_contain_text("branched")
    expect(table).to_contain_text("script_content")
    shot(page, "sessions")
    table.locator(".tabulator-row", has_text="branched").first.click()
    expect(page.locator(ROW).first).to_be_visible()
    expect(page.locator(ROW, has_text="try approach B")).to_be_visible()
    expect(page).to_have_url(re.compile(r"session=branched\.jsonl"))


def test_tree_loads_with_active_path_and_label(page, app_url, shot):
    _open_tree(page, app_url)
    rows = page.locator(ROW)
    # default filter hides the label entry; the tool-call-only rule keeps e02 (it has text)
    expect(rows).to_have_count(8)
    expect(page.locator(f"{ROW}.wb-active", has_text="try approach B")).to_be_visible()
    expect(page.locator(f"{ROW}.wb-active", has_text="try approach A")).to_have_count(0)
    expect(page.locator(ROW, has_text="[milestone]")).to_contain_text("try approach A")
    expect(page.locator(".bk-Canvas, canvas").first).to_be_visible()
    shot(page, "tree")


def test_filter_buttons_and_alt_keys(page, app_url):
    _open_tree(page, app_url)
    rows = page.locator(ROW)
    page.get_by_role("button", name="user", exact=True).click()
    expect(rows).to_have_count(3)
    expect(page).to_have_url(re.compile(r"filter=user\-only"))
    rows.first.click()
    # the server's answer to the click marks the row: only then do the list's keys go to the new state
    expect(rows.first).to_have_class(re.compile(r"\bwb-selected\b"))
    page.keyboard.press("Alt+A")  # the first key after a click counts, however busy the machine
    expect(rows).to_have_count(9)  # all: the label entry too
    page.keyboard.press("Alt+L")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("try approach A")
    page.keyboard.press("Control+o")  # labeled-only → all
    expect(rows).to_have_count(9)
    page.keyboard.press("Alt+D")
    expect(rows).to_have_count(8)


def test_search_filters_as_you_type(page, app_url):
    _open_tree(page, app_url)
    box = page.get_by_placeholder("Search", exact=True)
    box.press_sequentially("approach b", delay=30)
    rows = page.locator(ROW)
    expect(rows.filter(has_text="approach A")).to_have_count(0)
    expect(rows.filter(has_text="try approach B")).to_have_count(1)
    box.fill("")
    expect(rows).to_have_count(8)


def test_keyboard_moves_selection_and_opens_entry(page, app_url, shot):
    _open_tree(page, app_url)
    page.locator(ROW, has_text="I'll look at auth.ts").click()
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("I'll look at auth.ts")
    entry = page.locator(".wb-entry")
    expect(entry).to_contain_text("tool call read")
    expect(entry).to_contain_text("/proj/src/auth.ts")  # tool-call arguments
    expect(entry).to_contain_text("Need to read auth first.")  # thinking block
    expect(entry).to_contain_text("total tokens 1285")  # usage
    page.keyboard.press("ArrowDown")
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("[read: /proj/src/auth.ts]")
    expect(page).to_have_url(re.compile(r"leaf=e03"))
    page.locator(".bk-tab", has_text="Conversation at this leaf").click()
    expect(page.get_by_text("3 message(s) the model would see")).to_be_visible()
    shot(page, "entry")


def test_label_written_back_as_label_entry(page, app_url, served_dir):
    _open_tree(page, app_url)
    page.locator(ROW, has_text="The bug is in the token check.").click()
    page.keyboard.press("Shift+L")
    editor = page.locator("input.wb-label-edit")
    expect(editor).to_be_visible()
    editor.fill("root-cause")
    editor.press("Enter")
    expect(page.locator(ROW, has_text="[root-cause]")).to_contain_text("The bug is in the token check.")
    last = json.loads((served_dir / "branched.jsonl").read_text().splitlines()[-1])
    assert last["type"] == "label" and last["targetId"] == "e04" and last["label"] == "root-cause"


def test_deep_link_restores_filter_search_and_leaf(page, app_url):
    _open_tree(page, app_url, extra="&filter=user-only&q=approach&leaf=e05")
    rows = page.locator(ROW)
    expect(rows).to_have_count(2)
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("try approach A")
    expect(page.get_by_placeholder("Search", exact=True)).to_have_value("approach")
    expect(page.locator(".wb-entry")).to_contain_text("e05")


def test_script_content_is_inert(page, app_url):
    page.goto(f"{app_url}?session=script_content.jsonl&tab=tree")
    rows = page.locator(ROW)
    expect(rows.first).to_be_visible(timeout=20_000)
    expect(rows.first).to_contain_text("<script>window.__pwned = 1</script>")
    rows.first.click()
    expect(page.locator(".wb-entry")).to_contain_text("<script>window.__pwned = 1</script>")
    page.locator(".bk-tab", has_text="Conversation at this leaf").click()
    page.locator(".bk-tab", has_text="Raw JSON").click()
    # No fixed wait: once the raw JSON shows the tag as text, the page holds it only as text. No script
    # element carries it (one put into the DOM would be there whether or not it ran), and none ran.
    expect(page.get_by_text("window.__pwned = 1").last).to_be_visible()
    assert page.locator("script", has_text="__pwned").count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    assert page.locator("img[src='x']").count() == 0


def test_outside_path_is_refused(page, app_url):
    page.goto(app_url)
    box = page.get_by_placeholder("Add a file or folder under the served roots")
    expect(box).to_be_visible(timeout=20_000)
    box.fill("/etc/passwd")
    box.press("Tab")  # blur: the value reaches the server before the click
    page.get_by_role("button", name="Add").click()
    expect(page.get_by_text("outside the served folders").first).to_be_visible()


def test_search_every_session_opens_the_hit(page, app_url):
    page.goto(app_url)
    box = page.get_by_placeholder("Search all sessions")
    expect(box).to_be_visible(timeout=20_000)
    box.fill("return a Result")
    box.press("Enter")
    hit = page.locator(".tabulator-row", has_text="e09")
    expect(hit).to_be_visible()
    # the snippet marks the match (the session's own text is escaped, the <mark> is the app's)
    expect(hit.locator("mark")).to_have_text(re.compile("return a Result", re.I))
    hit.click()
    expect(page.locator(f"{ROW}.wb-selected")).to_contain_text("Approach B: return a Result instead.")
    expect(page).to_have_url(re.compile(r"leaf=e09"))


def test_flavour_switch_relays_the_tree(page, app_url):
    _open_tree(page, app_url)
    page.get_by_role("button", name="pi", exact=True).click()
    expect(page).to_have_url(re.compile(r"flavor=pi"))
    expect(page.locator(ROW, has_text="try approach B")).to_be_visible()
