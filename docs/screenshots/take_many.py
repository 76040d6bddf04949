"""Screenshots of the views for many sessions, at 1400 and 1280 px wide (headless chromium).

    .venv/bin/python docs/screenshots/take_many.py

Serves ``sample_sessions/`` plus 3,000 generated sessions (``workbench.sessions.synthetic.write_corpus``,
in a temporary folder, never committed) and writes, for each width W in 1400 and 1280:
``many_sessions_W.png`` (the Sessions table with its total), ``session_picker_W.png`` (the header's
picker, "billing" typed), ``search_hits_W.png`` (the live search's count and hits) and ``usage_W.png``
(the Usage tab by model, with its chart and the judge calls per rule).
"""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parents[1] / "sample_sessions"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
COUNT = 3000


def main() -> None:
    sys.path.insert(0, str(HERE.parents[1]))
    import panel as pn
    from playwright.sync_api import expect, sync_playwright

    from workbench.sessions.synthetic import write_corpus
    from workbench.ui.app import create_app

    archive = Path(tempfile.mkdtemp(prefix="wb-many-"))
    write_corpus(archive, COUNT)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pn.serve({"app": create_app([SAMPLES, archive])}, port=port, address="127.0.0.1",
             websocket_origin=[f"127.0.0.1:{port}"], threaded=True, show=False)
    time.sleep(2)
    base = f"http://127.0.0.1:{port}/app"
    expect.set_options(timeout=120_000)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_FLAGS)
            for width in (1400, 1280):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(base)
                expect(page.locator(".wb-sessions-table .tabulator-row").first).to_be_visible()
                page.locator(".wb-sessions-total").scroll_into_view_if_needed()
                page.screenshot(path=str(HERE / f"many_sessions_{width}.png"))
                box = page.locator(".wb-global-search input")
                box.scroll_into_view_if_needed()
                box.press_sequentially("task 1207")
                expect(page.locator(".wb-hit-count")).to_contain_text("hit(s)")
                expect(page.locator(".wb-search-hits .tabulator-row").first).to_be_visible()
                page.locator(".wb-search-hits").scroll_into_view_if_needed()
                page.screenshot(path=str(HERE / f"search_hits_{width}.png"))
                page.goto(base)
                picker = page.locator(".wb-session-picker input")
                picker.fill("")
                picker.press_sequentially("billing")
                expect(page.locator(".wb-session-picker .bk-menu > div").first).to_be_visible()
                page.screenshot(path=str(HERE / f"session_picker_{width}.png"))
                page.goto(f"{base}?tab=usage")
                expect(page.locator(".wb-usage-chart canvas").first).to_be_visible()
                expect(page.locator(".wb-usage-judge .tabulator-row").first).to_be_visible()
                page.screenshot(path=str(HERE / f"usage_{width}.png"))
                page.close()
            browser.close()
    finally:
        pn.state.kill_all_servers()
        shutil.rmtree(archive, ignore_errors=True)


if __name__ == "__main__":
    main()
