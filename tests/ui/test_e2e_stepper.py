"""Browser tests of the Stepper and Rules tabs: step to a trigger, compare keep/discard, edit a rule."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

STREAM = "project/unwrap.stream.jsonl"


def _open_stepper(page, app_url, extra=""):
    page.goto(f"{app_url}?session=branched.jsonl&tab=stepper&stream={STREAM}{extra}")
    expect(page.locator(".wb-step-position")).to_contain_text("step ", timeout=20_000)


def test_step_buttons_and_next_trigger(page, app_url, shot):
    _open_stepper(page, app_url)
    # the slider carries marks for the trigger, the abort and the retry (a short stream: all known)
    marks = page.locator(".wb-slider-marks")
    expect(marks).to_contain_text("1 trigger(s) · 1 abort(s) · 1 retry(ies)")
    expect(marks.locator(".wb-mark-trigger")).to_have_count(1)
    expect(marks.locator(".wb-mark-trigger")).to_have_attribute("title", "step 6: trigger")
    position = page.locator(".wb-step-position")
    page.get_by_role("button", name="Step ▶").click()
    expect(position).to_contain_text("step 1 /")
    page.get_by_role("button", name="◀ Back").click()
    expect(position).to_contain_text("step 0 /")
    page.get_by_role("button", name="Next trigger ▶|").click()
    expect(position).to_contain_text("TRIGGER")
    expect(position).to_contain_text("step 6 /")
    expect(page).to_have_url(re.compile(r"step=6"))
    rules = page.locator(".wb-rules-table")
    expect(rules.locator("tr.wb-row-trigger")).to_contain_text("no-unwrap")
    expect(rules.locator("tr.wb-row-trigger")).to_contain_text("TRIGGERED")
    expect(page.locator(".wb-buffers mark.wb-match")).to_have_text(".unwrap(")
    expect(page.locator(".wb-events")).to_contain_text("ttsr_triggered no-unwrap")
    shot(page, "stepper")


def test_keep_and_discard_side_by_side(page, app_url, shot):
    _open_stepper(page, app_url, "&step=6")
    keep, discard = page.locator(".wb-keep"), page.locator(".wb-discard")
    expect(keep).to_contain_text("retry under keep")
    # keep holds the aborted partial assistant message, discard drops it; both carry the interrupt
    expect(keep).to_contain_text("let v = res.unwrap();")
    expect(discard).not_to_contain_text("let v = res.unwrap();")
    expect(keep).to_contain_text('rule="no-unwrap"')
    expect(discard).to_contain_text('rule="no-unwrap"')
    expect(page.locator(".wb-rendered")).to_contain_text("system-interrupt")
    page.locator(".wb-keep").scroll_into_view_if_needed()
    shot(page, "keep_discard")


def test_reset_and_play(page, app_url):
    _open_stepper(page, app_url, "&step=3")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 3 /")
    page.get_by_role("button", name="|◀ Reset").click()
    expect(position).to_contain_text("step 0 /")
    page.get_by_role("button", name="▶ Play").click()
    # play pauses by itself at the first trigger
    expect(position).to_contain_text("step 6 /")
    expect(page.get_by_role("button", name="▶ Play")).to_be_visible()


def test_rule_editor_reruns_stream(page, app_url, shot):
    page.goto(f"{app_url}?session=branched.jsonl&tab=rules&stream={STREAM}")
    summary = page.locator(".wb-rules")
    expect(summary).to_contain_text("no-unwrap", timeout=20_000)
    page.locator(".wb-rule-editor textarea").wait_for()
    page.locator("select").filter(has_text="no-any").select_option("no-any")
    fires = page.locator(".wb-rule-fires")
    expect(fires).to_contain_text("does not fire")
    editor = page.locator(".wb-rule-editor textarea")
    text = editor.input_value()
    editor.fill(text.replace(':\\\\s*any\\\\b', 'let v'))
    expect(fires).to_contain_text("fires at")
    expect(summary).to_contain_text("no-any (edited)")
    shot(page, "rules")


def test_stepper_keyboard(page, app_url):
    _open_stepper(page, app_url, "&step=2")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 2 /")
    page.locator(".wb-buffers").click()  # focus the page, not a form field
    page.keyboard.press("ArrowRight")
    expect(position).to_contain_text("step 3 /")
    page.keyboard.press("ArrowLeft")
    expect(position).to_contain_text("step 2 /")
    page.keyboard.press("n")
    expect(position).to_contain_text("step 6 /")
    page.keyboard.press("Shift+N")
    expect(position).to_contain_text("step 0 /")


def test_a_setting_change_keeps_the_step(page, app_url):
    # Comparing keep and discard at a trigger is the point of the view: choosing another context mode
    # replays the stream with it and stays at the step (and the URL's step= with it).
    _open_stepper(page, app_url, "&step=6")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 6 /")
    page.get_by_role("button", name="keep", exact=True).click()
    # the keep pane is marked as the selected mode once the replay with it is installed
    expect(page.locator(".wb-keep")).to_contain_text("selected context mode")
    expect(position).to_contain_text("step 6 /")
    expect(position).to_contain_text("TRIGGER")
    expect(page).to_have_url(re.compile(r"step=6"))
    expect(page.locator(".wb-events")).to_contain_text("ttsr_triggered no-unwrap")
    # so does another Repeat policy (issue 27): the status line names it once the replay with it is in
    page.locator("select").filter(has=page.locator("option", has_text="after-gap")).first.select_option("after-gap")
    expect(page.locator(".wb-replay-config")).to_contain_text('repeatMode "after-gap"')
    expect(position).to_contain_text("step 6 /")
    expect(position).to_contain_text("TRIGGER")
    expect(page).to_have_url(re.compile(r"step=6"))


def test_a_step_past_the_end_says_where_it_went(page, app_url):
    # a step the stream does not have (a link from a longer run) cannot be kept: the last step is
    # shown, and a toast says so
    _open_stepper(page, app_url, "&step=999")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text(re.compile(r"step (\d+) / \1\b"))
    expect(page.locator(".notyf__message", has_text="step 999 is past the end of this stream")).to_be_visible()
    expect(page).not_to_have_url(re.compile(r"step=999"))


def test_status_names_the_agent_and_the_agent_box_overrides_it(page, app_url):
    # a recorded stream file has no session to take the agent from: main, as workbench replay says
    _open_stepper(page, app_url)
    config = page.locator(".wb-replay-config")
    expect(config).to_contain_text("agent: main (no session)")
    expect(config).to_contain_text('contextMode "discard" (default)')
    box = page.locator(".wb-agent-name input")
    box.fill("scout")
    box.press("Enter")
    expect(config).to_contain_text("agent: scout (set in the Agent box)")


def test_a_rule_file_discovery_rejects_shows_as_not_registered(page, tmp_path, served_dir):
    from tests.ui.conftest import serving

    folder = tmp_path / "served"
    shutil.copytree(served_dir, folder)
    # a rule file with no body: discovery refuses it ("Rule must have content"), so the manager never
    # sees it; the Stepper's table lists it instead of leaving it out
    (folder / "project" / ".omp" / "rules" / "empty-body.md").write_text("---\ncondition: 'bar'\n---\n",
                                                                         encoding="utf-8")
    with serving([folder]) as url:
        _open_stepper(page, url)
        row = page.locator(".wb-rules-table tr", has_text="empty-body")
        expect(row).to_contain_text("not registered")
        expect(row).to_contain_text("invalid rule file: Rule must have content")
        expect(page.locator(".wb-rules-table tr", has_text="no-unwrap")).to_have_count(1)
