"""The page's frame: the header bar, the main area and the help dialog, without a Panel template."""

from __future__ import annotations

import urllib.request

import panel as pn

from tests.ui.conftest import FIXTURES, serving
from workbench.ui.page_frame import PageFrame, header_label


def _frame() -> tuple[PageFrame, pn.pane.HTML, pn.Column]:
    help_pane = pn.pane.HTML("<div class='wb-help'>keys</div>")
    body = pn.Column(pn.pane.Str("the tabs"))
    frame = PageFrame("TTSR Workbench", header=[header_label("session"), pn.widgets.Button(label="? Help")],
                      main=[body], dialog=[help_pane])
    return frame, help_pane, body


def test_frame_holds_the_title_and_controls_above_the_main_area():
    frame, help_pane, body = _frame()
    layout = frame.__panel__()
    assert layout.objects[:2] == [frame.header, frame.main]
    title, controls = frame.header.objects
    assert title.object == "TTSR Workbench"
    assert [type(o).__name__ for o in controls.objects] == ["Str", "Button"]
    assert controls.objects[0].object == "session"
    assert frame.main.objects == [body]
    assert frame.dialog.objects == [help_pane]


def test_dialog_is_closed_until_asked_for():
    frame, _, _ = _frame()
    assert frame.dialog.open is False
    frame.open_dialog()
    assert frame.dialog.open is True


def test_served_page_runs_no_fast_design_module():
    """The reason for the frame: a template's FAST design put its web-components module on every page."""
    with serving([FIXTURES]) as url:
        html = urllib.request.urlopen(url, timeout=60).read().decode("utf-8", "replace")
    assert "bokeh" in html  # the page itself, with its scripts listed
    assert "fast-components" not in html and "fast_design" not in html
