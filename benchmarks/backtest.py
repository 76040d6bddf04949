"""Backtest throughput: MB/s on one process, on all local cores and on a local Dask cluster, as a
ratio to DuckDB's raw ``read_json_objects`` of the same files (not a test; prints figures).

``--corpus real`` (the default): an archive of ~46 MB made of copies (distinct file names) of the two
real pi sessions (``real_sessions.py``: ``tests/fixtures/real`` and the cache beside it) and of ``sample_sessions/*.jsonl``, written to
``benchmarks/_data/backtest-real/`` (git-ignored), with eight realistic project rules discovered the
way the agent does, so the 27 bundled rules are on as by default; then the same with the bundled rules
left out (``--no-builtin``). Each one-process run is preceded by the same run without the probe's
tool-call join (``workbench.backtest.call_skip``), for a same-window before/after.

    .venv/bin/python benchmarks/backtest.py                    # real archive, ~46 MB
    .venv/bin/python benchmarks/backtest.py --mb 10 --skip-dask
    .venv/bin/python benchmarks/backtest.py --corpus synthetic # the generated corpus below

``--corpus synthetic``:

The corpus (default 5,000 sessions of 3-6 turns: prose, thinking, edit/write calls to .ts/.rs/.py
files, a few rule violations sprinkled in) is written once to ``benchmarks/_data/backtest-corpus/``
(git-ignored) and reused. Ten rules: prose and tool-scoped regexes, path globs, one AST rule.

    .venv/bin/python benchmarks/backtest.py                  # 5,000 sessions, all three modes
    .venv/bin/python benchmarks/backtest.py --sessions 500   # a quick look
    .venv/bin/python benchmarks/backtest.py --skip-dask

Every mode must give the same result; the script checks it and says so. Throughput is also printed
as MB/s of session files and as a ratio to DuckDB's raw ``read_json_objects`` of the same files (the
ceiling for "reading the archive"), measured again just before each mode so that both sides see the
same machine load; the one-process run is repeated with the probe-mode skip switched off
(``workbench.backtest.prefilter._SKIP``) for the same-run ratio.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from real_sessions import CACHE, IN_REPO, real_sessions  # noqa: E402

from workbench.backtest import BacktestResult, run_backtest  # noqa: E402

DATA = Path(__file__).resolve().parent / "_data"
RULES = {
    "no-unwrap.md": "---\ncondition: '\\.unwrap\\(\\)'\nscope: text, tool:edit(*.rs), tool:write(*.rs)\n---\nUse ?.\n",
    "no-console-log.md": "---\ncondition: 'console\\.(log|debug)\\('\nscope: tool:edit(src/**/*.ts), tool:write(src/**/*.ts)\n"
                         "interruptMode: never\n---\nUse the logger.\n",
    "ts-no-as-any.md": "---\nastCondition: $EXPR as any\nscope: tool:edit(*.ts), tool:write(*.ts)\n---\nNo casts to any.\n",
    "no-print.md": "---\ncondition: '^\\s*print\\('\nglobs: ['scripts/**/*.py']\n---\nUse logging.\n",
    "os-path.md": "---\ncondition: 'os\\.path\\.join'\nscope: tool(*.py)\n---\nUse pathlib.\n",
    "deprecated.md": "---\ncondition: '(?i)\\bdeprecated api\\b'\nscope: text\n---\nMigrate.\n",
    "secrets.md": "---\ncondition: '(?i)password\\s*=\\s*[\"\\x27][^\"\\x27]+[\"\\x27]'\n---\nNo secrets in code.\n",
    "thinking-shortcut.md": "---\ncondition: 'just skip the tests'\nscope: thinking\n---\nRun the tests.\n",
    "todo-owner.md": "---\ncondition: '\\bTODO(?!\\()'\nscope: tool\ninterruptMode: tool-only\n---\nTODO(owner).\n",
    "never.md": "---\ncondition: 'THIS_NEVER_APPEARS_ANYWHERE'\n---\nNever.\n",
}
WORDS = ("the config loader reads values from the environment and falls back to defaults when a key is "
         "missing so the service can start in development without any extra setup while production "
         "keeps strict checks on every request handler and background job").split()
VIOLATIONS = ["let v = res.unwrap();", "console.log(\"debug\", value);", "const u = (req as any).user;",
              "print('loaded')", "p = os.path.join(root, name)", "This uses the deprecated API for now.",
              "password = 'hunter2'", "// TODO fix later"]


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _code(rng: random.Random, ext: str) -> str:
    lines = {
        "ts": ["export function handler(req: Request) {", "  const id = req.params.id;", "  return load(id);", "}"],
        "rs": ["pub fn load(id: u32) -> Result<User> {", "    let row = db.get(id)?;", "    Ok(row.into())", "}"],
        "py": ["def load(root):", "    data = read(root)", "    return parse(data)"],
    }[ext]
    body = list(lines)
    if rng.random() < 0.15:
        body.insert(1, "  " + rng.choice(VIOLATIONS))
    return "\n".join(body)


def make_session(index: int, rng: random.Random) -> str:
    records: list[dict] = [{"type": "session", "version": 3, "id": f"bench-{index:06d}",
                            "timestamp": "2026-01-01T00:00:00Z", "cwd": "/proj"}]
    parent = None
    counter = 0

    def add(message: dict) -> None:
        nonlocal parent, counter
        counter += 1
        eid = f"{index:06d}{counter:04d}"
        records.append({"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:01Z",
                        "message": {**message, "timestamp": 1767225600000 + counter}})
        parent = eid

    add({"role": "user", "content": [{"type": "text", "text": _prose(rng, 12)}]})
    for turn in range(rng.randint(3, 6)):
        blocks: list[dict] = []
        if rng.random() < 0.5:
            thought = _prose(rng, 20) + (" I could just skip the tests." if rng.random() < 0.03 else "")
            blocks.append({"type": "thinking", "thinking": thought})
        prose = _prose(rng, rng.randint(15, 50))
        if rng.random() < 0.08:
            prose += " " + rng.choice(VIOLATIONS)
        blocks.append({"type": "text", "text": prose})
        if rng.random() < 0.7:
            ext = rng.choice(("ts", "rs", "py"))
            folder = {"ts": "src/api", "rs": "crates/core/src", "py": "scripts"}[ext]
            path = f"{folder}/mod{rng.randint(0, 20)}.{ext}"
            if rng.random() < 0.5:
                args = {"path": path, "old_string": "x", "new_string": _code(rng, ext)}
                name = "edit"
            else:
                args = {"path": path, "content": _code(rng, ext)}
                name = "write"
            blocks.append({"type": "toolCall", "id": f"call_{index}_{turn}", "name": name, "arguments": args})
        calls = [b for b in blocks if b["type"] == "toolCall"]
        add({"role": "assistant", "content": blocks, "stopReason": "toolUse" if calls else "stop"})
        for call in calls:
            add({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                 "content": [{"type": "text", "text": "ok"}], "isError": False})
    return "\n".join(json.dumps(r) for r in records) + "\n"


def ensure_corpus(n: int) -> tuple[Path, Path]:
    root = DATA / "backtest-corpus"
    sessions, rules = root / f"sessions-{n}", root / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    for name, body in RULES.items():
        (rules / name).write_text(body, encoding="utf-8")
    if not sessions.is_dir() or len(list(sessions.glob("*/*.jsonl"))) != n:
        rng = random.Random(20261129)
        for i in range(n):
            folder = sessions / f"{i // 1000:03d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"s{i:06d}.jsonl").write_text(make_session(i, rng), encoding="utf-8")
    return sessions, rules


def report(label: str, result: BacktestResult, size: int = 0, duck: float = 0.0) -> None:
    extra = ""
    if size and result.elapsed:
        rate = size / 1e6 / result.elapsed
        extra = f" {rate:>7.1f} MB/s" + (f" = {rate / duck:.3f}x DuckDB" if duck else "")
    print(f"{label:<34} {len(result.sessions):>6} sessions {result.elapsed:>8.2f} s "
          f"{result.sessions_per_second:>8.1f} sessions/s{extra}")


def duckdb_rate(sessions: Path, size: int, quiet: bool = False) -> float:
    """MB/s of DuckDB's raw ``read_json_objects`` over the corpus (best of three, warm cache; a broken line,
    as in sample_sessions/broken-line.jsonl, is skipped as the backtest skips it)."""
    import time

    import duckdb

    con = duckdb.connect()
    glob = str(sessions / "*" / "*.jsonl")  # both corpora: one folder level
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        rows = con.execute("SELECT count(*) FROM read_json_objects(?, format='newline_delimited', ignore_errors=true)", [glob]).fetchone()
        best = min(best, time.perf_counter() - t0)
    if not quiet:
        print(f"DuckDB read_json_objects: {rows[0]} objects in {best:.3f} s = {size / 1e6 / best:.1f} MB/s")
    return size / 1e6 / best


def _cpu() -> float:
    """CPU seconds of this process and of its children waited for (the time-bound children)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def duckdb_cpu_rate(sessions: Path, size: int) -> float:
    """MB per CPU second of DuckDB's raw ``read_json_objects`` (all its threads; best of three)."""
    import duckdb

    con = duckdb.connect()
    glob = str(sessions / "*" / "*.jsonl")
    best = float("inf")
    for _ in range(3):
        c0 = _cpu()
        con.execute("SELECT count(*) FROM read_json_objects(?, format='newline_delimited', ignore_errors=true)",
                    [glob]).fetchone()
        best = min(best, _cpu() - c0)
    return size / 1e6 / max(best, 1e-9)


