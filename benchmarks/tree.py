"""Speed of the session tree stack (load, tree, `/tree` list, rows, search) on generated sessions.

Prints figures, never asserts. Targets (2-core machine): 100k entries load < 4 s, tree + flatten < 2 s,
a search keystroke < 1.5 s; 1k entries: every step < 50 ms. Wall and CPU seconds are both printed,
with the load average, because other processes share the machine.

    .venv/bin/python benchmarks/tree.py [--entries 100000 1000] [--flavor omp] [--file PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

KEYSTROKES = ("c", "cl", "cle", "clea", "clear", "clearT", "clearTi", "clearTimeout", "clearTimeou", "")


def _timed(label: str, fn: Callable[[], Any], out: list[tuple[str, float, float]]) -> Any:
    w0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    out.append((label, time.perf_counter() - w0, time.process_time() - c0))
    return value


def bench_file(path: Path, flavor: str) -> list[tuple[str, float, float]]:
    from workbench.sessions import SessionTree, TreeList, load_session

    out: list[tuple[str, float, float]] = []
    session = _timed("load", lambda: load_session(path), out)
    tree = SessionTree(session)
    roots = _timed("get_tree", tree.get_tree, out)
    tl = _timed("TreeList (flatten)", lambda: TreeList(tree, flavor=flavor), out)  # type: ignore[arg-type]
    tot = out[1][1] + out[2][1], out[1][2] + out[2][2]
    out.append(("  = tree + flatten", *tot))
    rows = _timed("rows() (all)", tl.rows, out)
    _timed("rows(window of 40)", lambda: tl.rows(*tl.window()) if hasattr(tl, "window") else None, out)
    _timed("set_filter(all)", lambda: tl.set_filter("all"), out)
    _timed("set_filter(user-only)", lambda: tl.set_filter("user-only"), out)
    state = tl
    worst = (0.0, 0.0)
    for q in KEYSTROKES:
        state = _timed(f"search keystroke {q!r}", lambda q=q: state.set_search(q), out)
        worst = max(worst, out[-1][1:])
    out.append(("  = worst keystroke", *worst))
    _timed("search again 'clearTimeout' (cached)", lambda: state.set_search("clearTimeout"), out)
    print(f"{path.name}: {len(session.entries)} entries, {len(roots)} root(s), {len(rows)} rows, "
          f"{len(state.set_search('clearTimeout').visible_ids)} match 'clearTimeout'")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, nargs="*", default=[100_000, 1_000])
    ap.add_argument("--flavor", default="omp", choices=["omp", "omp18", "pi", "omp57"])
    ap.add_argument("--file", type=Path, action="append", default=[], help="also time an existing session file")
    args = ap.parse_args()
    from workbench.sessions import generate_session_text

    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cpus: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(args.file)
        for n in args.entries:
            p = Path(tmp) / f"synthetic-{n}.jsonl"
            p.write_text(generate_session_text(n), encoding="utf-8")
            paths.append(p)
        for p in paths:
            for label, wall, cpu in bench_file(p, args.flavor):
                print(f"  {label:<40} {wall * 1000:9.1f} ms wall {cpu * 1000:9.1f} ms cpu")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
