"""A big served session whose first pass the server made ahead: the page's load reads it back and
makes none of its own, and the tree shows the same rows as without it.

The session (over 32 MB, tool results of 20 kB: left in the file, their heads in the pass) is written
"a minute ago", so that the keeper the server starts takes it. The test waits for the kept pass to
appear, then for the rows: events, never a fixed time.
"""

from __future__ import annotations

import os
import time

import pytest
from playwright.sync_api import expect

import workbench.sessions.loader as loader
from tests.ui.conftest import serving
from workbench.sessions.first_pass import ENV
from workbench.sessions.synthetic import generate_session_text
from workbench.ui.session_doc import SessionDoc, row_view

pytestmark = pytest.mark.e2e

ROW = ".wb-tree-row"


def test_a_pass_made_ahead_by_the_server_is_what_the_page_reads(page, tmp_path, monkeypatch):
    folder = tmp_path / "served"
    folder.mkdir()
    path = folder / "big.jsonl"
    path.write_text(generate_session_text(6000, tool_result_bytes=20_000), encoding="utf-8")
    assert path.stat().st_size > loader.LINE_BY_LINE_BYTES
    written = time.time() - 60
    os.utime(path, (written, written))
    passes = tmp_path / "passes"
    monkeypatch.setenv(ENV, str(passes))  # (the keeper inherits it)
    with serving([folder]) as url:
        deadline = time.monotonic() + 120
        while not list(passes.glob("*.pass")):  # the keeper's child made it, at its own pace
            assert time.monotonic() < deadline, "the server's keeper kept no first pass"
            time.sleep(0.05)
        made = []
        real = loader._add_line_starts
        monkeypatch.setattr(loader, "_add_line_starts", lambda *a: (made.append(a[3]), real(*a)))
        page.goto(f"{url}?session=big.jsonl&tab=tree")
        rows = page.locator(ROW)
        expect(rows.first).to_be_visible(timeout=120_000)
        assert not made, "the page's load made the first pass again"
        shown = rows.first.inner_text()
    monkeypatch.setenv(ENV, "off")
    fresh = [row_view(r) for r in SessionDoc(path).tree_list("default", "", None).rows()]
    assert any(r.text and r.text in shown for r in fresh), (shown, fresh[:3])
