"""Screenshots of the views changed for issue 27 over ``sample_sessions/`` (headless chromium).

    .venv/bin/python docs/screenshots/take_polish.py

Writes ``problems.png`` (1280 px: the status naming the first problems, a click on a skipped line
and what it selected), ``problems_1400.png``, and the views in a notebook's width (970 px):
``narrow_tree.png``, ``narrow_stepper.png``, ``narrow_rules.png``; ``timeline_legend.png`` shows a
legend whose every item has its marker.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parents[1] / "sample_sessions"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> None:
    import panel as pn
    from playwright.sync_api import expect, sync_playwright

    from workbench.ui.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pn.serve({"app": create_app([SAMPLES])}, port=port, address="127.0.0.1",
             websocket_origin=[f"127.0.0.1:{port}"], threaded=True, show=False)
    time.sleep(1.5)
    base = f"http://127.0.0.1:{port}/app"
    expect.set_options(timeout=60_000)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_FLAGS)

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
        pn.state.kill_all_servers()


if __name__ == "__main__":
    main()
