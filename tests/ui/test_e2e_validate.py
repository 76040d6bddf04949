"""Browser test of the Rules tab's Validate card: the edited rule checked against the open session as
/omfg checks a rule before saving it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_validate_the_edited_rule_against_the_open_session(page, app_url, served_dir, shot):
    rule_file = served_dir / "project" / ".omp" / "rules" / "no-unwrap.md"
    original = rule_file.read_text(encoding="utf-8")
    page.goto(f"{app_url}?tab=rules&rules=project&session=branched.jsonl")
    page.locator("select").filter(has_text="no-unwrap").first.select_option("no-unwrap")
    editor = page.locator(".wb-rule-editor textarea")
    expect(editor).to_have_value(re.compile("unwrap"))
    # The session's leaf is on the branch whose replies never call unwrap: /omfg would refuse the rule.
    page.get_by_role("button", name="Validate as /omfg").click()
    card = page.locator(".wb-validate")
    expect(card).to_contain_text("/omfg would not accept this rule", timeout=30_000)
    expect(card).to_contain_text('No assistant output matched condition "\\\\.unwrap\\\\(" within scope "text"')
    expect(card).to_contain_text('- reply: "The bug is in the token check."')
    edited = original.replace('"\\\\.unwrap\\\\("', '"Approach B"')
    assert edited != original
    editor.fill(edited)
    expect(page.locator(".wb-rules")).to_contain_text("no-unwrap (edited)", timeout=30_000)
    page.get_by_role("button", name="Validate as /omfg").click()
    expect(card).to_contain_text("/omfg would accept this rule", timeout=30_000)
    expect(card).to_contain_text("fires on the reply")
    shot(page, "rules-validate")
    assert rule_file.read_text(encoding="utf-8") == original  # validating never writes the rule
