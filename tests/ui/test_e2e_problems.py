"""Every problem shown where it happened; the landing page's first step; the ``?`` help."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("problems") / "served"
    shutil.copytree(FIXTURES, folder)
    lines = (FIXTURES / "branched.jsonl").read_text().splitlines()
    # line 4 cut short, line 6 two objects glued together: both reported, the file itself untouched
    broken = [*lines[:3], lines[3][:25], *lines[4:5], lines[5] + lines[6], *lines[7:]]
    (folder / "broken.jsonl").write_text("\n".join(broken) + "\n", encoding="utf-8")
    (folder / "binary.jsonl").write_bytes(b"\x00\x01\x02\xff\xfe binary, not a session\n")
    outside = tmp_path_factory.mktemp("outside") / "secret.jsonl"
    shutil.copy(FIXTURES / "branched.jsonl", outside)
    (folder / "link.jsonl").symlink_to(outside)
    with serving([folder]) as served:
        yield served


def test_problems_tab_lists_bad_lines_and_jumps_to_the_neighbouring_entry(page, url, shot):
    page.goto(f"{url}?session=broken.jsonl&tab=tree")
    expect(page.locator(ROW).first).to_be_visible()
    expect(page.locator(".wb-tree-status")).to_contain_text("problem line(s)")
    page.locator(".bk-tab", has_text="Problems").first.click()
    table = page.locator(".wb-problems")
    expect(table).to_contain_text("broken.jsonl:4")
    expect(table).to_contain_text("malformed")
    expect(table).to_contain_text("broken.jsonl:6")
    shot(page, "problems")
    table.locator(".tabulator-row", has_text="broken.jsonl:4").first.click()
    # the entry before line 4 is selected and shown (line 3 of the file)
    expect(page.locator(".wb-entry")).to_contain_text("line 3")
    expect(page.locator(f"{ROW}.wb-selected")).to_have_count(1)


def test_deep_link_to_a_file_that_fails_shows_its_error_not_another_session(page, url):
    page.goto(f"{url}?session=branched.jsonl&tab=tree")
    expect(page.locator(ROW, has_text="try approach B")).to_be_visible()
    page.goto(f"{url}?session=binary.jsonl&tab=tree")
    expect(page.locator(".wb-tree-empty")).to_contain_text(re.compile("Cannot open this session|No entries"))
    expect(page.locator(ROW)).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text("try approach B")
    expect(page.locator("body")).not_to_contain_text("Traceback")


def test_landing_says_what_it_is_for_and_the_first_step_opens_the_trigger(page, url, shot):
    page.goto(url)
    expect(page.locator(".wb-intro")).to_contain_text("replays coding-agent sessions")
    shot(page, "landing")
    page.get_by_role("button", name=re.compile("First step")).click()
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("TRIGGER", timeout=60_000)
    expect(position).to_contain_text("step 6 /")
    expect(page.locator(".wb-rules-table tr.wb-row-trigger")).to_contain_text("no-unwrap")


def test_question_mark_shows_keys_and_the_glossary(page, url, shot):
    page.goto(f"{url}?session=branched.jsonl&tab=tree")
    expect(page.locator(ROW).first).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 200})
    page.keyboard.press("Shift+?")
    help_box = page.locator(".wb-help").first
    expect(help_box).to_be_visible()
    expect(help_box).to_contain_text("next / previous trigger")
    expect(help_box).to_contain_text("waiting")
    expect(help_box).to_contain_text("repeat gap")
    expect(help_box).to_contain_text("path gate")
    shot(page, "help")


def test_default_session_is_a_small_one(page, url):
    page.goto(f"{url}?tab=tree")
    expect(page.locator(ROW).first).to_be_visible()
    count = page.locator(".wb-count")
    expect(count).to_contain_text(re.compile(r"/\d{1,4} shown"))


def test_symlink_out_of_the_roots_is_reported_as_outside_them(page, url):
    page.goto(f"{url}?session=link.jsonl&tab=tree")
    expect(page.locator(".wb-tree-empty")).to_contain_text("outside the served folders")
    expect(page.locator(ROW)).to_have_count(0)


def test_bad_stream_and_rules_links_say_why(page, url):
    page.goto(f"{url}?session=branched.jsonl&tab=stepper&stream=../../etc/passwd")
    expect(page.locator(".wb-stepper-error")).to_contain_text("outside the served folders")
    page.goto(f"{url}?session=branched.jsonl&tab=stepper&rules=no-such-folder")
    expect(page.locator(".wb-stepper-error")).to_contain_text("no-such-folder")
