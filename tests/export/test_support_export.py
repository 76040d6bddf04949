"""Edits and images in the export: the HTML page carries each edit's diff and the image rule's verdicts
(drawn by the viewer from the entry's own data), the Markdown carries the diffs as ``diff`` fences."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.sessions.subagent_family import PNG_WIDTH, write_family
from workbench.export import conversation_markdown, export_html, session_payload
from workbench.sessions import load_session


def _payload(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="workbench-data">(.*?)</script>', html, re.DOTALL)
    return json.loads(m.group(1))


def test_the_payload_carries_diffs_per_call_and_per_answered_result(tmp_path):
    session = load_session(write_family(tmp_path, big_image_bytes=3 * 1024 * 1024)["parent"])
    extras = session_payload(session)["extras"]
    [call] = extras["e-replace"]["diffs"]
    assert call["block"] == 0 and call["mode"] == "replace"
    assert [(r["kind"], r["text"]) for r in call["files"][0]["lines"]] == [
        ("context", "x = 1"), ("removed", "print('Hi')"), ("added", "print('Hello')")]
    [answered] = extras["r-e-hashline"]["diffs"]  # omp 18 shows the call's row as its result's
    assert answered["callEntry"] == "e-hashline" and answered["files"][0]["oldKnown"] is False
    assert {"e-patch", "e-apply", "e-sloppy", "e-write"} <= set(extras)
    images = extras["r-image"]["images"]
    assert [(i["block"], i["shown"]) for i in images] == [(1, True), (2, False), (3, False)]
    assert "src" not in images[0]  # the viewer reads the record's own data: an image is not carried twice
    assert images[2]["note"].startswith("image not shown: 3.0 MB")
    assert "u1" not in extras
    assert extras["r-task"]["subagents"] == [
        {"id": "0-Scout", "agent": "scout", "description": "find the bug", "file": "support-parent/0-Scout.jsonl"},
        {"id": "1-Gone", "agent": "reviewer", "description": "a file not kept", "file": None}]


def test_markdown_shows_each_edit_as_a_diff_fence(tmp_path):
    md = conversation_markdown(load_session(write_family(tmp_path)["parent"]))
    assert "**`src/app.py`** (edit, +1 −1)\n\n```diff\n x = 1\n-print('Hi')\n+print('Hello')\n```" in md
    assert "*hashline names the old lines by number only: their text is not in the call*" in md
    assert "```diff\n+first <b>item</b>\n+second item\n```" in md  # code, as the file has it
    assert "image not included in Markdown: image/png" in md


@pytest.mark.e2e
def test_the_exported_page_draws_the_diff_and_the_image_offline(tmp_path, page):
    paths = write_family(tmp_path / "s", big_image_bytes=3 * 1024 * 1024)
    out = export_html(tmp_path / "support.html", session=load_session(paths["parent"]))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.context.set_offline(True)
    page.goto(out.as_uri() + "#entry=r-e-replace")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    diff = page.locator(".extras .diff")
    expect(diff.locator(".diff-path")).to_have_text("src/app.py")
    expect(diff.locator(".diff-row.removed")).to_have_text(re.compile(r"print\('Hi'\)"))
    expect(diff.locator(".diff-row.added")).to_have_text(re.compile(r"print\('Hello'\)"))
    page.locator("ol.rows li", has_text="shot.png").click()
    img = page.locator(".extras img.shot")
    expect(img).to_have_count(1)
    assert img.get_attribute("src").startswith("data:image/png;base64,")
    assert page.evaluate("(i) => i.complete && i.naturalWidth", img.element_handle()) == PNG_WIDTH
    expect(page.locator(".extras .image-note")).to_have_count(2)
    expect(page.locator(".extras .image-note").last).to_contain_text("3.0 MB")
    if os.environ.get("WORKBENCH_SHOTS"):  # the picture for docs/screenshots
        page.set_viewport_size({"width": 1400, "height": 900})
        page.screenshot(path=str(Path(os.environ["WORKBENCH_SHOTS"]) / "export_image.png"))
    page.locator("ol.rows li", has_text="task").click()
    expect(page.locator(".extras .subagent").first).to_contain_text("its session: support-parent/0-Scout.jsonl")
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []  # nothing asked of a network
