"""Screenshots of the views changed for issue 27 over ``sample_sessions/`` (headless chromium).

    .venv/bin/python docs/screenshots/take_polish.py

Writes ``problems.png`` (1280 px: the status naming the first problems, a click on a skipped line
and what it selected), ``problems_1400.png``, and the views in a notebook's width (970 px):
``narrow_tree.png``, ``narrow_stepper.png``, ``narrow_rules.png``; ``timeline_legend.png`` shows a
legend whose every item has its marker.
"""

from __future__ import annotations

from shoot import HERE, SAMPLES, launch, serve, stop


def main() -> None:
    from playwright.sync_api import expect, sync_playwright

    base = serve([SAMPLES])
    expect.set_options(timeout=60_000)
    try:
        with sync_playwright() as p:
            browser = launch(p)

            def shot(width: int, url: str, name: str, ready: str, *actions) -> None:
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(f"{base}?{url}")
                expect(page.locator(ready).first).to_be_visible()
                for act in actions:
                    act(page)
                page.wait_for_timeout(1500)
                page.screenshot(path=str(HERE / f"{name}.png"))
                page.close()
                print("wrote", HERE / f"{name}.png")

            def problem_clicked(page) -> None:
                page.locator(".bk-tab", has_text="Problems").first.click()
                page.locator(".wb-problems .tabulator-row", has_text="broken-line.jsonl:7").first.click()
                expect(page.locator(".wb-problem-picked")).to_contain_text("line 7")
                page.locator(".bk-tab", has_text="Problems").first.click()

            def stepped(page) -> None:
                expect(page.locator(".wb-step-position")).not_to_contain_text("working")
                page.get_by_role("button", name="Next trigger ▶|").click()
                expect(page.locator(".wb-step-position")).to_contain_text("TRIGGER")

            tree = "session=broken-line.jsonl&tab=tree"
            shot(1280, tree, "problems", ".wb-tree-row", problem_clicked)
            shot(1400, tree, "problems_1400", ".wb-tree-row", problem_clicked)
            shot(970, "session=big-refactor.jsonl&tab=tree", "narrow_tree", ".wb-tree-row")
            shot(970, "session=ttsr-fired.jsonl&tab=stepper", "narrow_stepper", ".wb-step-position", stepped)
            shot(970, "session=ttsr-fired.jsonl&tab=rules&rules=project", "narrow_rules", ".wb-bundled")
            shot(1280, "session=ttsr-fired.jsonl&tab=timeline", "timeline_legend", ".wb-tl-plot canvas")
            browser.close()
    finally:
        stop()


if __name__ == "__main__":
    main()
