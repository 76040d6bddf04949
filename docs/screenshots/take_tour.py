"""Screenshots of the app over ``sample_sessions/`` for the README tour (1400×900, headless chromium).

    .venv/bin/python docs/screenshots/take_tour.py

Writes the README's images next to this file (``sessions.png``, ``tree.png``, ``entry.png``,
``stepper.png``, ``keep_discard.png``, ``rules.png``, ``backtest.png``, ``tree_labeled.png``), all over
the sample data. The e2e tests keep their own screenshots of the small fixtures in pytest's temp folder.
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
            page = browser.new_page(viewport={"width": 1400, "height": 900})

            def shot(url: str, name: str, ready: str, *actions) -> None:
                page.goto(f"{base}?{url}")
                expect(page.locator(ready).first).to_be_visible()
                for act in actions:
                    act()
                page.wait_for_timeout(1500)
                page.screenshot(path=str(HERE / f"{name}.png"))
                print("wrote", HERE / f"{name}.png")

            def trigger_shown() -> None:
                # the rules' time-bound check runs first (its progress shows in the position line)
                expect(page.locator(".wb-step-position")).to_contain_text("step 0 /")
                expect(page.locator(".wb-step-position")).not_to_contain_text("working")
                page.get_by_role("button", name="Next trigger ▶|").click()
                expect(page.locator(".wb-step-position")).to_contain_text("TRIGGER")

            shot("", "sessions", ".tabulator-row")
            shot("session=fix-auth.jsonl&tab=tree", "tree", ".wb-tree-row")
            shot("session=fix-auth.jsonl&tab=tree&filter=labeled-only", "tree_labeled", ".wb-tree-row")
            # an assistant turn with thinking, text, a tool call and usage
            shot("session=fix-auth.jsonl&tab=tree&leaf=b72d0276", "entry", ".wb-entry",
                 lambda: expect(page.locator(".wb-entry")).to_contain_text("tool call"))
            stepper = "session=fix-auth.jsonl&tab=stepper&stream=streams/tool-console-log.stream.jsonl&rules=project"
            shot(stepper, "stepper", ".wb-step-position", trigger_shown)
            shot(stepper, "keep_discard", ".wb-step-position", trigger_shown,
                 # scroll the page (not the cards) so that Events, Keep and Discard fill the view
                 lambda: page.locator(".wb-step-position").hover(),
                 lambda: page.mouse.wheel(0, 330))
            # the stream the Stepper shots use: its rule (no-console-log, the Rules tab's first) fires there
            shot("session=fix-auth.jsonl&tab=rules&stream=streams/tool-console-log.stream.jsonl&rules=project", "rules",
                 ".wb-rules", lambda: expect(page.locator(".wb-rule-fires")).to_contain_text("fires at"))
            shot("tab=backtest&rules=project", "backtest", ".wb-backtest-status",
                 lambda: page.get_by_role("button", name="Run backtest over the served sessions").click(),
                 lambda: expect(page.locator(".wb-backtest-status")).to_contain_text("hit(s) in", timeout=240_000))
            browser.close()
    finally:
        stop()


if __name__ == "__main__":
    main()