def timed(label: str, run, sessions: Path, size: int, cpu: bool = False) -> BacktestResult:
    """``run()`` reported against DuckDB measured just before it: on a shared machine the load
    changes within a minute, and both sides of the ratio should see the same load. ``cpu`` (a run
    in this process): also MB per CPU second against DuckDB's, which a loaded machine skews less."""
    duck = duckdb_rate(sessions, size, quiet=True)
    duck_cpu = duckdb_cpu_rate(sessions, size) if cpu else 0.0
    c0 = _cpu()
    result = run()
    spent = _cpu() - c0
    report(label, result, size, duck)
    print(f"  (DuckDB just before: {duck:.1f} MB/s; load average {os.getloadavg()[0]:.2f})")
    if cpu:
        rate = size / 1e6 / max(spent, 1e-9)
        print(f"  CPU: {spent:.2f} s = {rate:.1f} MB per CPU second = {rate / duck_cpu:.4f}x DuckDB's "
              f"{duck_cpu:.1f} MB per CPU second")
    return result


def differences(a: BacktestResult, b: BacktestResult) -> str:
    """Which compared fields of two results differ (empty when they are equal)."""
    out = []
    for name in ("rules", "hits", "sessions", "not_registered", "disabled"):
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            only_a, only_b = set(x) - set(y), set(y) - set(x)
            out.append(f"{name}: {len(only_a)} only in the first, {len(only_b)} only in the second"
                       + (f"; e.g. {sorted(map(repr, only_b))[:2]}" if only_b else ""))
    if a.disabled or b.disabled:
        out.append(f"time bound disabled: {a.disabled or '-'} / {b.disabled or '-'}")
    return "; ".join(out)


