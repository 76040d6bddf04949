"""A big session in the browser: "indexing…" in the tree's count while the search index builds, and
the Stepper's first step from the tree's loaded session, its derived stream built turn by turn.

The session (20,000 entries with large tool results, over 32 MB: the loader decodes it line by line)
is generated into a temporary folder. The index build is held back until the test has seen
"indexing…", so the test waits for events, never for a time.
"""

from __future__ import annotations

import re
import shutil
import threading

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving
from workbench.sessions.synthetic import generate_session_text
from workbench.tree.treesearch import TreeSearch

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"
N = 20_000


@pytest.fixture(scope="module")
def gate():
    """Holds every background index build until set (then they run as they always do)."""
    release = threading.Event()
    original = TreeSearch._build_in_background

    def held(self):
        release.wait(120)
        original(self)

    TreeSearch._build_in_background = held  # type: ignore[method-assign]
    try:
        yield release
    finally:
        release.set()
        TreeSearch._build_in_background = original  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def big_url(tmp_path_factory, gate):
    folder = tmp_path_factory.mktemp("big") / "served"
    shutil.copytree(FIXTURES, folder)
    (folder / "big.jsonl").write_text(generate_session_text(N, tool_result_bytes=6000), encoding="utf-8")
    assert (folder / "big.jsonl").stat().st_size > 32 << 20
    with serving([folder]) as url:
        yield url, folder / "big.jsonl"


def test_count_says_indexing_until_the_index_is_built_then_the_stepper_shows_step_1(page, big_url, gate, shot):
    from workbench.ui.session_doc import SessionDoc

    url, path = big_url
    page.goto(f"{url}?session=big.jsonl&tab=tree&rules=project")
    expect(page.locator(ROW).first).to_be_visible(timeout=120_000)
    count = page.locator(".wb-count")
    expect(count).to_contain_text("indexing…")
    expect(count).to_contain_text(re.compile(r"[\d,]+/20,000 shown"))
    shot(page, "big-session-indexing")
    gate.set()  # the build runs now; the count is redrawn when it ends
    expect(count).not_to_contain_text("indexing", timeout=60_000)
    expect(count).to_contain_text("/20,000 shown")
    # a search answers from the built index: the counter shows the server's answer (computed here too)
    page.get_by_placeholder("Search", exact=True).press_sequentially("module42")
    expected = SessionDoc(path).tree_list("default", "module42", None).visible_count
    # (the count may be followed by the note on which match the search selected)
    expect(count).to_contain_text(re.compile(rf"^\s*{expected:,}/20,000 shown(?![\d,])"), timeout=60_000)
    # the Stepper derives from the loaded session, turn by turn: its first steps show at once
    page.locator(".bk-tab", has_text="Stepper").first.click()
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 0 /", timeout=120_000)
    expect(position).to_contain_text("big.jsonl re-chunked by words")
    page.get_by_role("button", name="Step ▶").click()
    expect(position).to_contain_text("step 1 /")
    path = shot(page, "big-session-stepper")
    assert path.stat().st_size > 0
    expect(page.locator("body")).not_to_contain_text("Traceback")
