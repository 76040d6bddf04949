"""Live mode in the browser: a session file an agent is still writing, and rule files edited on disk."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"


def _line(entry_id: str, parent: str, text: str) -> str:
    return json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-05T11:00:00.000Z",
                       "message": {"role": "user", "content": text, "timestamp": 1767610800000}})


def test_appended_lines_appear_and_partial_line_waits(page, app_url, served_dir):
    page.goto(f"{app_url}?session=branched.jsonl&tab=tree")
    rows = page.locator(ROW)
    expect(rows.first).to_be_visible(timeout=20_000)
    start = rows.count()
    path = served_dir / "branched.jsonl"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(_line("live01", "e09", "a line written while the page is open") + "\n")
    expect(page.locator(ROW, has_text="a line written while the page is open")).to_be_visible(timeout=20_000)
    expect(rows).to_have_count(start + 1)
    partial = _line("live02", "live01", "the second half arrives later")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(partial[:30])
    # The status says the poll has seen the cut line (no fixed wait), and the line is not shown yet.
    # one line number and column of the file, and why: the agent may still be writing it
    line = path.read_bytes().count(b"\n") + 1
    expect(page.locator(".wb-tree-status .wb-partial-tail")).to_have_text(re.compile(
        rf"^line {line} is cut short at column \d+ \(no newline yet\): the file may still be being written"))
    expect(rows).to_have_count(start + 1)  # the cut line waits for its newline
    with path.open("a", encoding="utf-8") as fh:
        fh.write(partial[30:] + "\n")
    expect(page.locator(ROW, has_text="the second half arrives later")).to_be_visible(timeout=20_000)


def test_rule_file_edit_is_picked_up(page, app_url, served_dir):
    page.goto(f"{app_url}?session=branched.jsonl&tab=rules&stream=project/unwrap.stream.jsonl")
    summary = page.locator(".wb-rules")
    expect(summary).to_contain_text("no-unwrap", timeout=20_000)
    rule = served_dir / "project" / ".omp" / "rules" / "no-print.md"
    rule.write_text("---\ndescription: no print\ncondition: \"print\\\\(\"\n---\nUse logging.\n", encoding="utf-8")
    expect(summary).to_contain_text("no-print", timeout=20_000)
    rule.unlink()
    expect(summary).not_to_contain_text("no-print", timeout=20_000)
