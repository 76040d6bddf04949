"""Browser timings of the app at real sizes, as ratios against a small session (prints; never asserts).

In headless chromium against an in-process server over a generated small session (``--small``
entries, default 1,000) and a large one (``--large``, default 100,000):

- first row: navigation to the Tree tab → the first list row drawn;
- keystroke: one character typed in the search box → the "N/M shown" counter updated;
- second user's load: another browser context's navigation → first row, idle and while the first
  user opens the large session (a long action on the same server);
- where the small session's first row waits (a warm page, bundles cached): the HTML document
  (server-side, the page's own build), the scripts run (DOMContentLoaded), the websocket open,
  then the document pulled over it and drawn, the list with it (printed as shares of the whole);
- the bundled ``sample_sessions/`` served as ``bash scripts/serve`` serves them (``workbench serve``
  in a process of its own, measured first), warm pages, best and median of ``--runs`` loads made
  one at a time (each page settles before the next): the tree of the session a new page opens
  (``?tab=tree``), the tree of the largest sample, and the landing page (the Sessions table's
  first row), taking turns with the floor: a page with nothing of the app, Panel's layouts as the
  app's frame uses them around two tabs and one HTML pane (what any Panel page of that shape costs
  on this machine at that moment; each sample's median is also printed as a ratio to it);
- server memory (RSS of this process, which hosts the server) before and after the large session
  is open in a browser.

    .venv/bin/python benchmarks/ui_browser.py [--small 1000] [--large 100000] [--runs 5]

``--big`` measures big sessions instead (issue 25), against ``workbench serve`` in a process of its
own, whose memory is read from ``/proc/PID/status`` (VmRSS; VmHWM for the peak): a session with
large tool results (``--big-mb``, default 240 MB, about 24,000 entries; ``--big-mb 1000`` for 1 GB)
and a 100,000-entry one, generated once into ``--cache`` (default ``~/.cache/ttsr-workbench/bench``,
outside git). Printed: the server's memory before any session is open, with the big one open in the
Tree tab and then in the Stepper tab (ratios to the file's size); the first row of the big session
against a 1,000-entry one, at its first open (the server starts with an empty cache of first passes,
which its keeper fills at the lowest priority; printed: whether the pass was kept before the page
opened; ``--no-pass-cache`` serves without any) and opened again in a new page; the Stepper's first
step on the 100k session, alone and while a second user's page loads, against that page's idle load
(every page in a warm browser context, each 5 s after the pages before it closed); a search typed
right after the 100k session opens, answered when the count shows the query's match count (worked out
in this process) without "indexing…", and whether "indexing…" was shown at the first row. The load average is printed at the start and end.

    .venv/bin/python benchmarks/ui_browser.py --big [--big-mb 240] [--cache DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROW = ".wb-tree-row"
TABLE_ROW = ".wb-sessions-table .tabulator-row"
SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
SAMPLE_PAGES = [("tree of the session a page opens", "?tab=tree", ROW),
                ("tree of big-refactor (969 lines)", "?session=big-refactor.jsonl&tab=tree", ROW),
                ("landing: Sessions table", "", TABLE_ROW)]
GOAL_FIRST_ROW = 1.5  # seconds, issue 15
FLOOR_LABEL = "floor: Panel's layouts + 2 tabs, no app"
SETTLE = 1.5  # seconds a warm-loaded page stays open before the next load (see warm_loads)
BUILDS: list[float] = []  # seconds of each build_page (one per browser session)
_PERF = """() => { const n = performance.getEntriesByType('navigation')[0];
  const r = performance.getEntriesByType('resource');
  return {doc: n.responseEnd / 1000, dcl: n.domContentLoadedEventEnd / 1000,
          fetched: r.filter(x => x.transferSize > 0).length, resources: r.length}; }"""


def warm_loads(context, targets: list[tuple[str, str, str]], runs: int) -> dict[str, list[float]]:
    """Seconds from navigation to the selector drawn, per ``(label, url, selector)``, ``runs`` times
    after one warm-up load each. The targets take turns (one load of each per round), so every one
    of them meets the machine at the same speeds: measured one after the other, minutes apart, a
    page and its floor were read against different machines."""
    times: dict[str, list[float]] = {label: [] for label, _, _ in targets}
    for i in range(runs + 1):
        for label, url, selector in targets:
            page = context.new_page()
            page.set_default_timeout(300_000)
            t0 = time.perf_counter()
            page.goto(url)
            page.locator(selector).first.wait_for()
            if i:
                times[label].append(time.perf_counter() - t0)
            # one navigation at a time, as one user makes them: the page's follow-up work (the graph
            # and the conversation, built once the list is drawn) ends, and its closed session is let
            # go, before the next load starts; back to back, that work ran during the next load's wait
            time.sleep(SETTLE)
            page.close()
            time.sleep(SETTLE / 3)
    return times


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(url: str) -> None:
    for _ in range(600):
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            time.sleep(0.1)


def _serve(folder: Path) -> str:
    import panel as pn

    from workbench.ui.app import create_app

    port = _free_port()
    app = create_app([folder])

    def timed() -> object:  # the per-session document build, inside the page's HTTP request
        t = time.perf_counter()
        page = app()
        BUILDS.append(time.perf_counter() - t)
        return page

    pn.serve({"app": timed}, port=port, address="127.0.0.1", websocket_origin=[f"127.0.0.1:{port}"],
             threaded=True, show=False, liveness=True)
    base = f"http://127.0.0.1:{port}"
    _wait_until_up(f"{base}/liveness")
    return f"{base}/app"


@contextlib.contextmanager
def _serving_process(command: list[str], url: str):
    """Run the server ``command`` in a process of its own until the block ends; yields ``url`` once it answers."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until_up(url)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def served_samples():
    """``workbench serve sample_sessions`` in a process of its own, as the README's first command
    runs it (no benchmark threads or other sessions beside it); yields its URL."""
    port = _free_port()
    return _serving_process([sys.executable, "-m", "workbench", "serve", str(SAMPLES), "--port", str(port),
                             "--no-show"], f"http://127.0.0.1:{port}")


