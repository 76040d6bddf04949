"""Browser test of the Timeline tab: lanes drawn, totals shown, a click on a lane opens the Stepper there."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_lanes_totals_filter_and_click_to_step(page, app_url, shot):
    page.goto(f"{app_url}?tab=timeline&session=branched.jsonl&rules=project")
    status = page.locator(".wb-tl-status")
    expect(status).to_contain_text("turn(s) shown", timeout=60_000)
    expect(page.locator(".wb-tl-totals")).to_contain_text("assistant message(s)")
    expect(page.locator(".wb-tl-totals")).to_contain_text("claude-sonnet-4")
    canvas = page.locator(".wb-tl-plot canvas").first
    expect(canvas).to_be_visible()
    shot(page, "timeline")
    total = re.search(r"(\d+) of (\d+) turn\(s\)", status.locator(".wb-kv").inner_text())
    assert total and total.group(1) == total.group(2)
    page.locator(".wb-tl-tool select").select_option("read")
    expect(status).not_to_contain_text(f"{total.group(2)} of {total.group(2)} turn(s)")
    page.locator(".wb-tl-tool select").select_option("(any)")
    expect(status).to_contain_text(f"{total.group(2)} of {total.group(2)} turn(s)")
    # the filter redrew the figure: click once its new canvas has been laid out (a click on the
    # outgoing canvas is lost, so wait for the canvas to stand still and try again if it was replaced)
    for _ in range(5):
        plot = page.locator(".wb-tl-plot canvas").first
        plot.wait_for(state="visible")
        plot.element_handle().wait_for_element_state("stable")
        box = plot.bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.45)
        try:
            expect(page).to_have_url(re.compile(r"tab=stepper"), timeout=6_000)
            break
        except AssertionError:
            continue
    expect(page).to_have_url(re.compile(r"tab=stepper"))
    expect(page).to_have_url(re.compile(r"step=\d+"))
    expect(page.locator(".wb-step-position")).to_be_visible()
