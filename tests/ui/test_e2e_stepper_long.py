"""The stepper on a long stream and on nothing: background work with progress and Cancel, step 0 on a new stream."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving
from workbench.sessions.synthetic import generate_session_text

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def long_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long") / "served"
    shutil.copytree(FIXTURES, folder)
    # 40k entries re-chunked by words: ~120k events, none of which the fixture rules match (the search
    # for a trigger runs long enough to be seen and cancelled on a busy machine)
    (folder / "long.jsonl").write_text(generate_session_text(40_000), encoding="utf-8")
    (folder / "empty.jsonl").write_text('{"type":"session","version":3,"id":"empty","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}\n',
                                        encoding="utf-8")
    with serving([folder]) as url:
        yield url


def test_next_trigger_on_a_long_stream_shows_progress_and_can_be_cancelled(page, long_url, shot):
    page.goto(f"{long_url}?session=long.jsonl&tab=stepper&rules=project")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 0 /", timeout=120_000)
    page.get_by_role("button", name="Next trigger ▶|").click()
    cancel = page.get_by_role("button", name="Cancel")
    expect(cancel).to_be_visible()
    expect(position).to_contain_text("Looking for the next trigger")
    bar = page.locator("progress.wb-stepper-progress")
    expect(bar).to_be_visible()
    shot(page, "stepper-next-trigger-progress")
    # the bar moves forward, never back
    seen = []
    for _ in range(6):
        seen.append(int(bar.get_attribute("value") or 0))
        page.wait_for_timeout(400)
    assert seen == sorted(seen) and seen[-1] > 0, seen
    # the page stays live meanwhile: switching tabs works while the search runs
    page.locator(".bk-tab", has_text="Tree").first.click()
    expect(page.get_by_placeholder("Search", exact=True)).to_be_visible()
    page.locator(".bk-tab", has_text="Stepper").first.click()
    cancel.click()
    expect(cancel).to_be_hidden()
    expect(position).to_contain_text("step 0 /")  # cancelled: still where it was


def test_changing_the_stream_starts_at_step_0(page, long_url):
    page.goto(f"{long_url}?session=branched.jsonl&tab=stepper&rules=project&stream=project/unwrap.stream.jsonl&step=6")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 6 /", timeout=60_000)
    page.locator("select").filter(has_text="(derived from the open session)").first.select_option(label="(derived from the open session)")
    expect(position).to_contain_text("re-chunked by words", timeout=60_000)
    expect(position).to_contain_text("step 0 /")
    expect(page).not_to_have_url(re.compile(r"step=6"))


def test_stepper_on_a_session_without_entries_says_nothing_to_step(page, long_url):
    page.goto(f"{long_url}?session=empty.jsonl&tab=stepper&rules=project")
    expect(page.locator(".wb-tab-stepper")).to_contain_text("Nothing to step", timeout=60_000)
    expect(page.locator("body")).not_to_contain_text("Traceback")
