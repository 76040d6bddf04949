"""The header bar at a notebook's width (970 px), 1280 and 1400 px: every control wholly inside the
window, no two overlapping (a narrow window wraps the header onto a second line), the tabs below it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

# every control of the header, by what a user sees (the link field shows only in a wide window)
_CONTROLS = {
    "title": ".wb-title",
    "session label": "text=session",
    "session picker": ".wb-session-picker",
    "flavour label": "text=flavour",
    "flavour buttons": ".wb-flavour",
    "flavour note": ".wb-flavour-read",
    "help": ".wb-help-button",
    "export": ".wb-export-open",
    "copy link": ".wb-copy-link",
}


def _overlap(a: dict, b: dict) -> float:
    """The area two boxes share (0 when they only touch)."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)


@pytest.mark.parametrize("width", [970, 1280, 1400])
def test_header_controls_fit_the_window_and_do_not_overlap(page, app_url, width, shot):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_url}?session=branched.jsonl&tab=tree")
    header = page.locator(".wb-header").first
    note = header.locator(".wb-flavour-read")
    expect(note).to_contain_text("read as")  # the file is read: the header has all its text
    boxes = {}
    for name, selector in _CONTROLS.items():
        control = header.locator(selector).first
        expect(control).to_be_visible()
        box = control.bounding_box()
        assert box is not None, name
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (name, box)
        boxes[name] = box
    names = list(boxes)
    crowded = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if _overlap(boxes[a], boxes[b]) > 0.5]
    assert crowded == [], {n: boxes[n] for pair in crowded for n in pair}
    # the note's whole text is shown (not ended by an ellipsis), in a colour that reads on the bar
    assert note.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    # the link field is on the bar only where it reads (at least 1600 px): at 1400 px it was cut to a
    # few characters of the address (issue 27); Copy link is there at every width
    expect(header.locator(".wb-link").first).to_be_hidden()
    # the tabs start below the header, however many lines it took
    bar = header.bounding_box()
    tabs = page.locator(".bk-tab", has_text="Tree").first.bounding_box()
    assert bar is not None and tabs is not None and tabs["y"] >= bar["y"] + bar["height"] - 0.5
    for name, box in boxes.items():
        assert box["y"] + box["height"] <= bar["y"] + bar["height"] + 0.5, name
    shot(page, f"header_{width}")


def test_a_wide_window_shows_the_link_field_on_the_bar(page, app_url):
    page.set_viewport_size({"width": 1700, "height": 900})
    page.goto(f"{app_url}?session=branched.jsonl&tab=tree")
    link = page.locator(".wb-header .wb-link").first
    expect(link).to_be_visible()
    box, copy = link.bounding_box(), page.locator(".wb-copy-link").first.bounding_box()
    assert box is not None and copy is not None
    assert box["x"] >= copy["x"] + copy["width"] and box["x"] + box["width"] <= 1700