def serve_floor(port: int) -> None:
    """Serve the floor page and block: Panel's layouts as the app's frame uses them (a header row with
    two widgets above two tabs, one HTML pane), with the app's bundles (no MathJax, no WebGL) and
    nothing else of the app."""
    import panel as pn

    from workbench.ui import page_bundles

    pn.extension("tabulator", "modal", notifications=True)
    page_bundles.install()

    def page() -> object:
        pane = pn.pane.HTML('<div class="wb-floor">nothing of the app</div>')
        header = pn.Row(pn.widgets.Select(options=["a", "b"]), pn.widgets.Button(label="b"), height=62)
        return pn.Column(header, pn.Tabs(("a", pane), ("b", pn.Column())), sizing_mode="stretch_both")

    pn.serve({"floor": page}, port=port, address="127.0.0.1", websocket_origin=[f"127.0.0.1:{port}"], show=False)


def served_floor():
    """``serve_floor`` in a process of its own, like the samples' server; yields the page's URL."""
    port = _free_port()
    return _serving_process([sys.executable, __file__, "--floor-server", str(port)], f"http://127.0.0.1:{port}/floor")


def first_row(context, url: str, session: str) -> tuple[float, object]:
    print(f"  loading {session} …", file=sys.stderr, flush=True)
    page = context.new_page()
    page.set_default_timeout(300_000)
    t0 = time.perf_counter()
    page.goto(f"{url}?session={session}&tab=tree")
    page.locator(ROW).first.wait_for()
    return time.perf_counter() - t0, page


def phases(context, url: str, session: str) -> dict[str, float]:
    """One more warm load of ``session``, split where the browser waits (seconds from navigation)."""
    page = context.new_page()
    page.set_default_timeout(300_000)
    opened: list[float] = []
    page.on("websocket", lambda ws: opened.append(time.perf_counter()))
    t0 = time.perf_counter()
    page.goto(f"{url}?session={session}&tab=tree")
    page.locator(ROW).first.wait_for()
    row = time.perf_counter() - t0
    perf = page.evaluate(_PERF)
    page.close()
    return {"row": row, "build": BUILDS[-1], "ws": (opened[0] - t0) if opened else float("nan"), **perf}


