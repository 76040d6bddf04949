"""The served page talks to 127.0.0.1 only: no font CDN, no script CDN, nothing else."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def _host(url: str) -> str | None:
    """The host a request goes to (``blob:`` URLs carry their origin; ``data:`` never leaves the page)."""
    if url.startswith("data:"):
        return None
    if url.startswith("blob:"):
        url = url[len("blob:"):]
    return urlsplit(url).hostname


def test_every_request_of_a_full_load_goes_to_localhost(page, app_url):
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    page.on("websocket", lambda ws: urls.append(ws.url))
    page.goto(app_url)
    expect(page.locator(".wb-sessions-table .tabulator-row").first).to_be_visible()
    # open every tab once: each may pull its own resources (Tabulator, Bokeh canvas, fonts)
    for tab, shown in (("Tree", ".wb-tree-status"), ("Stepper", ".wb-step-position"), ("Rules", ".wb-rules"),
                       ("Backtest", ".wb-backtest-status"), ("Sessions", ".wb-sessions-table")):
        page.locator(".bk-tab", has_text=tab).first.click()
        expect(page).to_have_url(re.compile(rf"tab={tab.lower()}"))  # the server has taken the switch
        expect(page.locator(shown).first).to_be_attached()
    page.wait_for_load_state("networkidle")
    assert any(u.startswith("ws://127.0.0.1") for u in urls)  # the recorder saw the live connection
    outside = sorted({u for u in urls if _host(u) not in (None, "127.0.0.1")})
    assert outside == []
