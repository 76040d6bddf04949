"""Export… on a big session in the browser: the dialog says how many steps the stepper run has and
leaves a run above ``STEP_LIMIT`` out by default; ticked back, the export runs in the background
with a progress bar, the server keeps answering (the progress moves, another browser session opens
a tree), and Cancel stops it without a download.

The session (6,000 generated entries, re-chunked by words into some 20,000 steps) is written into a
temporary folder; the test waits for events, never for a time.
"""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving
from workbench.sessions.synthetic import generate_session_text
from workbench.ui.share_view import STEP_LIMIT

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def big_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bigexport") / "served"
    shutil.copytree(FIXTURES, folder)
    (folder / "big.jsonl").write_text(generate_session_text(6_000, tool_result_bytes=2000), encoding="utf-8")
    with serving([folder]) as url:
        yield url


def _steps_done(page) -> int:
    text = page.locator(".wb-export-progress-text .wb-export-msg").inner_text()
    found = re.search(r"(?:replaying|writing) step ([\d,]+)", text)
    return int(found.group(1).replace(",", "")) if found else 0


def test_a_long_export_runs_in_the_background_and_cancel_stops_it(page, big_url, browser, shot):
    downloads: list = []
    page.on("download", lambda d: downloads.append(d))
    page.goto(f"{big_url}?session=big.jsonl&tab=tree&rules=project")
    expect(page.locator(".wb-tree-row").first).to_be_visible(timeout=120_000)
    page.get_by_role("button", name="Export…").click()
    note = page.locator(".wb-export-steps")
    expect(note).to_contain_text(f"above {STEP_LIMIT:,} it is left out by default", timeout=60_000)
    found = re.search(r"has\s+([\d,]+)\s+steps", page.locator(".wb-export-steps .wb-warn").inner_text())
    assert found, page.locator(".wb-export-steps .wb-warn").inner_text()
    steps = int(found.group(1).replace(",", ""))
    assert steps > STEP_LIMIT
    box = page.locator(".wb-export-stepper input")
    expect(box).not_to_be_checked()
    box.check()
    expect(note).to_contain_text("Cancel stops it")
    page.locator(".wb-export").get_by_role("button", name="Export HTML").click()
    text = page.locator(".wb-export-progress-text")
    expect(text).to_contain_text(re.compile(r"replaying step [\d,]+ of " + f"{steps:,}"), timeout=60_000)
    expect(page.locator(".wb-export-cancel")).to_be_visible()
    msg = page.locator(".wb-export-progress-text .wb-export-msg")
    first = msg.inner_text()
    # the server is not blocked: the progress moves on, and another browser session gets its page
    expect(msg).not_to_have_text(first, timeout=60_000)
    other = browser.new_page()
    try:
        other.goto(f"{big_url}?session=branched.jsonl&tab=tree")
        expect(other.locator(".wb-tree-row").first).to_be_visible(timeout=60_000)
    finally:
        other.close()
    expect(text).to_contain_text("writing step", timeout=120_000)  # the page's half: still running
    assert 0 < _steps_done(page) < steps
    shot(page, "export-in-background")
    page.locator(".wb-export-cancel").get_by_role("button", name="Cancel").click()
    expect(page.locator("div.wb-export-progress")).to_be_hidden()
    expect(page.locator(".wb-export-cancel")).to_be_hidden()
    expect(page.locator(".notyf__toast", has_text="Export cancelled").first).to_be_visible()
    expect(page.locator(".wb-export").get_by_role("button", name="Export HTML")).to_be_enabled()
    # the page answers again at once: unticking the box turns the note back
    box.uncheck()
    expect(note).to_contain_text("Tick the box")
    assert downloads == []
