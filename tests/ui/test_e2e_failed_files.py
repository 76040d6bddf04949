"""Files that fail outright are listed in the Sessions table with their reason; notices are flagged."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving

pytestmark = pytest.mark.e2e

HOSTILE = "<img src=x onerror=window.__pwned=1>.jsonl"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    # hostile files live in this test's own folder: tests/ui/fixtures is counted by other tests
    folder = tmp_path_factory.mktemp("failed") / "served"
    folder.mkdir()
    shutil.copy(FIXTURES / "branched.jsonl", folder / "branched.jsonl")
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "headless.jsonl").write_text('{"type":"message","id":"a","message":{"role":"user"}}\n')
    (folder / "binary.jsonl").write_bytes(b"\x00\x01\x02\xff\xfe binary, not a session\n")
    (folder / HOSTILE).write_bytes(b"")
    lines = (FIXTURES / "branched.jsonl").read_text().splitlines()
    odd = '{"type":"<script>window.__pwned=2</script>","id":"zz1","parentId":null,"timestamp":"2026-01-01T00:00:00Z"}'
    (folder / "odd.jsonl").write_text("\n".join([lines[0].replace('"version": 3', '"version": 9'), *lines[1:], odd]) + "\n")
    with serving([folder]) as served:
        yield served


def test_empty_headerless_and_binary_files_are_listed_with_their_reasons(page, url, shot):
    page.goto(url)
    table = page.locator(".wb-sessions-table")
    expect(table.locator(".tabulator-row", has_text="branched").first).to_be_visible()
    for name, reason in [("empty.jsonl", "not loaded: not a session: no JSON records"),
                         ("headless.jsonl", "not loaded: line 1: not a session: the first record is not a session header"),
                         ("binary.jsonl", "not loaded: not a session")]:
        expect(table.locator(".tabulator-row", has_text=name).first).to_contain_text(reason)
    # a file name is text, never markup: the row shows it literally and nothing ran
    expect(table).to_contain_text(HOSTILE)
    expect(table.locator("img")).to_have_count(0)
    # the loaded file with notices is flagged in its row
    odd = table.locator(".tabulator-row", has_text="odd.jsonl").first
    expect(odd).to_contain_text("loaded")
    expect(odd).to_contain_text(re.compile(r"\d notices: header: newer-version"))
    shot(page, "sessions-failed-files")

    # clicking a file that did not load says why and opens nothing
    table.locator(".tabulator-row", has_text="binary.jsonl").first.click()
    toast = page.locator(".notyf__toast", has_text="binary.jsonl")
    expect(toast.first).to_contain_text("not loaded: binary.jsonl: not a session")
    expect(page).not_to_have_url(re.compile(r"session=binary"))
    table.locator(".tabulator-row", has_text=HOSTILE).first.click()
    expect(page.locator(".notyf__toast", has_text=HOSTILE).first).to_be_visible()

    # clicking the flagged file names its notices (escaped) and opens it
    odd.click()
    expect(page.locator(".notyf__toast", has_text="unknown-type").first).to_contain_text("<script>window.__pwned=2</script>")
    # (the URL leaves out the default session: the newest one, which odd.jsonl is here)
    expect(page).to_have_url(re.compile(r"tab=tree"))
    expect(page.locator(".wb-session-picker input")).to_have_value("odd.jsonl")
    expect(page.locator(".wb-tree-row").first).to_be_visible()
    assert page.evaluate("window.__pwned") is None
