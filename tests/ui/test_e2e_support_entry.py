"""Browser tests of what a support engineer reads in the Entry view: an edit's diff, an image of a tool
result, a subagent opened from its parent's entry (and back), and the export's redaction preview."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.sessions.subagent_family import MAIL, PNG_WIDTH, SECRET, write_family
from tests.ui.conftest import serving

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"
# screenshots for docs/screenshots when asked (WORKBENCH_SHOTS=folder), else under pytest's temp folder
SHOTS = os.environ.get("WORKBENCH_SHOTS")


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    folder = tmp_path_factory.mktemp("support")
    paths = write_family(folder, big_image_bytes=3 * 1024 * 1024)
    before = {p: p.read_bytes() for p in (paths["parent"], paths["child"])}
    with serving([folder]) as url:
        yield url, paths
    assert {p: p.read_bytes() for p in before} == before  # the session files are never changed


def _shot(page, shot, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))
    else:
        shot(page, name)


def _open(page, url, leaf: str, session: str = "support-parent.jsonl"):
    page.goto(f"{url}?session={session}&tab=tree&leaf={leaf}&filter=all")
    expect(page.locator(ROW).first).to_be_visible(timeout=30_000)
    expect(page.locator(".wb-entry")).to_contain_text(leaf)


@pytest.mark.parametrize("width", [1280, 1400])
def test_an_edit_shows_as_a_diff_of_the_files_lines(page, family, shot, width):
    url, _ = family
    page.set_viewport_size({"width": width, "height": 900})
    _open(page, url, "r-e-replace")
    diff = page.locator(".wb-entry-pane .wb-diff")
    expect(diff.locator(".wb-diff-path")).to_have_text("src/app.py")
    expect(diff.locator(".wb-diff-removed")).to_have_text(re.compile(r"print\('Hi'\)"))
    expect(diff.locator(".wb-diff-added")).to_have_text(re.compile(r"print\('Hello'\)"))
    expect(diff.locator(".wb-diff-context")).to_have_text(re.compile("x = 1"))
    _shot(page, shot, f"entry_diff_{width}")
    _open(page, url, "r-e-hashline")  # no old text in the payload: anchors, new lines and a note
    expect(page.locator(".wb-entry-pane .wb-diff-note")).to_contain_text("not in the call")
    expect(page.locator(".wb-entry-pane .wb-diff-hunk").first).to_contain_text("replaces lines 3–4")
    expect(page.locator(".wb-entry-pane .wb-diff-removed")).to_have_count(0)
    _open(page, url, "r-e-write")  # escaped: the <b> of the content is text
    expect(page.locator(".wb-entry-pane .wb-diff-added").first).to_have_text(re.compile(r"first <b>item</b>"))
    expect(page.locator(".wb-entry-pane .wb-diff b", has_text="item")).to_have_count(0)


def test_an_image_of_a_tool_result_is_shown_from_its_own_data(page, family, shot):
    url, _ = family
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    _open(page, url, "r-image")
    image = page.locator(".wb-entry img.wb-image")
    expect(image).to_have_count(1)
    assert image.get_attribute("src").startswith("data:image/png;base64,iVBORw0KGgo")
    assert page.evaluate("(img) => img.complete && img.naturalWidth", image.element_handle()) == PNG_WIDTH
    notes = page.locator(".wb-entry-pane .wb-image-note")
    expect(notes.filter(has_text="image/svg+xml")).to_have_count(1)  # not an allowed type
    expect(notes.filter(has_text="image not shown: 3.0 MB")).to_have_count(1)  # above the cap
    _shot(page, shot, "entry_image")
    # nothing asked of any other host (Bokeh's own blob: workers are the page's)
    assert not [u for u in requests if urlsplit(u.removeprefix("blob:")).hostname not in ("127.0.0.1", None)]


def test_a_subagent_opens_from_its_parents_entry_and_links_back(clean_page, family, shot):
    # clean_page: the buttons join the page after its first document; unacknowledged, their first
    # click carried a full copy of them ("reference already known") and was once lost in CI
    page, (url, _) = clean_page, family
    _open(page, url, "r-task")
    expect(page.locator(".wb-child-note")).to_contain_text("2 subagent(s)")
    expect(page.locator(".wb-child-note")).to_contain_text("1-Gone (reviewer)")  # named, file not kept
    # the branch's usage rolls the subagent up and shows it apart: 8 own messages of 110 tokens, $0.50
    # each, and the child's one of 44 tokens, $0.25
    usage = page.locator(".wb-entry-pane .wb-branch-usage")
    expect(usage).to_contain_text("Usage on this branch (subagents included): 9 assistant message(s)")
    expect(usage).to_contain_text("total 924 · cost $4.2500")
    expect(usage).to_contain_text("this session alone: 8 assistant message(s)")
    expect(usage).to_contain_text("subagent 0-Scout (scout): 1 assistant message(s)")
    expect(usage).to_contain_text("total 44 · cost $0.2500")
    expect(usage).to_contain_text("1-Gone (reviewer)")
    usage.scroll_into_view_if_needed()
    _shot(page, shot, "entry_subagents")
    _open(page, url, "r-image")  # before the task ran: no subagent on this branch yet
    expect(page.locator(".wb-entry-pane .wb-branch-usage")).to_contain_text("Usage on this branch: 7 assistant message(s)")
    expect(page.locator(".wb-entry-pane .wb-branch-usage")).not_to_contain_text("subagent")
    _open(page, url, "r-task")
    page.get_by_role("button", name=re.compile(r"Open subagent 0-Scout \(scout\)")).click()
    expect(page).to_have_url(re.compile(r"session=support-parent%2F0-Scout\.jsonl|session=support-parent/0-Scout\.jsonl"))
    expect(page.locator(ROW, has_text="found it")).to_be_visible(timeout=30_000)
    expect(page.locator(".wb-parent-note")).to_contain_text("support-parent.jsonl")
    _shot(page, shot, "entry_child")
    page.get_by_role("button", name=re.compile(r"Open parent session support-parent\.jsonl")).click()
    expect(page).to_have_url(re.compile(r"session=support-parent\.jsonl"))
    expect(page.locator(ROW, has_text="fix it").first).to_be_visible(timeout=30_000)


def test_the_export_previews_what_it_redacts_and_downloads_the_redacted_copy(page, family, shot, tmp_path):
    url, paths = family
    _open(page, url, "u1")
    page.get_by_role("button", name="Export…").click()
    page.locator(".wb-redact-on input").check()
    preview = page.locator(".wb-redact-preview")
    expect(preview.locator(".wb-redact-count")).to_contain_text("email 1", timeout=60_000)
    expect(preview).to_contain_text("api-key")
    expect(preview).to_contain_text(SECRET)
    expect(preview).to_contain_text(MAIL)
    page.locator(".wb-redact-patterns textarea").fill(r"src/\w+\.py")
    page.locator(".wb-redact-patterns textarea").press("Tab")  # the text area sends its value on change
    page.get_by_role("button", name="Preview redaction").click()
    expect(preview.locator(".wb-redact-count")).to_contain_text("pattern")
    expect(preview).to_contain_text("src/app.py")
    _shot(page, shot, "export_redact")
    with page.expect_download(timeout=60_000) as info:
        page.locator(".wb-export").get_by_text("Export redacted HTML").click()
    out = tmp_path / info.value.suggested_filename
    info.value.save_as(out)
    text = out.read_text(encoding="utf-8")
    assert out.name.endswith("-redacted.html")
    assert SECRET not in text and MAIL not in text and "src/app.py" not in text and "[redacted:api-key]" in text


PI_EDIT = [  # a pi session (v3): pi's edit tool names its texts oldText/newText
    {"type": "session", "version": 3, "id": "pi-edit", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/w"},
    {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-30T10:00:00Z",
     "message": {"role": "user", "content": [{"type": "text", "text": "rename the getter"}]}},
    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-11-30T10:00:01Z",
     "message": {"role": "assistant", "provider": "anthropic", "model": "claude-opus-4-5", "content": [
         {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {
             "path": "src/session.ts", "oldText": "class S {\n  get messages(): Message[];\n}",
             "newText": "class S {\n  get messages(): AppMessage[];  // <b>custom</b> types\n}"}}],
         "stopReason": "toolUse"}},
    {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-11-30T10:00:02Z",
     "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "edit", "isError": False,
                 "content": [{"type": "text", "text": "Successfully replaced text in src/session.ts."}]}},
]


@pytest.fixture(scope="module")
def pi_folder(tmp_path_factory):
    import json

    folder = tmp_path_factory.mktemp("pi")
    path = folder / "pi-edit.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in PI_EDIT), encoding="utf-8")
    before = path.read_bytes()
    with serving([folder]) as url:
        yield url
    assert path.read_bytes() == before


@pytest.mark.parametrize("width", [1280, 1400])
def test_a_pi_edit_shows_as_a_diff_of_its_old_and_new_text(clean_page, pi_folder, shot, width):
    # every edit of a real pi session read as an empty "+0 −0 (no lines yet)" part before
    page = clean_page
    page.set_viewport_size({"width": width, "height": 900})
    _open(page, pi_folder, "a1", session="pi-edit.jsonl")
    diff = page.locator(".wb-entry-pane .wb-diff")
    expect(diff.locator(".wb-diff-path")).to_have_text("src/session.ts")
    expect(diff.locator(".wb-diff-removed")).to_have_text(re.compile(r"get messages\(\): Message\[\];"))
    expect(diff.locator(".wb-diff-added")).to_have_text(re.compile(r"AppMessage\[\];  // <b>custom</b> types"))
    expect(diff.locator(".wb-diff-context")).to_have_count(2)
    expect(diff.locator("b", has_text="custom")).to_have_count(0)  # the session's markup stays text
    _open(page, pi_folder, "r1", session="pi-edit.jsonl")  # the result's Entry view shows the call's diff
    expect(page.locator(".wb-entry-pane .wb-diff-added")).to_have_text(re.compile("AppMessage"))
    _shot(page, shot, f"entry_diff_pi_{width}")
