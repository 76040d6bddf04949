"""Screenshots of the app over ``sample_sessions/`` for the README tour (1400×900, headless chromium).

    .venv/bin/python docs/screenshots/take_tour.py

Writes ``tour-*.png`` next to this file. The e2e tests write the same views over their own small
fixtures (``sessions.png``, ``tree.png`` …); this script shows the richer sample data.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parents[1] / "sample_sessions"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]


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
            page = browser.new_page(viewport={"width": 1400, "height": 900})

            def shot(url: str, name: str, ready: str, *actions) -> None:
                page.goto(f"{base}?{url}")
                expect(page.locator(ready).first).to_be_visible()
                for act in actions:
                    act()
                page.wait_for_timeout(1500)
                page.screenshot(path=str(HERE / f"tour-{name}.png"))
                print("wrote", HERE / f"tour-{name}.png")

            shot("", "sessions", ".tabulator-row")
            shot("session=fix-auth.jsonl&tab=tree", "tree", ".wb-tree-row")
            shot("session=fix-auth.jsonl&tab=tree&filter=labeled-only", "tree-labeled", ".wb-tree-row")
            shot("session=fix-auth.jsonl&tab=stepper&stream=streams/tool-console-log.stream.jsonl", "stepper",
                 ".wb-step-position",
                 lambda: page.get_by_role("button", name="Next trigger ▶|").click(),
                 lambda: expect(page.locator(".wb-step-position")).to_contain_text("TRIGGER"))
            shot("session=fix-auth.jsonl&tab=rules&stream=streams/prose-unwrap.stream.jsonl", "rules", ".wb-rules",
                 lambda: expect(page.locator(".wb-rule-fires")).to_contain_text("fires at"))
            browser.close()
    finally:
        pn.state.kill_all_servers()


if __name__ == "__main__":
    main()
