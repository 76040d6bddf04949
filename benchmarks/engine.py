"""Engine throughput: deltas per second as the stream grows (not a test; prints figures).

Workload: 30 realistic rules (``\\b``-prefixed, ``(?i)``/``(?m)`` flags, tool/path scopes, globs,
anchored lookahead conjunctions, bounded ``[\\s\\S]{0,300}?`` spreads), a prose/code stream of
10-40 character deltas (42,000 deltas ~ 1 MB) split over text, thinking and a bash tool stream, and
two ~100 KB edit payloads fed through ``check_snapshot`` as their partially parsed argument grows.

    .venv/bin/python benchmarks/engine.py            # 1, 2, 4 MB + naive baseline
    .venv/bin/python benchmarks/engine.py --quick    # smaller sizes

Each size also runs with the literal prefilter off (``window._PREFILTER``), i.e. the engine before
the prefilter, and prints the ratio of the two totals measured in the same run.

The naive baseline is the reference's algorithm (every condition re-tested on the whole buffer at
every delta); it is quadratic, so it runs on smaller streams and its 1 MB time is extrapolated.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.rules import Rule  # noqa: E402
from workbench.ttsr import MatchContext, TtsrManager  # noqa: E402
from workbench.ttsr import manager as manager_module  # noqa: E402
from workbench.ttsr import window as window_module  # noqa: E402

RULES: list[tuple[str, list[str], list[str] | None, list[str] | None]] = [
    # name, conditions, scope, globs
    ("ts-console", [r"\bconsole\.log\("], ["tool:edit(*.ts)", "tool:write(*.ts)"], None),
    ("ts-any", [r":\s*any\b", r"\bas any\b"], ["tool:edit(*.{ts,tsx})"], None),
    ("deprecated", [r"(?i)\bdeprecated api\b"], ["text"], None),
    ("star-import", [r"(?m)^\s*import \* as \w+ from"], ["tool"], None),
    ("eval", [r"\beval\("], None, None),
    ("password", [r"(?i)password[ \t]*=[ \t]*['\"][^'\"\n]+['\"]"], None, None),
    ("todo-owner", [r"\bTODO\(\w+\)"], None, ["src/**"]),
    ("summary-heading", [r"(?m)^#{1,6} Summary$"], ["text"], None),
    ("fixme-and-hack", [r"^(?=[\s\S]*\bFIXME\b)(?=[\s\S]*\bHACK\b)"], ["text"], None),
    ("rm-rf-root", [r"(?=[\s\S]*rm -rf /)"], ["text", "thinking"], None),
    ("sudo-rm", [r"\bsudo\s+rm\b"], ["tool:bash"], None),
    ("force-push", [r"\bgit push --force\b"], ["tool:bash"], None),
    ("refusal", [r"(?i)\bI (?:cannot|can't) help\b"], ["text"], None),
    ("rs-unwrap", [r"\bunwrap\(\)"], ["tool:edit(*.rs)"], None),
    ("rs-panic", [r"\bpanic!\("], ["tool:edit(*.rs)"], None),
    ("py-bare-except", [r"except\s*:"], ["tool:edit(*.py)"], None),
    ("py-print", [r"\bprint\("], None, ["**/*.py"]),
    ("ts-debugger", [r"(?m)^\s*debugger;?$"], ["tool:edit(*.ts)"], None),
    ("set-timeout-0", [r"\bsetTimeout\(\s*\w+\s*,\s*0\s*\)"], None, None),
    ("secret-name", [r"\b[A-Z]{3,}_SECRET\b"], None, None),
    ("localhost-url", [r"https?://localhost:\d{2,5}"], None, None),
    ("lorem", [r"(?i)lorem ipsum"], ["text"], None),
    ("js-var", [r"\bvar\s+\w+\s*=\s*"], ["tool:edit(*.js)"], None),
    ("inline-script", [r"(?s)<script>.{0,200}?</script>"], None, None),
    ("never-works", [r"\bnever\b[\s\S]{0,300}?\bworks\b"], ["text"], None),
    ("double-cast", [r"\bas unknown as\b"], ["tool:edit(*.ts)"], None),
    ("non-null", [r"(?i)\bnon-null assertion\b"], ["thinking"], None),
    ("bang-dot", [r"\w+!\.\w+"], ["tool:edit(*.ts)"], None),
    ("process-exit", [r"\bprocess\.exit\(\d*\)"], None, None),
    ("lodash-import", [r"(?<=\bimport )lodash\b"], None, None),
]

WORDS = (
    "the stream model rule buffer delta token parser session branch commit value result error "
    "function return const let type interface module export default async await promise handler "
    "value index length offset window cursor update render state props context signal effect "
    "plan check verify test build deploy config option flag path file folder layout grid panel "
    "we should then also first next finally because therefore however maybe probably"
).split()
CODE = [
    "const x = compute(a, b);",
    "if (value > limit) {",
    "}",
    "return items.map((item) => item.id);",
    "export function handler(req: Request) {",
    "  const body = await req.json();",
    "let total = 0;",
    "for (const entry of entries) total += entry.size;",
    "// keep the cache warm",
    "type Props = { id: string; count: number };",
]


def make_text(size: int, rng: random.Random) -> str:
    out: list[str] = []
    n = 0
    while n < size:
        if rng.random() < 0.3:
            line = rng.choice(CODE)
        else:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))) + "."
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)[:size]


def build_manager(skip: tuple[str, ...] = ()) -> TtsrManager:
    mgr = TtsrManager()
    for name, conds, scope, globs in RULES:
        if name in skip:
            continue
        mgr.add_rule(
            Rule(name=name, path=f"{name}.md", content="", condition=tuple(conds),
                 scope=tuple(scope) if scope else None, globs=tuple(globs) if globs else None)
        )
    return mgr


CONTEXTS = [
    MatchContext("text"),
    MatchContext("thinking"),
    MatchContext("tool", tool_name="bash"),
]
EDIT = MatchContext("tool", tool_name="edit", file_paths=("src/app.ts",), stream_key="toolcall:edit#src/app.ts")


def run(
    size: int,
    *,
    naive: bool,
    seed: int = 7,
    edits: bool = True,
    segments: list[float] | None = None,
    skip: tuple[str, ...] = (),
) -> tuple[int, float, int, float]:
    """(deltas, seconds, snapshots, seconds) for a stream of ``size`` characters.

    ``segments`` (if given) receives the seconds spent on each tenth of the deltas, so that the
    growth of the per-delta cost can be read inside one run, independent of machine load drift.
    """
    rng = random.Random(seed)
    text = make_text(size, rng)
    payloads = [make_text(100_000, rng) for _ in range(2)] if edits else []
    original = manager_module.condition_matches
    prefilter = window_module._PREFILTER
    if naive:  # every condition on the whole buffer: no prefilter either
        manager_module.condition_matches = lambda cond, cid, buf: cond.regex.find(buf.etext) is not None
        window_module._PREFILTER = False
    try:
        mgr = build_manager(skip)
        t0 = time.perf_counter()
        # The stream is cut on the fly (no list of 42,000+ tuples kept alive: the collector would
        # charge its traversal to the engine). Contexts switch every ~200 deltas, 80% prose.
        tenth = max(1, size // 10)
        next_mark, mark = tenth, t0
        pos = n = 0
        ctx = CONTEXTS[0]
        while pos < len(text):
            if n % 200 == 0:
                ctx = rng.choices(CONTEXTS, weights=(8, 1, 1))[0]
            step = rng.randint(10, 40)
            mgr.check_delta(text[pos : pos + step], ctx)
            pos += step
            n += 1
            if segments is not None and pos >= next_mark:
                now = time.perf_counter()
                segments.append(now - mark)
                mark, next_mark = now, next_mark + tenth
        t_delta = time.perf_counter() - t0
        t0 = time.perf_counter()
        snaps = 0
        for payload in payloads:
            mgr.reset_buffer()
            pos = 0
            while pos < len(payload):
                pos += rng.randint(10, 40)
                mgr.check_snapshot(payload[:pos], EDIT)
                snaps += 1
        t_snap = time.perf_counter() - t0
    finally:
        manager_module.condition_matches = original
        window_module._PREFILTER = prefilter
    return n, t_delta, snaps, t_snap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="256 KB / 512 KB / 1 MB instead of 1 / 2 / 4 MB")
    ap.add_argument("--no-naive", action="store_true", help="skip the naive full re-test baseline")
    ap.add_argument("--no-previous", action="store_true",
                    help="skip the run with the literal prefilter off (the implementation before it)")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the side-by-side run of the reference TtsrManager under Bun (engine_reference.py)")
    args = ap.parse_args()
    mb = 1 << 20
    sizes = [mb // 4, mb // 2, mb] if args.quick else [mb, 2 * mb, 4 * mb]
    print(f"{len(RULES)} rules; deltas of 10-40 chars; 2 x 100 KB edit payloads via check_snapshot")
    t0 = time.perf_counter()
    for _ in range(1_000_000):
        pass
    print(f"machine calibration: empty Python loop {(time.perf_counter() - t0) * 1000:.1f} ns/iteration "
          "(an idle machine runs CPython 3.11 at ~10-15 ns; figures below scale with it)")
    rates = []
    segments: list[float] = []
    for size in sizes:
        n, t, snaps, ts = run(size, naive=False, segments=segments if size == sizes[-1] else None)
        rates.append(n / t)
        print(
            f"optimised {size / mb:5.2f} MB: {n:7d} deltas in {t:6.2f} s = {n / t:9.0f} deltas/s; "
            f"{snaps} snapshots in {ts:5.2f} s; total {t + ts:6.2f} s"
        )
        if not args.no_previous:
            # The same stream with the literal prefilter switched off: the windowed engine as it
            # was before the prefilter, measured in the same run (same machine load).
            window_module._PREFILTER = False
            try:
                _, pt, _, pts = run(size, naive=False)
            finally:
                window_module._PREFILTER = True
            print(
                f"  prefilter off {size / mb:5.2f} MB: deltas {pt:6.2f} s, snapshots {pts:5.2f} s, total {pt + pts:6.2f} s; "
                f"ratio with/without prefilter: {(t + ts) / (pt + pts):.3f}x"
            )
    print(f"growth factor (deltas/s at {sizes[0] / mb:g} MB / at {sizes[-1] / mb:g} MB): {rates[0] / rates[-1]:.2f}")
    if len(segments) >= 10:
        print(
            f"within the {sizes[-1] / mb:g} MB run: last tenth of the deltas took {segments[9] / segments[0]:.2f}x "
            "the time of the first tenth (1.0 = cost per delta independent of buffer size)"
        )
    if not args.no_naive:
        # The reference algorithm (every condition re-tested on the whole buffer at every delta),
        # on regress. With all 30 rules a single test of the unanchored `(?=[\s\S]*rm -rf /)` is
        # itself quadratic, so that run stays tiny; the fit uses the 29 other rules.
        kb = 1 << 10
        for size in (4 * kb, 8 * kb):
            n, t, _, _ = run(size, naive=True, edits=False)
            print(f"naive, all rules      {size / kb:4.0f} KB: {n:6d} deltas in {t:7.2f} s = {n / t:9.1f} deltas/s")
        naive = []
        for size in (8 * kb, 16 * kb, 32 * kb):
            n, t, _, _ = run(size, naive=True, edits=False, skip=("rm-rf-root",))
            naive.append((size, t))
            print(f"naive, 29 rules       {size / kb:4.0f} KB: {n:6d} deltas in {t:7.2f} s = {n / t:9.1f} deltas/s")
        (s1, t1), (s2, t2) = naive[-2], naive[-1]
        exponent = math.log(t2 / t1) / math.log(s2 / s1)
        print(f"naive (29 rules) growth exponent, time ~ size^k: k = {exponent:.2f}; "
              f"extrapolated to the 1 MB stream: ~{t2 * (mb / s2) ** exponent:,.0f} s")
        n, t, _, _ = run(32 * kb, naive=False, edits=False, skip=("rm-rf-root",))
        print(f"optimised, 29 rules     32 KB: {n:6d} deltas in {t:7.2f} s = {n / t:9.1f} deltas/s")
    if not args.no_reference:
        # The reference itself, when scripts/reference-oracle has installed it: same rules, same
        # 1 MB and 4 MB streams, ratio of medians, answers compared delta by delta.
        from benchmarks import engine_reference

        if engine_reference.main(["--sizes", *(str(s / mb) for s in (sizes[0], sizes[-1]))]) != 0:
            sys.exit("engine and reference answers differ")

if __name__ == "__main__":
    main()
