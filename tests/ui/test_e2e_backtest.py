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