def _changed(count, before: str, limit: float = 300) -> None:
    # the counter is inside a shadow root: poll it through Playwright's piercing locator
    deadline = time.perf_counter() + limit
    while count.text_content() == before and time.perf_counter() < deadline:
        time.sleep(0.01)


def keystroke(page) -> float:
    """Seconds from one more character of a search (``module4`` → ``module42``) to the counter's update."""
    print("  typing …", file=sys.stderr, flush=True)
    count = page.locator(".wb-count .wb-kv")
    box = page.get_by_placeholder("Search", exact=True)
    before = count.text_content()
    box.click()
    box.press_sequentially("module4")
    _changed(count, before)
    time.sleep(1.0)  # let the prefix's search settle
    before = count.text_content()
    t0 = time.perf_counter()
    box.press("2")
    _changed(count, before)
    return time.perf_counter() - t0


def server_memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of process ``pid`` in MB: its resident memory now, and the most it has held."""
    got = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            got[key] = int(value.split()[0]) / 1024
    return got.get("VmRSS", float("nan")), got.get("VmHWM", float("nan"))


def big_folder(cache: Path, big_mb: int) -> tuple[Path, str]:
    """The served folder under ``cache``: the big session (made once), a 100k one, small ones, the rules."""
    import shutil

    from workbench.sessions.synthetic import generate_session_text

    folder = cache / "served"
    folder.mkdir(parents=True, exist_ok=True)
    # 24,000 entries at 240 MB: about 35 kB per tool result (2 of 7 entries are tool results)
    entries = 24_000 * max(1, big_mb // 240)
    name = f"big-{big_mb}mb.jsonl"
    made = {name: (entries, 35_000), "s100k.jsonl": (100_000, 0), "small.jsonl": (1_000, 0), "other.jsonl": (200, 0)}
    for file, (n, size) in made.items():
        target = folder / file
        if not target.exists():
            print(f"  generating {file} …", file=sys.stderr, flush=True)
            tmp = target.with_suffix(".part")
            with tmp.open("w", encoding="utf-8") as fh:
                fh.write(generate_session_text(n, tool_result_bytes=size))
            tmp.rename(target)
    if not (folder / "project").exists():
        shutil.copytree(SAMPLES / "project", folder / "project")
    return folder, name


def _until_text(locator, text: str, limit: float = 600) -> float:
    t0 = time.perf_counter()
    locator.filter(has_text=text).first.wait_for(timeout=limit * 1000)
    return time.perf_counter() - t0


QUIET = 5.0  # seconds between the --big measurements: a closed page's work stops 3 s after it left


def _open_stepper(context, base: str) -> tuple[object, float]:
    """A page on the 100k session's Stepper tab (navigation), and when it was asked for."""
    print("  Stepper on s100k.jsonl …", file=sys.stderr, flush=True)
    page = context.new_page()
    page.set_default_timeout(600_000)
    t0 = time.perf_counter()
    page.goto(f"{base}?session=s100k.jsonl&tab=stepper&rules=project")
    return page, t0


def _matches(path: Path, query: str) -> int:
    """How many rows of ``path``'s list (the default filter) a search for ``query`` shows, worked out
    here, so that the page's answer is told from the counts of the query's prefixes typed before it."""
    from workbench.ui.session_doc import SessionDoc

    return SessionDoc(path).tree_list("default", query, None).visible_count


