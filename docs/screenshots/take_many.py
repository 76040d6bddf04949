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
import sys
import tempfile
from pathlib import Path

from shoot import HERE, SAMPLES, launch, serve, stop

COUNT = 3000


def main() -> None:
    sys.path.insert(0, str(HERE.parents[1]))
    from playwright.sync_api import expect, sync_playwright

    from workbench.sessions.synthetic import write_corpus

    archive = Path(tempfile.mkdtemp(prefix="wb-many-"))
    write_corpus(archive, COUNT)
    base = serve([SAMPLES, archive])
    expect.set_options(timeout=120_000)
    try:
        with sync_playwright() as p:
            browser = launch(p)
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
        stop()
        shutil.rmtree(archive, ignore_errors=True)


if __name__ == "__main__":
    main()
