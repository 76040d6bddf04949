"""Browser test of the Drafts tab: a Rules-tab edit compared over the served sessions, a change opened in
the Stepper, then saved to its file after the diff."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served_dir(served_dir):
    # a session whose assistant writes `.expect(`: the draft (unwrap|expect) newly fires there
    lines = (served_dir / "branched.jsonl").read_text().splitlines()
    extra = {"type": "message", "id": "x01", "parentId": "e09", "timestamp": "2026-01-05T10:10:00.000Z",
             "message": {"role": "assistant", "stopReason": "stop",
                         "content": [{"type": "text", "text": "let v = res.expect(\"bad\");"}]}}
    (served_dir / "expect.jsonl").write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    return served_dir


def test_compare_a_draft_open_a_change_then_save_it(page, app_url, served_dir, shot):
    rule_file = served_dir / "project" / ".omp" / "rules" / "no-unwrap.md"
    original = rule_file.read_text(encoding="utf-8")
    edited = original.replace('"\\\\.unwrap\\\\("', '"\\\\.(unwrap|expect)\\\\("')
    assert edited != original
    page.goto(f"{app_url}?tab=rules&rules=project")
    page.locator("select").filter(has_text="no-unwrap").first.select_option("no-unwrap")
    editor = page.locator(".wb-rule-editor textarea")
    expect(editor).to_have_value(re.compile("unwrap"))
    editor.fill(edited)
    expect(page.locator(".wb-rules")).to_contain_text("no-unwrap (edited)", timeout=30_000)
    page.locator(".bk-tab", has_text="Drafts").first.click()
    # before any comparison there is no changes table (an empty one with a pager read as broken, issue 27)
    expect(page.get_by_role("button", name="Compare with the saved rules")).to_be_visible()
    expect(page.locator(".wb-draft-changes")).to_be_hidden()
    # keeping the edit as a draft leaves the edited rule chosen (the select went blank, issue 27)
    edited_rule = page.locator(".wb-draft-edited select")
    expect(edited_rule).to_have_value("no-unwrap")
    page.get_by_label("Draft name").fill("unwrap or expect")
    page.get_by_role("button", name="Keep as draft").click()
    expect(page.locator(".wb-draft-select select")).to_contain_text("unwrap or expect")
    expect(edited_rule).to_have_value("no-unwrap")
    page.get_by_role("button", name="Compare with the saved rules").click()
    status = page.locator(".wb-draft-status")
    expect(status).to_contain_text("1 newly fire", timeout=90_000)
    row = page.locator(".wb-draft-changes .tabulator-row", has_text="expect.jsonl").first
    expect(row).to_contain_text("newly fires")
    # the saved rules do not fire there: said in words, not "yes → -" (issue 27)
    expect(row.locator('.tabulator-cell[tabulator-field="interrupts"]')).to_have_text("does not fire → yes")
    shot(page, "drafts")
    page.locator(".wb-draft-edited select").select_option("no-unwrap")
    page.get_by_role("button", name="Save to file…").click()
    expect(page.locator(".wb-draft-diff")).to_contain_text("(unwrap|expect)")
    assert rule_file.read_text(encoding="utf-8") == original  # nothing written before the confirm
    page.get_by_role("button", name="Confirm: write the file").click()
    expect(page.locator(".wb-draft-diff")).not_to_contain_text("(unwrap|expect)")
    assert rule_file.read_text(encoding="utf-8") == edited
    row.click()
    expect(page).to_have_url(re.compile(r"tab=stepper"))
    expect(page).to_have_url(re.compile(r"session=expect\.jsonl"))
    expect(page.locator(".wb-rules-table tr.wb-row-trigger")).to_contain_text("no-unwrap", timeout=60_000)
