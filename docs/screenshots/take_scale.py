"""Screenshots of the panels added for real sizes and problems (1400×900, headless chromium).

    .venv/bin/python docs/screenshots/take_scale.py

Serves ``sample_sessions/`` plus a generated 100,000-entry session (in a temporary folder, never
committed) and writes: ``landing.png`` (purpose and first step), ``help.png`` (the ``?`` panel),
``large_loading.png`` and ``large_tree.png`` (the 100k session arriving, then its windowed list and
graph), ``first_trigger.png`` (the first step's result), ``graph_branches.png`` (big-refactor's graph,
branches in view). ``problems.png`` is ``take_polish.py``'s (a problem clicked, at 1280 px).

Both folders are served from copies under ``shoot.STAGE`` (the samples by ``serve``, the large session
written there as ``large-session/``): the pictures name no checkout or random temporary path.
"""

from __future__ import annotations

import shutil
import sys

from shoot import HERE, SAMPLES, STAGE, launch, serve, stop

# the branch graph's figure is drawn (its title is on the canvas: no text to wait for in the page)
_GRAPH_DRAWN = """() => [...Bokeh.index.query(v => v.model.type == "Figure"
                     && String(v.model.title?.text ?? "").startsWith("Branch graph"))].length > 0"""


def main() -> None:
    sys.path.insert(0, str(HERE.parents[1]))
    from playwright.sync_api import expect, sync_playwright

    from workbench.sessions.synthetic import generate_session_text

    big = STAGE / "large-session"
    shutil.rmtree(big, ignore_errors=True)
    big.mkdir(parents=True)
    (big / "synthetic-100k.jsonl").write_text(generate_session_text(100_000), encoding="utf-8")
    base = serve([SAMPLES, big])
    expect.set_options(timeout=120_000)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(base)
            expect(page.locator(".wb-first-step")).to_be_visible()
            page.screenshot(path=str(HERE / "landing.png"))
            page.get_by_role("button", name="? Help").click()
            expect(page.locator(".wb-help").first).to_be_visible()
            page.screenshot(path=str(HERE / "help.png"))
            page.goto(base)
            page.get_by_role("button", name="First step: open the sample where a rule fires, at the trigger").click()
            expect(page.locator(".wb-step-position")).to_contain_text("TRIGGER")
            page.screenshot(path=str(HERE / "first_trigger.png"))
            page.goto(f"{base}?session=big-refactor.jsonl&tab=tree")
            expect(page.locator(".wb-tree-row").first).to_be_visible()
            page.wait_for_function(_GRAPH_DRAWN)
            page.wait_for_timeout(1000)  # the canvas paints after its figure is made
            page.screenshot(path=str(HERE / "graph_branches.png"))
            page.goto(f"{base}?session=synthetic-100k.jsonl&tab=tree")
            expect(page.locator(".wb-tree-progress-text")).to_be_visible()
            page.screenshot(path=str(HERE / "large_loading.png"))
            expect(page.locator(".wb-tree-row").first).to_be_visible()
            expect(page.locator(".wb-entry")).to_contain_text("id ")
            page.wait_for_function(_GRAPH_DRAWN, timeout=120_000)
            page.wait_for_timeout(1000)
            page.screenshot(path=str(HERE / "large_tree.png"))
            browser.close()
    finally:
        stop()
        shutil.rmtree(big, ignore_errors=True)


if __name__ == "__main__":
    main()
