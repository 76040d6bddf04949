"""Browser test of the Edit mode menu: the Stepper and the Rules tab read edit calls in the chosen mode
and say which mode each call was read with, and why."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES

pytestmark = pytest.mark.e2e

STREAM = "project/edit.stream.jsonl"
RULE = """---
description: No unwrap in Rust edits
condition: "\\\\.unwrap\\\\("
scope: tool:edit(*.rs)
---
Return the error instead of calling `.unwrap()`.
"""
ARGS = {"input": "*** Begin Patch\n[src/lib.rs#1A2B]\nPUT >$:\n+let v = res.unwrap();\n*** End Patch\n"}


def _stream() -> str:
    text = json.dumps(ARGS)
    deltas = [text[i:i + 12] for i in range(0, len(text), 12)]
    events = [{"type": "stream", "version": 1, "cwd": "/proj", "note": "an edit call in hashline mode"},
              {"type": "turn_start"}, {"type": "message_start", "role": "assistant", "timestamp": 1767607200000},
              {"type": "toolcall_start", "contentIndex": 0, "id": "c1", "name": "edit"},
              *({"type": "toolcall_delta", "contentIndex": 0, "delta": d} for d in deltas),
              {"type": "toolcall_end", "contentIndex": 0, "arguments": ARGS},
              {"type": "message_end", "stopReason": "toolUse"},
              {"type": "tool_result", "toolCallId": "c1", "toolName": "edit", "content": "ok", "isError": False},
              {"type": "turn_end"}]
    return "".join(json.dumps(e) + "\n" for e in events)


@pytest.fixture(scope="module")
def served_dir(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("served") / "served"
    shutil.copytree(FIXTURES, target)
    (target / STREAM).write_text(_stream())
    (target / "project" / ".omp" / "rules" / "no-edit-unwrap.md").write_text(RULE)
    return target


def test_edit_mode_menu_in_stepper_and_rules_tab(page, app_url, shot):
    page.goto(f"{app_url}?tab=stepper&rules=project&stream={STREAM}")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step ", timeout=20_000)
    page.get_by_role("button", name="Next trigger ▶|").click()
    expect(position).to_contain_text("TRIGGER")
    expect(position.locator(".wb-edit-reading")).to_contain_text("edit call read as hashline (auto: hashline markers")
    expect(page.locator(".wb-events")).to_contain_text("ttsr_triggered no-edit-unwrap")
    shot(page, "stepper_edit_mode")

    # read every edit call as replace: the hashline payload names no path, so the *.rs scope never matches
    page.locator(".wb-edit-mode select:visible").select_option("replace")
    expect(page).to_have_url(re.compile(r"edit_mode=replace"))
    # the replay is rebuilt at the same step: the call now reads as replace, and nothing fires
    expect(position.locator(".wb-edit-reading")).to_contain_text("edit call read as replace (set in the Edit mode menu)")
    expect(page.locator(".wb-slider-marks")).to_contain_text("0 trigger(s)")

    # the Rules tab shares the menu and lists how each edit call was read
    page.locator(".bk-tab", has_text="Rules").first.click()
    page.locator(".wb-rule-editor textarea").wait_for()
    page.locator("select").filter(has_text="no-edit-unwrap").select_option("no-edit-unwrap")
    readings = page.locator(".wb-edit-readings")
    expect(readings).to_contain_text("Edit mode: replace")
    expect(readings).to_contain_text("set in the Edit mode menu")
    expect(page.locator(".wb-rule-fires")).to_contain_text("does not fire")
    page.locator(".wb-edit-mode select:visible").select_option("auto")
    expect(readings).to_contain_text("Edit mode: auto")
    expect(readings).to_contain_text("auto: hashline markers")
    expect(page.locator(".wb-rule-fires")).to_contain_text("no-edit-unwrap fires at")
    shot(page, "rules_edit_mode")