def big_sessions(args) -> int:
    from playwright.sync_api import sync_playwright

    load_start = os.getloadavg()[0]
    folder, big = big_folder(Path(args.cache).expanduser(), args.big_mb)
    size_mb = (folder / big).stat().st_size / 1e6
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    # an empty cache of first passes: the server's keeper makes the big session's ahead, at the lowest
    # priority, or the first open makes it; a reopen reads it (``--no-pass-cache``: none kept at all)
    passes = tempfile.TemporaryDirectory(prefix="wb-first-pass-")
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", str(folder), "--port", str(port), "--no-show"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "WORKBENCH_INDEX_CACHE": "off" if args.no_pass_cache else passes.name})
    out: dict[str, Any] = {}
    expected = _matches(folder / "s100k.jsonl", "module42")
    try:
        _wait_until_up(base)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS, headless=True)
            ctx = browser.new_context(viewport={"width": 1400, "height": 900})
            first_row(ctx, base, "other.jsonl")[1].close()  # warm-up: bundles cached
            time.sleep(2)
            out["rss_before"], _ = server_memory_mb(proc.pid)
            small, page = first_row(ctx, base, "small.jsonl")
            page.close()
            out["small_row"] = small
            out["kept_ahead"] = any(Path(passes.name).glob("*.pass"))
            big_row, page = first_row(ctx, base, big)
            out["big_row"] = big_row
            time.sleep(3)  # the graph and the conversation follow the list
            out["rss_tree"], _ = server_memory_mb(proc.pid)
            print("  big session: Stepper tab …", file=sys.stderr, flush=True)
            page.locator(".bk-tab", has_text="Stepper").first.click()
            out["big_step"] = _until_text(page.locator(".wb-step-position"), "step 0 /")
            time.sleep(2)
            out["rss_stepper"], out["rss_peak"] = server_memory_mb(proc.pid)
            page.close()
            time.sleep(QUIET)
            # opened again in a new page (each page loads its own copy): the kept first pass is read
            out["big_reopen"], page = first_row(ctx, base, big)
            page.close()
            time.sleep(QUIET)

            # search right after the 100k session opens: the count says "indexing…" until the index is built
            page = ctx.new_page()
            page.set_default_timeout(600_000)
            page.goto(f"{base}?session=s100k.jsonl&tab=tree")
            page.locator(ROW).first.wait_for()
            opened = time.perf_counter()
            # the count's own "N/M shown" span: the pane also holds notes (under a search, "match i of
            # n selected…"), so the pane's whole text never reads as the count alone
            count = page.locator(".wb-count .wb-kv").first
            shown = count.text_content() or ""  # Playwright's locators pierce the pane's shadow root
            out["indexing_seen"] = float("indexing" in shown)
            box = page.get_by_placeholder("Search", exact=True)
            box.click()
            t0 = time.perf_counter()
            box.press_sequentially("module42")
            typed = time.perf_counter()
            # answered: the count of the query's matches (a prefix's count may come first), no "indexing…";
            # and when "indexing…" left the count (the goal's other half: an "indexing…" ending within 2 s)
            indexed_at = None
            while True:
                text = (count.text_content() or "").strip()
                if indexed_at is None and "indexing" not in text:
                    indexed_at = time.perf_counter()
                if text.startswith(f"{expected:,}/") and "indexing" not in text:
                    break
                if time.perf_counter() - typed > 600:
                    raise TimeoutError(f"the search was not answered; the count says {text!r}")
                time.sleep(0.01)
            assert indexed_at is not None  # the loop ends only on a count without "indexing…"
            out["indexing_ended"] = indexed_at - opened
            out["search_after_open"] = time.perf_counter() - typed
            out["search_from_open"] = time.perf_counter() - opened
            out["typing"] = typed - t0
            out["search_count"] = text
            page.close()

            # the Stepper on the 100k session: alone, then with a second user's page load meanwhile;
            # every page in a warm context (a new context fetches the bundles again), and each after
            # the closed pages' follow-up work has stopped (a page's replay stops 3 s after its
            # browser left: docs/large-sessions.md)
            idle_ctx = browser.new_context()
            first_row(idle_ctx, base, "other.jsonl")[1].close()  # warm-up: the second user's bundles cached
            time.sleep(QUIET)
            idle, page = first_row(idle_ctx, base, "other.jsonl")
            page.close()
            time.sleep(QUIET)
            page, t0 = _open_stepper(ctx, base)
            page.locator(".wb-step-position").filter(has_text="step 0 /").first.wait_for()
            out["step_100k_alone"] = time.perf_counter() - t0
            page.close()
            time.sleep(QUIET)
            page, t0 = _open_stepper(ctx, base)
            page.locator(".wb-step-position").first.wait_for(state="attached")
            second, other = first_row(idle_ctx, base, "other.jsonl")  # while the first user's Stepper prepares
            other.close()
            page.locator(".wb-step-position").filter(has_text="step 0 /").first.wait_for()
            out["step_100k"] = time.perf_counter() - t0
            second_after, other = first_row(idle_ctx, base, "other.jsonl")  # while the pre-check runs on
            other.close()
            out["idle_load"], out["second_load"], out["second_after"] = idle, second, second_after
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        passes.cleanup()
    print(f"big session {big}: {size_mb:.0f} MB on disk; served by `workbench serve` (pid {proc.pid}); "
          f"load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"server memory (VmRSS) before any session is open: {out['rss_before']:.0f} MB")
    for key, label in (("rss_tree", "with the big session open in the Tree tab"), ("rss_stepper", "and in the Stepper tab"),
                       ("rss_peak", "the most it held (VmHWM)")):
        grown = out[key] - out["rss_before"]
        print(f"  {label:<44}{out[key]:>7.0f} MB  (+{grown:.0f} MB = {grown / size_mb:.2f}x the file; "
              f"total {out[key] / size_mb:.2f}x the file; goal <= 3x)")
    print(f"first tree row: 1,000 entries {out['small_row']:.2f}s, {big} {out['big_row']:.2f}s "
          f"({out['big_row'] / out['small_row']:.2f}x; goal <= 2x; its first pass "
          f"{'off' if args.no_pass_cache else 'made ahead by the server' if out['kept_ahead'] else 'made by this load'}); "
          f"opened again: {out['big_reopen']:.2f}s ({out['big_reopen'] / out['small_row']:.2f}x)")
    print(f"Stepper's first step on {big}: {out['big_step']:.2f}s after the tab was clicked")
    print(f"Stepper's first step on 100,000 entries, from navigation (goal <= 5 s): {out['step_100k_alone']:.2f}s alone, "
          f"{out['step_100k']:.2f}s with a second user's page load meanwhile")
    print(f"second user's page load: idle {out['idle_load']:.2f}s; while the first user's Stepper prepares "
          f"{out['second_load']:.2f}s ({out['second_load'] / out['idle_load']:.2f}x); while its pre-check runs on "
          f"{out['second_after']:.2f}s ({out['second_after'] / out['idle_load']:.2f}x; goal <= 2x)")
    print(f"search typed right after the 100k session opened: 'indexing…' shown at the first row: "
          f"{'yes' if out['indexing_seen'] else 'no (already built)'}, gone {out['indexing_ended']:.2f}s after the first row; answered {out['search_after_open']:.2f}s after the "
          f"last key ({out['search_from_open']:.2f}s after the first row, typing {out['typing']:.2f}s; goal <= 1 s, "
          f"or 'indexing…' ending within 2 s); the count then: {out['search_count']!r}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=1_000)
    ap.add_argument("--large", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5, help="warm loads per bundled-sample page")
    ap.add_argument("--floor-server", type=int, metavar="PORT", help=argparse.SUPPRESS)  # see served_floor
    ap.add_argument("--big", action="store_true", help="big sessions: memory, first row, first step, second user")
    ap.add_argument("--no-pass-cache", action="store_true",
                    help="--big: serve with WORKBENCH_INDEX_CACHE=off (no first pass made ahead or kept)")
    ap.add_argument("--big-mb", type=int, default=240, help="size of the big session in MB (with --big)")
    ap.add_argument("--cache", default="~/.cache/ttsr-workbench/bench", help="where --big's sessions are generated")
    args = ap.parse_args(argv)
    if args.big:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        return big_sessions(args)
    if args.floor_server:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        serve_floor(args.floor_server)
        return 0
    load_before = os.getloadavg()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from playwright.sync_api import sync_playwright

    from workbench.sessions.synthetic import generate_session_text

    folder = Path(tempfile.mkdtemp(prefix="wb-ui-bench-"))
    (folder / "small.jsonl").write_text(generate_session_text(args.small), encoding="utf-8")
    (folder / "large.jsonl").write_text(generate_session_text(args.large), encoding="utf-8")
    (folder / "other.jsonl").write_text(generate_session_text(200), encoding="utf-8")
    size_mb = (folder / "large.jsonl").stat().st_size / 1e6
    url = _serve(folder)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS, headless=True)
        print("  bundled samples …", file=sys.stderr, flush=True)
        # first, while nothing else has run on this machine's cores; the floor in turn with them
        with served_samples() as samples_url, served_floor() as floor_url:
            samples_ctx = browser.new_context(viewport={"width": 1400, "height": 900})
            targets = [(label, f"{samples_url}{query}", selector) for label, query, selector in SAMPLE_PAGES]
            samples = warm_loads(samples_ctx, [*targets, (FLOOR_LABEL, floor_url, ".wb-floor")], args.runs)
            samples_ctx.close()
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        first_row(ctx, url, "other.jsonl")[1].close()  # warm-up: the first page of a run loads the bundles
        mem_before = rss_mb()
        small_first, small_page = first_row(ctx, url, "small.jsonl")
        small_key = keystroke(small_page)
        small_page.close()
        split = phases(ctx, url, "small.jsonl")
        large_first, large_page = first_row(ctx, url, "large.jsonl")
        mem_after = rss_mb()
        large_key = keystroke(large_page)
        large_page.close()

        idle_ctx = browser.new_context()
        idle_load, page = first_row(idle_ctx, url, "other.jsonl")
        page.close()
        busy = browser.new_context()
        busy_page = busy.new_page()
        busy_page.goto(f"{url}?session=large.jsonl&tab=tree")  # the first user's long action starts
        busy_page.locator(".wb-tree-cancel").first.wait_for(state="attached")
        second_load, page = first_row(idle_ctx, url, "other.jsonl")
        still_loading = busy_page.locator(ROW).count() == 0
        page.close()
        busy.close()

        browser.close()

    print(f"sessions: small {args.small:,} entries, large {args.large:,} entries ({size_mb:.0f} MB)")
    print(f"{'':<34}{'small':>9}{'large':>9}{'ratio':>8}")
    print(f"{'navigation -> first tree row':<34}{small_first:>8.2f}s{large_first:>8.2f}s{large_first / small_first:>7.2f}x")
    print(f"{'search keystroke -> list updated':<34}{small_key:>8.2f}s{large_key:>8.2f}s{large_key / small_key:>7.2f}x")
    print(f"{'second user: page -> first row':<34}{idle_load:>8.2f}s{second_load:>8.2f}s{second_load / idle_load:>7.2f}x"
          f"   (idle vs while the first user opens the large session"
          f"{'' if still_loading else '; that load had already ended'})")
    row = split["row"]
    steps = [("HTML document (server build_page " f"{split['build']:.2f}s)", split["doc"]),
             ("bundles run (DOMContentLoaded)", split["dcl"] - split["doc"]),
             ("-> websocket open", split["ws"] - split["dcl"]),
             ("-> document pulled, drawn (the list in it)", row - split["ws"])]
    print(f"small first row {row:.2f}s (warm: {split['fetched']} of {split['resources']} resources fetched, "
          f"the rest from the browser cache; {row / GOAL_FIRST_ROW:.2f}x the {GOAL_FIRST_ROW} s goal), split:")
    for label, seconds in steps:
        print(f"  {label:<44}{seconds:>6.2f}s {seconds / row:>6.0%}")
    print(f"bundled sample_sessions/ (warm, {args.runs} loads each; goal {GOAL_FIRST_ROW} s):")
    floor = statistics.median(samples[FLOOR_LABEL])
    for label, times in samples.items():
        median = statistics.median(times)
        print(f"  {label:<44}best {min(times):.2f}s  median {median:.2f}s  worst {max(times):.2f}s"
              + ("" if label == FLOOR_LABEL else f"  ({median / floor:.2f}x the floor)"))
    print(f"load average (1 min): {load_before[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"server RSS: {mem_before:.0f} MB before, {mem_after:.0f} MB with the large session open "
          f"(+{mem_after - mem_before:.0f} MB for {args.large:,} entries, {size_mb:.0f} MB on disk)")
    import panel as pn

    pn.state.kill_all_servers()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
