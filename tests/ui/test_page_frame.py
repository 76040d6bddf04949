"""The page's frame: the header bar, the main area and the help dialog, without a Panel template."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request

import panel as pn

from tests.ui.conftest import FIXTURES, _free_port
from workbench.ui.page_frame import PageFrame, header_group, header_label


def _frame() -> tuple[PageFrame, pn.pane.HTML, pn.Column]:
    help_pane = pn.pane.HTML("<div class='wb-help'>keys</div>")
    body = pn.Column(pn.pane.Str("the tabs"))
    frame = PageFrame("TTSR Workbench", header=[header_group(header_label("session"), pn.widgets.Button(label="? Help"))],
                      main=[body], dialog=[help_pane], short_title="TTSR")
    return frame, help_pane, body


def test_frame_holds_the_title_and_controls_above_the_main_area():
    frame, help_pane, body = _frame()
    layout = frame.__panel__()
    assert layout.objects[:2] == [frame.header, frame.main]
    title, controls = frame.header.objects
    assert title is frame.title
    # the long title, and the short one a narrow window shows instead
    assert "<span class='wb-title-long'>TTSR Workbench</span>" in title.object
    assert ">TTSR</span>" in title.object and "wb-title-short" in title.object
    assert frame.header.flex_wrap == "wrap"  # a narrow window wraps the header, never cuts it
    assert [type(o).__name__ for o in controls.objects] == ["Str", "Button"]
    assert controls.objects[0].object == "session"
    assert frame.main.objects == [body]
    assert frame.dialog.objects == [help_pane]


def test_dialog_is_closed_until_asked_for():
    frame, _, _ = _frame()
    assert frame.dialog.open is False
    frame.open_dialog()
    assert frame.dialog.open is True


def test_first_page_of_a_fresh_server_lists_its_dialog_script_and_no_fast_module():
    """A fresh server's first page (Panel lists scripts from what it has seen): the help dialog's
    script is there, a template's FAST module (the reason for the frame) is not."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", str(FIXTURES), "--port", str(port),
                             "--no-show"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                html = urllib.request.urlopen(f"http://127.0.0.1:{port}/?tab=tree", timeout=30).read().decode()
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "<title>TTSR Workbench</title>" in html
    assert "a11y-dialog" in html and "bokeh-widgets" in html and "tabulator" in html
    assert "fast-components" not in html and "fast_design" not in html
