"""Browser test of the Playground tab: type a text, see the rule's matches, keep the text as an example."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_typing_shows_matches_and_an_example_is_saved_after_its_diff(page, app_url, served_dir, shot):
    rule_file = served_dir / "project" / ".omp" / "rules" / "no-unwrap.md"
    before = rule_file.read_text(encoding="utf-8")
    page.goto(f"{app_url}?tab=playground&rules=project")
    page.locator(".wb-play-rule select").select_option("no-unwrap")
    box = page.locator(".wb-play-input textarea")
    # the second line is long: its example line in the diff must wrap, not run past the pane's edge
    box.fill("Here <i>is</i> the fix, " + "with a long explanation of why it is written so " * 6 + "\nlet v = res.unwrap();")
    report = page.locator(".wb-play-report")
    expect(report).to_contain_text("fires")
    expect(report.locator("mark.wb-match")).to_have_text(".unwrap(")
    expect(report).to_contain_text("line 2, col 12")
    expect(report.locator("i")).to_have_count(0)  # the pasted markup is shown as text
    # typing more updates the report (debounced)
    box.press_sequentially(" and x.unwrap()")
    expect(report).to_contain_text("2 match(es)")
    page.get_by_role("button", name="Save as example…").click()
    diff = page.locator(".wb-play-diff")
    expect(diff).to_contain_text("+examples:")
    # every diff line fits the pane (wrapped, not cut off at its edge)
    right = diff.evaluate("el => el.getBoundingClientRect().right")
    lines = diff.locator(".wb-diff > div")
    assert lines.count() > 3
    assert all(lines.evaluate_all("(ls, right) => ls.map(l => l.scrollWidth <= l.clientWidth + 1 "
                                  "&& l.getBoundingClientRect().right <= right + 1)", right))
    assert rule_file.read_text(encoding="utf-8") == before
    shot(page, "playground")
    page.get_by_role("button", name="Write to rule file").click()
    expect(diff).not_to_contain_text("+examples:")
    after = rule_file.read_text(encoding="utf-8")
    assert "examples:" in after and "x.unwrap()" in after and after.endswith(before.split("---\n", 2)[2])
