"""``workbench replay`` on real sessions with the rules a user has by default (not a test; prints figures).

Two real pi sessions, 0.97 MB (in ``tests/fixtures/real/``) and 2.37 MB (over git's size limit: kept in
the cache ``real_sessions.py`` names, fetched as ``tests/fixtures/real/README.md`` says), are replayed the way a
user runs it: ``workbench replay FILE --rules sample_sessions/project --json`` (the samples' project
rules plus the 27 bundled ones, the default edit mode, the default 2 s time bound), each in a fresh
process, as is ``workbench tree FILE --json`` of the same file for the baseline. Printed: wall and CPU
seconds (the processes' user + system time, children included: the time bound replays in a forked
child), the larger file's time ratio against its size ratio (linear: 1.0; the goal is at most 1.5),
and replay / ``tree --json``. With ``--compare`` each replay runs again with the AST literal prefilter
switched off (``workbench.ttsr.ast_literals.set_ast_prefilter``) and the two JSON outputs are compared
byte for byte. The machine is shared: the load average is printed, and each timed step runs
``--runs`` times (default 2), the one with the least CPU kept.

    .venv/bin/python benchmarks/replay.py [--compare] [--runs N] [--file PATH ...] [--code CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from real_sessions import real_session

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "sample_sessions" / "project"

# Runs the CLI, optionally with the prefilter off first (the switch is process-wide, so the forked
# time-bound child inherits it).
_LAUNCH = (
    "import sys\n"
    "try:\n"
    "    from workbench.ttsr.ast_literals import set_ast_prefilter\n"
    "except ImportError:  # a checkout from before the prefilter (--code)\n"
    "    set_ast_prefilter = lambda on: None\n"
    "set_ast_prefilter(sys.argv[1] == 'on')\n"
    "from workbench.cli import main\n"
    "raise SystemExit(main(sys.argv[2:]))\n"
)


CODE = ROOT


def _run(args: list[str], prefilter: bool = True) -> tuple[bytes, float, float]:
    """(stdout, wall seconds, CPU seconds) of one CLI run in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(CODE)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # The working folder is the checkout too: `python -c` puts it first on the import path.
    done = subprocess.run([sys.executable, "-c", _LAUNCH, "on" if prefilter else "off", *args],
                          cwd=CODE, env=env, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"workbench {' '.join(args)} failed:\n{done.stderr.decode(errors='replace')}")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, wall, cpu


def _best(args: list[str], runs: int, prefilter: bool = True) -> tuple[bytes, float, float]:
    best: tuple[bytes, float, float] | None = None
    for _ in range(runs):
        got = _run(args, prefilter)
        if best is None or got[2] < best[2]:
            best = got
    assert best is not None
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, nargs="+", default=None, help="session files (smallest first)")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--compare", action="store_true", help="also replay with the AST literal prefilter off")
    ap.add_argument("--code", type=Path, default=ROOT,
                    help="run the CLI from this checkout instead (a figure from before a change)")
    args = ap.parse_args()
    global CODE
    CODE = args.code.resolve()
    print(f"code: {CODE}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cpus: {os.cpu_count()}")
    rows = []
    files = args.file or [real_session("pi-mono-large-session.jsonl"), real_session("pi-mono-before-compaction.jsonl")]
    for path in files:
        size = path.stat().st_size
        replay_args = ["replay", str(path), "--rules", str(RULES), "--json"]
        out, wall, cpu = _best(replay_args, args.runs)
        _tree, twall, tcpu = _best(["tree", str(path), "--json"], args.runs)
        line = (f"{path.name} ({size / 1e6:.2f} MB): replay {wall:6.2f} s wall, {cpu:6.2f} s CPU; "
                f"tree --json {twall:5.2f} s wall, {tcpu:5.2f} s CPU; replay / tree: {wall / twall:5.1f}x wall, "
                f"{cpu / tcpu:5.1f}x CPU")
        if args.compare:
            off, owall, ocpu = _best(replay_args, 1, prefilter=False)
            line += (f"\n    prefilter off: {owall:6.2f} s wall, {ocpu:6.2f} s CPU (on / off {cpu / ocpu:.3f}x CPU); "
                     f"outputs identical: {'yes' if off == out else 'NO'}")
        print(line, flush=True)
        rows.append((size, wall, cpu))
    if len(rows) >= 2:
        (s0, w0, c0), (s1, w1, c1) = rows[0], rows[-1]
        size_ratio = s1 / s0
        print(f"size ratio {size_ratio:.2f}; time ratio {w1 / w0:.2f} wall, {c1 / c0:.2f} CPU; "
              f"time ratio / size ratio: {w1 / w0 / size_ratio:.2f} wall, {c1 / c0 / size_ratio:.2f} CPU "
              f"(linear 1.0, goal <= 1.5)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
