"""Browser test of Export HTML and Copy link: the downloaded page opens from disk offline at the step;
the copied link reopens the app where it was; the new tabs ask nothing of any host but 127.0.0.1."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_export_downloads_a_page_that_works_offline_at_the_step(page, app_url, tmp_path, browser):
    page.goto(f"{app_url}?tab=stepper&session=branched.jsonl&stream=project/unwrap.stream.jsonl&rules=project&step=4")
    expect(page.locator(".wb-step-position")).to_contain_text("4", timeout=60_000)
    page.get_by_role("button", name="Export…").click()
    with page.expect_download(timeout=60_000) as info:
        page.locator(".wb-export").get_by_text("Export HTML").click()
    download = info.value
    assert download.suggested_filename == "branched-step4.html"
    out = tmp_path / download.suggested_filename
    download.save_as(out)
    context = browser.new_context(offline=True)
    try:
        offline = context.new_page()
        requests: list[str] = []
        offline.on("request", lambda r: requests.append(r.url))
        offline.goto(out.as_uri())
        expect(offline.locator(".position")).to_contain_text("step 4 /")
        expect(offline.locator("table.rules")).to_contain_text("no-unwrap")
        assert requests == [out.as_uri()]
    finally:
        context.close()


def test_copy_link_shows_and_copies_the_deep_link(page, app_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{app_url}?tab=tree&session=branched.jsonl&leaf=e05")
    link = page.locator(".wb-link input")
    expect(link).to_have_value(re.compile(r"session=branched\.jsonl"))
    expect(link).to_have_value(re.compile(r"leaf=e05"))
    page.get_by_role("button", name="Copy link").click()
    expect(page.get_by_role("button", name="Copied ✓")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == link.input_value() and copied.startswith("http://127.0.0.1:")
    page.goto(copied)
    expect(page.locator(".wb-entry")).to_contain_text("e05")


def test_the_new_tabs_request_nothing_outside_localhost(page, app_url):
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.goto(f"{app_url}?session=branched.jsonl&rules=project")
    expect(page.locator(".bk-tab", has_text="Timeline").first).to_be_visible()
    for tab, shown in (("Playground", ".wb-play-rule"), ("Drafts", ".wb-draft-status"), ("Timeline", ".wb-tl-status")):
        page.locator(".bk-tab", has_text=tab).first.click()
        expect(page).to_have_url(re.compile(rf"tab={tab.lower()}"))  # the server has taken the switch
        expect(page.locator(shown).first).to_be_attached()
    expect(page.locator(".wb-tl-plot canvas").first).to_be_visible(timeout=60_000)
    page.wait_for_load_state("networkidle")
    outside = sorted({u for u in urls if not u.startswith("data:") and urlsplit(u.removeprefix("blob:")).hostname != "127.0.0.1"})
    assert outside == []