ROOT = Path(__file__).resolve().parents[1]
REAL_RULES = ("no-unwrap.md", "no-console-log.md", "ts-no-as-any.md", "no-print.md", "os-path.md", "deprecated.md",
              "secrets.md", "todo-owner.md")  # eight of RULES: prose, tool-scoped, globbed and AST rules


def ensure_real_archive(mb: float) -> tuple[Path, Path, int]:
    """(archive folder, project folder, copies): copies of the real sessions and the samples."""
    import shutil

    sources = real_sessions() + sorted((ROOT / "sample_sessions").glob("*.jsonl"))
    per_copy = sum(f.stat().st_size for f in sources)
    copies = max(1, round(mb * 1e6 / per_copy))
    root = DATA / "backtest-real"
    archive, project = root / f"archive-{copies}", root / "project"
    rules = project / ".omp" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    for name in REAL_RULES:
        (rules / name).write_text(RULES[name], encoding="utf-8")
    if len(list(archive.glob("*/*.jsonl"))) != copies * len(sources):
        for k in range(copies):
            folder = archive / f"{k:03d}"
            folder.mkdir(parents=True, exist_ok=True)
            for src in sources:
                shutil.copyfile(src, folder / f"c{k:03d}-{src.name}")
    return archive, project, copies


def main_real(args: argparse.Namespace) -> int:
    from workbench.rules import resolve_rules

    archive, project, copies = ensure_real_archive(args.mb)
    cores = os.cpu_count() or 1
    size = sum(f.stat().st_size for f in archive.glob("*/*.jsonl"))
    default = resolve_rules([str(project)])
    bundled = [r for r in default if r.source is not None and r.source.provider == "builtin-defaults"]
    no_builtin = [r for r in default if r not in bundled]
    print(f"archive: {len(list(archive.glob('*/*.jsonl')))} sessions ({copies} copies of tests/fixtures/real and "
          f"sample_sessions), {size / 1e6:.1f} MB; rules: {len(default)} ({len(bundled)} bundled); {cores} local cores")
    cached = {p.name for p in real_sessions()} - {p.name for p in IN_REPO.glob("*.jsonl")}
    if not cached:  # the earlier rounds' archive holds the 2.37 MB real session too
        print(f"note: no real session outside the repository (in {CACHE}): this archive is not the one the README's "
              "figures were measured on; fill the cache as tests/fixtures/real/README.md says")
    duckdb_rate(archive, size)
    runs: dict[str, BacktestResult] = {}
    from workbench.backtest import probe

    for label, rules in (("bundled rules on (default)", default), ("--no-builtin", no_builtin)):
        print(f"-- {label}: {len(rules)} rules")
        probe._CALL_SKIP = False  # the same run without the tool-call join (workbench.backtest.call_skip)
        try:
            unjoined = timed("one process, no tool-call join", lambda r=rules: run_backtest(r, [archive], workers=1),
                             archive, size, cpu=True)
        finally:
            probe._CALL_SKIP = True
        one = runs[label] = timed("one process", lambda r=rules: run_backtest(r, [archive], workers=1), archive, size,
                                  cpu=True)
        print(f"  tool-call join: {one.elapsed / unjoined.elapsed:.3f}x the time without it; "
              f"identical: {one == unjoined} {differences(unjoined, one)}")
        if args.skip_parallel:
            continue
        every = timed(f"all local cores ({cores} processes)", lambda r=rules: run_backtest(r, [archive], workers=cores),
                      archive, size)
        print(f"  identical to one process: {every == one} {differences(one, every)}")
        if not args.skip_dask:
            from distributed import LocalCluster

            with LocalCluster(n_workers=cores, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=None, silence_logs=logging.CRITICAL) as cluster:
                dask = timed(f"local Dask cluster ({cores} workers)",
                             lambda r=rules: run_backtest(r, [archive], scheduler=cluster.scheduler_address),
                             archive, size)
            print(f"  identical to one process: {dask == one} {differences(one, dask)}; sessions sent as {getattr(dask, 'transport', None)}")
    fired = {r.rule: (r.sessions, r.turns) for r in runs["bundled rules on (default)"].rules if r.fired}
    print(f"fired (sessions, turns) with the bundled rules: {fired}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=("real", "synthetic"), default="real")
    parser.add_argument("--mb", type=float, default=46.0, help="real: archive size to aim at (default 46)")
    parser.add_argument("--sessions", type=int, default=5000, help="synthetic: sessions (default 5000)")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--skip-parallel", action="store_true", help="real: one process only")
    args = parser.parse_args()
    if args.corpus == "real":
        return main_real(args)
    sessions, rules = ensure_corpus(args.sessions)
    cores = os.cpu_count() or 1
    size = sum(f.stat().st_size for f in sessions.glob("*/*.jsonl"))
    print(f"corpus: {args.sessions} sessions, {size / 1e6:.1f} MB, {len(RULES)} rules; {cores} local cores")

    duckdb_rate(sessions, size)
    from workbench.backtest import prefilter

    def without_skip() -> BacktestResult:
        prefilter._SKIP = False
        try:
            return run_backtest(rules, [sessions], workers=1)
        finally:
            prefilter._SKIP = True

    before = timed("one process, no turn skip", without_skip, sessions, size)
    one = timed("one process", lambda: run_backtest(rules, [sessions], workers=1), sessions, size)
    print(f"  turn skip: {one.elapsed / before.elapsed:.3f}x the time without it; "
          f"identical: {one == before} {differences(before, one)}")
    fired = {r.rule: (r.sessions, r.turns) for r in one.rules}
    print(f"  turns {one.turns}, hits {len(one.hits)}; per rule (sessions, turns): {fired}")
    every = timed(f"all local cores ({cores} processes)", lambda: run_backtest(rules, [sessions], workers=cores),
                  sessions, size)
    print(f"  identical to one process: {every == one} {differences(one, every)}")
    if not args.skip_dask:
        from distributed import LocalCluster

        with LocalCluster(n_workers=cores, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, silence_logs=logging.CRITICAL) as cluster:
            dask = timed(f"local Dask cluster ({cores} workers)",
                         lambda: run_backtest(rules, [sessions], scheduler=cluster.scheduler_address), sessions, size)
        print(f"  identical to one process: {dask == one} {differences(one, dask)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
