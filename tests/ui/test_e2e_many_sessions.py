"""Browser tests over an archive of generated sessions: the Sessions table's columns and total, the
header's session picker, the live search across sessions, and the Usage tab's chart and totals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import serving
from workbench.sessions import load_session
from workbench.sessions.synthetic import write_corpus
from workbench.sessions.usage import branch_usage
from workbench.ui.sessions_view import money

pytestmark = pytest.mark.e2e

COUNT = 240
HOSTILE = "<img src=x onerror=window.__pwned=1>"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Path]:
    files = write_corpus(tmp_path_factory.mktemp("many") / "archive", COUNT)
    # one more session, titled with markup and with no model call (so the usage figures are the corpus's)
    records = [{"type": "session", "version": 3, "id": "hostile", "timestamp": "2026-09-01T00:00:00Z",
                "cwd": "/home/dev/hostile", "title": HOSTILE},
               {"type": "message", "id": "h1", "parentId": None, "timestamp": "2026-09-01T00:00:01Z",
                "message": {"role": "user", "content": f"hostile words {HOSTILE}"}}]
    (files[0].parent.parent / "hostile.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return files


@pytest.fixture(scope="module")
def url(corpus):
    with serving([corpus[0].parent.parent]) as served:
        yield served


def _cost(files: list[Path]) -> float:
    return sum(branch_usage(load_session(p), children=False).cost for p in files)


def test_the_sessions_table_shows_file_project_date_model_cost_and_a_total(page, url, corpus, shot):
    page.goto(url)
    table = page.locator(".wb-sessions-table")
    for title in ("File", "Title", "Project (cwd)", "Date", "Model", "Cost"):
        expect(table.locator(".tabulator-col-title", has_text=re.compile(f"^{re.escape(title)}$"))).to_have_count(1)
    total = page.locator(".wb-sessions-total")
    expect(total).to_contain_text(f"{COUNT + 1} session(s)")
    expect(total).to_contain_text(f"total cost {money(_cost(corpus))}")
    # the newest session leads the first page; its row names its file, project and model
    newest = max(corpus, key=lambda p: json.loads(p.read_text().splitlines()[0])["timestamp"])
    record = json.loads(newest.read_text().splitlines()[0])
    row = table.locator(".tabulator-row").first
    expect(row).to_contain_text(f"{newest.parent.name}/{newest.name}")
    expect(row).to_contain_text(record["cwd"])
    expect(row).to_contain_text(json.loads(newest.read_text().splitlines()[2])["message"]["model"])
    shot(page, "many-sessions-table")


@pytest.mark.parametrize("width", [1280, 1400])
def test_every_header_of_the_sessions_table_reads_inside_the_table(page, url, shot, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    table = page.locator(".wb-sessions-table .tabulator").first
    expect(table.locator(".tabulator-row").first).to_be_visible()
    box = table.bounding_box()
    heads = table.locator(".tabulator-col").evaluate_all("""cols => cols
        .map(c => ({text: c.innerText.trim(), box: c.getBoundingClientRect(), title: c.querySelector('.tabulator-col-title')}))
        .filter(c => c.text)
        .map(c => ({text: c.text, left: c.box.left, right: c.box.right,
                    fits: c.title.scrollWidth <= c.title.clientWidth}))""")
    assert sorted(h["text"].replace("\n", " ") for h in heads) == sorted(["File", "Title", "Project (cwd)", "Date", "Model", "Cost", "Entries",
                                                                         "Branches", "Labels", "TTSR inj.", "Errors", "Status",
                                                                         "Notices"])
    cut = [h for h in heads if not (h["fits"] and box["x"] - 1 <= h["left"] and h["right"] <= box["x"] + box["width"] + 1)]
    shot(page, f"sessions-headers-{width}")
    assert not cut, cut


def test_the_picker_filters_by_file_title_or_project_and_opens_the_session(page, url, corpus):
    page.goto(url)
    box = page.locator(".wb-session-picker input")
    expect(box).to_be_visible()
    # a title is text in the menu, never markup
    box.fill("")
    box.press_sequentially("onerror")
    expect(page.locator(".wb-session-picker .bk-menu > div").first).to_contain_text(f"hostile.jsonl · {HOSTILE}")
    expect(page.locator(".wb-session-picker .bk-menu img")).to_have_count(0)
    box.press("Escape")
    box.fill("")
    box.press_sequentially("session-00077")
    menu = page.locator(".wb-session-picker .bk-menu > div")
    expect(menu).to_have_count(1)
    expect(menu.first).to_contain_text("session-00077.jsonl")
    # a project narrows to its sessions (at most a screenful is listed)
    box.fill("")
    box.press_sequentially("cli-tools")
    expect(menu.first).to_contain_text("/home/dev/cli-tools")
    expect(menu.filter(has_not_text="cli-tools")).to_have_count(0)
    box.fill("")
    box.press_sequentially("session-00077")
    expect(menu).to_have_count(1)
    menu.first.click()
    expect(page).to_have_url(re.compile(r"session=[^&]*session-00077\.jsonl"))
    expect(page).to_have_url(re.compile(r"tab=tree"))
    expect(page.locator(".wb-tree-row", has_text="task 77 step 0").first).to_be_visible()
    expect(box).to_have_value(re.compile(r"session-00077\.jsonl$"))


def test_live_search_counts_hits_lists_files_and_opens_a_hit_at_its_entry(page, url, corpus, shot):
    page.goto(url)
    query = "of task 7"
    lines = [(p, line) for p in corpus for line in p.read_text().splitlines() if query in line]
    box = page.locator(".wb-global-search input")
    box.press_sequentially(query)  # no Enter: the search runs once typing pauses
    count = page.locator(".wb-hit-count")
    expect(count).to_contain_text(f"{len(lines)} hit(s) in {len({p for p, _ in lines})} session(s) for {query}")
    hits = page.locator(".wb-search-hits .tabulator-row")
    expect(hits.first).to_contain_text(".jsonl")
    shot(page, "many-sessions-search")
    # one hit: its file is listed, and a click opens that session with the entry selected in the tree
    box.fill("")
    box.press_sequentially("done with step 1 of task 77")
    expect(count).to_contain_text("1 hit(s) in 1 session(s) for done with step 1 of task 77")
    hit = hits.filter(has_text="session-00077.jsonl")
    expect(hit).to_have_count(1)
    hit.click()
    expect(page).to_have_url(re.compile(r"tab=tree"))
    expect(page.locator(".wb-tree-row.wb-selected")).to_contain_text("done with step 1 of task 77")
    # a hit's title and words from the file are text
    page.locator(".bk-tab", has_text="Sessions").first.click()
    box.fill("")
    box.press_sequentially("hostile words")
    expect(count).to_contain_text("1 hit(s) in 1 session(s) for hostile words")
    expect(hits.first).to_contain_text(HOSTILE)
    expect(page.locator(".wb-search-hits img")).to_have_count(0)
    assert page.evaluate("window.__pwned") is None


def test_the_usage_tab_charts_the_groups_and_totals_the_cost(page, url, corpus, shot):
    page.goto(f"{url}?tab=usage")
    summary = page.locator(".wb-usage-totals")
    expect(summary).to_contain_text(f"{COUNT} session(s)")
    expect(summary).to_contain_text(f"{COUNT * 3} assistant message(s)")
    expect(summary).to_contain_text(f"cost {money(_cost(corpus))}")
    expect(page.locator(".wb-usage-chart canvas").first).to_be_visible()
    rows = page.locator(".wb-usage-table .tabulator-row")
    expect(rows).to_have_count(3)  # the corpus's three models
    expect(rows.filter(has_text="claude-haiku-4-5")).to_have_count(1)
    judge = page.locator(".wb-usage-judge .tabulator-row")
    expect(judge.filter(has_text="no-unwrap")).to_have_count(1)
    # by day: one row per day of the corpus (45), a page of them listed
    page.locator(".wb-usage-by .bk-btn", has_text="Day").click()
    expect(page.locator(".wb-usage-table .tabulator-row").first).to_contain_text("2026-10-01")
    expect(summary).to_contain_text("by day: 45 group(s)")
    shot(page, "usage")


def test_a_hit_opened_from_far_down_the_page_shows_the_tree_from_the_top(clean_page, url, corpus):
    # the window kept the Sessions tab's scroll: the opened tree's header and tabs were off screen
    page = clean_page
    page.goto(url)
    box = page.locator(".wb-global-search input")
    box.press_sequentially("done with step 1 of task 77")
    expect(page.locator(".wb-hit-count")).to_contain_text("1 hit(s) in 1 session(s)", timeout=60_000)
    hit = page.locator(".wb-search-hits .tabulator-row", has_text="session-00077.jsonl")
    expect(hit).to_have_count(1)
    hit.scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 0  # the hits are below the table
    hit.click()
    expect(page.locator(".wb-tree-row.wb-selected")).to_contain_text("done with step 1 of task 77")
    page.wait_for_function("window.scrollY === 0")
    expect(page.locator(".bk-tab", has_text="Tree").first).to_be_in_viewport()
