"""Browser test of the Backtest tab: run over the served sessions, open a hit in the Stepper."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served_dir(served_dir):
    # one more session whose assistant writes `.unwrap(` so the backtest has a hit to open
    lines = (served_dir / "branched.jsonl").read_text().splitlines()
    extra = {"type": "message", "id": "u01", "parentId": "e09", "timestamp": "2026-01-05T10:10:00.000Z",
             "message": {"role": "assistant", "stopReason": "stop",
                         "content": [{"type": "text", "text": "let v = res.unwrap();"}]}}
    (served_dir / "unwrap.jsonl").write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    return served_dir


def test_backtest_runs_and_opens_a_hit(page, app_url, shot):
    page.goto(f"{app_url}?tab=backtest&rules=project")
    page.get_by_role("button", name="Run backtest over the served sessions").click()
    status = page.locator(".wb-backtest-status")
    expect(status).to_contain_text("hit(s) in", timeout=60_000)
    expect(page.locator(".wb-backtest-rules")).to_contain_text("no-unwrap")
    hit = page.locator(".wb-backtest-hits .tabulator-row", has_text="unwrap.jsonl").first
    expect(hit).to_be_visible()
    shot(page, "backtest")
    hit.click()
    expect(page).to_have_url(re.compile(r"tab=stepper"))
    expect(page.locator(".wb-rules-table tr.wb-row-trigger")).to_contain_text("no-unwrap")


# Every toast the page shows, kept after it fades (a toast lasts seconds; the test looks once).
RECORD_TOASTS = """() => {
  window.__toasts = [];
  new MutationObserver(() => {
    for (const t of document.querySelectorAll(".notyf__toast")) {
      if (!t.__seen) { t.__seen = true; window.__toasts.push(t.innerText); }
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


def test_a_hit_in_another_session_opens_with_the_rules_tab_built(page, app_url):
    # opening the hit changes the session and the stream (a file here, derived there) in one update:
    # the Rules view's watchers took one event only, and the click ended in "Open hit: TypeError"
    page.goto(f"{app_url}?session=branched.jsonl&tab=rules&rules=project&stream=project/unwrap.stream.jsonl")
    expect(page.locator(".wb-rules")).to_contain_text("no-unwrap")
    page.locator(".bk-tab", has_text="Backtest").first.click()
    page.get_by_role("button", name="Run backtest over the served sessions").click()
    expect(page.locator(".wb-backtest-status")).to_contain_text("hit(s) in", timeout=60_000)
    page.evaluate(RECORD_TOASTS)
    page.locator(".wb-backtest-hits .tabulator-row", has_text="unwrap.jsonl").first.click()
    expect(page).to_have_url(re.compile(r"tab=stepper.*session=unwrap\.jsonl|session=unwrap\.jsonl.*tab=stepper"))
    expect(page.locator(".wb-rules-table tr.wb-row-trigger")).to_contain_text("no-unwrap")
    # the server handles one page's events in order: once a later click has come back (the Rules tab
    # built for the hit's session), any toast the hit's click raised has reached the page
    page.locator(".bk-tab", has_text="Rules").first.click()
    expect(page).to_have_url(re.compile(r"tab=rules"))
    expect(page.locator(".wb-rules")).to_contain_text("no-unwrap")
    assert not [t for t in page.evaluate("() => window.__toasts") if "Open hit" in t]
