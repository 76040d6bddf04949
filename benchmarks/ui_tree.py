"""How the Tree tab holds up on a large session: first view, filter change, search keystrokes.

Prints figures; never asserts. ``--browser`` also serves the app and measures, in headless chromium,
the time from navigation to the first tree row and from a keystroke in the search box to the
filtered list.

    .venv/bin/python benchmarks/ui_tree.py --entries 1000 [--browser]
    .venv/bin/python benchmarks/ui_tree.py --session sample_sessions/big-refactor.jsonl --browser
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def _session(n: int, folder: Path) -> Path:
    from workbench.sessions.synthetic import generate_session_text

    path = folder / f"synthetic-{n}.jsonl"
    path.write_text(generate_session_text(n, branch_every=max(20, n // 20)), encoding="utf-8")
    return path


def python_side(path: Path) -> None:
    from workbench.ui.tree_view import TreeView

    t0 = time.perf_counter()
    view = TreeView.from_path(path)
    first = time.perf_counter() - t0
    print(f"first view (load + list + graph + entry): {first * 1000:.0f} ms, {len(view.rows.rows)} rows")
    for mode in ("no-tools", "user-only", "all", "default"):
        t0 = time.perf_counter()
        view.state.filter = mode
        print(f"filter -> {mode:<12} {(time.perf_counter() - t0) * 1000:6.1f} ms  ({len(view.rows.rows)} rows)")
    times = []
    for q in ("u", "us", "use", "user", "user 1", "user 12"):
        t0 = time.perf_counter()
        view.state.q = q
        times.append((time.perf_counter() - t0) * 1000)
    print(f"search keystroke: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        view._on_message({"kind": "key", "key": "arrowup"})
        times.append((time.perf_counter() - t0) * 1000)
    print(f"Up key (selection + entry + context): median {statistics.median(times):.1f} ms")


def browser_side(path: Path) -> None:
    import socket

    import panel as pn
    from playwright.sync_api import sync_playwright

    from workbench.ui.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app([path.parent])
    pn.serve({"app": app}, port=port, address="127.0.0.1", websocket_origin=[f"127.0.0.1:{port}"], threaded=True,
             show=False)
    time.sleep(1.5)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            # three loads each: the first includes the browser's cold start (scripts, fonts, caches)
            for what, url, ready in (
                ("first Sessions table row (default page)", "", ".wb-sessions-table .tabulator-row"),
                ("first tree row", f"?session={path.name}&tab=tree", ".wb-tree-row"),
            ):
                times = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    page.goto(f"http://127.0.0.1:{port}/app{url}")
                    page.locator(ready).first.wait_for(timeout=60_000)
                    times.append(time.perf_counter() - t0)
                print(f"browser: navigation -> {what}: " + ", ".join(f"{t:.2f}" for t in times) + " s")
            print(f"browser: {page.locator('.wb-tree-row').count()} tree rows drawn")
            box = page.get_by_placeholder("Search", exact=True)
            box.click()
            t0 = time.perf_counter()
            box.press_sequentially("user 1")
            page.wait_for_function("() => true")
            page.locator(".wb-count").filter(has_text="/").wait_for()
            before = page.locator(".wb-tree-row").count()
            deadline = time.time() + 10
            while time.time() < deadline:
                now = page.locator(".wb-tree-row").count()
                if now != before or now < 1000:
                    break
                time.sleep(0.02)
            print(f"browser: typing 'user 1' -> filtered list {time.perf_counter() - t0:.2f} s "
                  f"({page.locator('.wb-tree-row').count()} rows)")
            browser.close()
    finally:
        pn.state.kill_all_servers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--session", type=Path, help="measure this session file instead of a synthetic one "
                        "(its folder is served)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.session.resolve() if args.session else _session(args.entries, Path(tmp))
        print(f"session: {path.name}, {path.stat().st_size / 1e6:.2f} MB")
        python_side(path)
        if args.browser:
            browser_side(path)


if __name__ == "__main__":
    main()
