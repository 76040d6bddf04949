"""Ingest benchmark (not a test): how fast ``workbench ingest`` loads an archive of sessions.

Run: ``.venv/bin/python benchmarks/ingest.py [--mb 200] [--data DIR] [--runs 3] [--skip-tree]``.

1. Generates (once, cached under ``benchmarks/_data/``, which git ignores) a corpus of realistic v3
   session files: branched conversations, tool calls with big outputs, thinking, labels, compactions,
   branch summaries, TTSR injections; a few v1 files and files with broken lines ride along so the
   fallback path is part of the figure, as it would be for a real archive.
2. Times ``Store.ingest`` over the corpus (MB/s) next to DuckDB's own ``read_json_objects`` over the
   same files into one raw JSON column (the ceiling) and prints the ratio (goal >= 0.5).
3. Times tree build + flatten (``workbench.sessions`` SessionTree / TreeList) for one generated
   100,000-entry session.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

WORDS = (
    "the a function return value error file path rule stream token buffer session branch tree label "
    "compaction model thinking tool call result output input read write edit bash grep find test pass "
    "fail assert import module class def self config setting default interrupt repeat gap context keep "
    "discard injection pattern regex glob scope match snapshot delta chunk line column index offset"
).split()
CODE = [
    "def handle(request):", "    return response.json()", "import os, sys", "for item in items:",
    "    if not item.ok:", "        raise ValueError(item)", "class Loader:", "    pass",
    "console.log(value)", "const x = await fetch(url);", "if (t) clearTimeout(t);", "}",
]
RULES = ["no-console-log", "prefer-const", "no-any", "use-pathlib", "no-print", "async-await"]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, k=n))


def _code(rng: random.Random, lines: int) -> str:
    return "\n".join(rng.choices(CODE, k=lines))


class _Writer:
    """Builds one session file's lines; keeps ids, a leaf and the branch points."""

    def __init__(self, rng: random.Random, version: int = 3) -> None:
        self.rng = rng
        self.version = version
        self.lines: list[str] = []
        self.ids: list[str] = []
        self.leaf: str | None = None
        self.clock = 1_760_000_000_000 + rng.randrange(10**9)
        self.n = 0

    def _ts(self) -> str:
        self.clock += self.rng.randrange(200, 30_000)
        t = time.gmtime(self.clock / 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{self.clock % 1000:03d}Z"

    def header(self, sid: str) -> None:
        head: dict = {"type": "session", "id": sid, "timestamp": self._ts(), "cwd": "/home/u/project"}
        if self.version >= 2:
            head["version"] = self.version
        head["title"] = _words(self.rng, 5)
        self.lines.append(json.dumps(head))

    def add(self, entry: dict) -> str:
        self.n += 1
        eid = f"{self.n:08x}"
        body = {"type": entry.pop("type")}
        if self.version >= 2:
            body |= {"id": eid, "parentId": self.leaf}
        body["timestamp"] = self._ts()
        body |= entry
        self.lines.append(json.dumps(body, ensure_ascii=False))
        self.ids.append(eid)
        self.leaf = eid
        return eid

    def turn(self, big: int) -> None:
        rng = self.rng
        self.add({"type": "message", "message": {"role": "user", "content": _words(rng, rng.randrange(5, 60)),
                                                  "timestamp": self.clock}})
        for _ in range(rng.randrange(1, 4)):
            call_id = f"call_{rng.randrange(10**9)}"
            tool = rng.choice(["read", "bash", "edit", "grep"])
            self.add({"type": "message", "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": _words(rng, rng.randrange(20, 200))},
                    {"type": "text", "text": _words(rng, rng.randrange(5, 80))},
                    {"type": "toolCall", "id": call_id, "name": tool,
                     "arguments": {"path": "/home/u/project/src/app.py", "command": "pytest -q"}},
                ],
                "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4",
                "usage": {"input": 1200, "output": 300, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1500,
                          "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}},
                "stopReason": "toolUse", "timestamp": self.clock}})
            self.add({"type": "message", "message": {
                "role": "toolResult", "toolCallId": call_id, "toolName": tool,
                "content": [{"type": "text", "text": _code(rng, rng.randrange(10, big))}],
                "isError": rng.random() < 0.05, "timestamp": self.clock}})
        self.add({"type": "message", "message": {
            "role": "assistant", "content": [{"type": "text", "text": _words(rng, rng.randrange(10, 120))}],
            "provider": "anthropic", "model": "claude-sonnet-4", "stopReason": "stop", "timestamp": self.clock}})

    def extras(self) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.15 and self.ids:
            self.add({"type": "label", "targetId": rng.choice(self.ids), "label": rng.choice(["good", "bug", "check"])})
        elif r < 0.25:
            rules = rng.sample(RULES, rng.randrange(1, 3))
            self.add({"type": "custom_message", "customType": "ttsr-injection",
                      "content": "<system-interrupt>" + _words(rng, 30) + "</system-interrupt>",
                      "display": False, "details": {"rules": rules}, "attribution": "agent"})
            self.add({"type": "ttsr_injection", "injectedRules": rules})
        elif r < 0.30 and len(self.ids) > 4:
            self.add({"type": "compaction", "summary": _words(rng, 150), "firstKeptEntryId": self.ids[-3],
                      "tokensBefore": rng.randrange(10_000, 150_000)})
        elif r < 0.36 and len(self.ids) > 6:
            # go back in the tree: the next turn starts a new branch
            target = rng.choice(self.ids[: len(self.ids) // 2])
            self.leaf = target
            self.add({"type": "branch_summary", "fromId": target, "summary": _words(rng, 60)})
        elif r < 0.40:
            self.add({"type": "model_change", "provider": "anthropic", "modelId": "claude-opus-4"})
            self.add({"type": "thinking_level_change", "thinkingLevel": rng.choice(["low", "high"])})


def make_session(rng: random.Random, turns: int, *, version: int = 3, big: int = 400) -> str:
    w = _Writer(rng, version)
    w.header(f"{rng.randrange(16**12):012x}-bench")
    w.add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4"})
    for _ in range(turns):
        w.turn(big)
        w.extras()
    return "\n".join(w.lines) + "\n"


def generate_corpus(folder: Path, target_mb: float, seed: int = 7) -> list[Path]:
    """Write session files until ``target_mb`` is reached; ~2% v1 files and ~2% with broken lines."""
    marker = folder / f".complete-{target_mb:g}-{seed}"
    if marker.exists():
        return sorted(folder.rglob("*.jsonl"))
    shutil.rmtree(folder, ignore_errors=True)
    rng = random.Random(seed)
    total = 0
    paths: list[Path] = []
    i = 0
    while total < target_mb * 1e6:
        kind = rng.random()
        text = make_session(rng, rng.randrange(5, 120), version=1 if kind < 0.02 else 3)
        if 0.02 <= kind < 0.04:
            lines = text.splitlines(keepends=True)
            at = rng.randrange(1, len(lines))
            lines.insert(at, '{"type":"message","id":"broken", "message": {"role":\n')
            text = "".join(lines)
        sub = folder / f"--home-u-project{i % 7}--"
        sub.mkdir(parents=True, exist_ok=True)
        p = sub / f"2026-01-01T00-00-{i:05d}_bench.jsonl"
        p.write_text(text, encoding="utf-8")
        paths.append(p)
        total += len(text.encode())
        i += 1
    marker.write_text(str(total))
    return paths


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _timed(fn) -> tuple[float, float, object]:
    """Wall and CPU seconds (all threads of this process) of one call."""
    t0, c0 = time.perf_counter(), _cpu()
    out = fn()
    return time.perf_counter() - t0, _cpu() - c0, out


def bench_ingest(paths: list[Path], runs: int) -> None:
    """Best of ``runs`` for each of: DuckDB's raw read (the ceiling), Store into :memory:, Store into a file.

    CPU seconds are printed next to wall seconds: on a shared machine wall time swings with the
    neighbours' load, while the CPU the process burns is the steadier measure of the work done.
    """
    import duckdb

    from workbench.store import Store

    size = sum(p.stat().st_size for p in paths)
    mb = size / 1e6
    print(f"corpus: {len(paths)} files, {mb:.1f} MB")
    files = [str(p.resolve()) for p in paths]
    best: dict[str, tuple[float, float]] = {}
    summary = None

    def keep(name: str, wall: float, cpu: float) -> None:
        w, c = best.get(name, (float("inf"), float("inf")))
        best[name] = (min(w, wall), min(c, cpu))

    raw_sql = ("CREATE TABLE raw AS SELECT * FROM read_json_objects(?, format='newline_delimited', "
               "ignore_errors=true, filename=true, maximum_object_size=1073741824)")
    for _ in range(runs):
        con = duckdb.connect()
        wall, cpu, _n = _timed(lambda: con.execute(raw_sql, [files]))
        con.close()
        keep("ceiling", wall, cpu)
        with tempfile.TemporaryDirectory(dir=paths[0].parent.parent) as tmp:
            con = duckdb.connect(str(Path(tmp) / "raw.duckdb"))
            wall, cpu, _n = _timed(lambda: (con.execute(raw_sql, [files]), con.close()))
            keep("ceiling_file", wall, cpu)
        with Store() as mem:
            wall, cpu, summary = _timed(lambda: mem.ingest(files))
        keep("memory", wall, cpu)
        with tempfile.TemporaryDirectory(dir=paths[0].parent.parent) as tmp:
            with Store(Path(tmp) / "bench.duckdb") as store:
                wall, cpu, _s = _timed(lambda: store.ingest(files))
                keep("file", wall, cpu)
                if _ == 0:
                    w2, _c, again = _timed(lambda: store.ingest(files))
                    print(f"re-ingest, nothing changed: {w2:.2f} s ({again.skipped_files} files skipped)")
                    for q, deep in (("clearTimeout", False), ("no-console-log", False), ("raise ValueError", True)):
                        w3, _c, hits = _timed(lambda: store.search(q, limit=50, deep=deep))
                        print(f"search {q!r}{' deep' if deep else ''}: {w3 * 1000:.0f} ms, {len(hits)} hits")
    assert summary is not None
    print(f"store summary: {summary.entries} entries, {summary.sessions} sessions, "
          f"{summary.fallback_files} files via the session parser, {len(summary.errors)} errors")
    print(f"{'best of ' + str(runs):<34} {'wall s':>7} {'MB/s':>7} {'cpu s':>7} {'MB/cpu-s':>9}")
    labels = {"ceiling": "read_json_objects, :memory:", "ceiling_file": "read_json_objects, file DB",
              "memory": "Store.ingest, :memory:", "file": "Store.ingest, file DB"}
    for key, label in labels.items():
        wall, cpu = best[key]
        print(f"{label:<34} {wall:7.2f} {mb / wall:7.1f} {cpu:7.2f} {mb / cpu:9.1f}")
    for key, ceiling in (("memory", "ceiling"), ("file", "ceiling_file")):
        print(f"ratio {key:<6} store / raw read into the same kind of DB: wall {best[ceiling][0] / best[key][0]:.2f}, "
              f"cpu {best[ceiling][1] / best[key][1]:.2f}   (goal >= 0.5)")
    print(f"ratio file   store / raw read into :memory: (strict): wall {best['ceiling'][0] / best['file'][0]:.2f}, "
          f"cpu {best['ceiling'][1] / best['file'][1]:.2f}")


def bench_tree(data: Path, n: int = 100_000) -> None:
    """Load, tree build and flatten of one generated session of ``n`` entries (branched, labels...)."""
    from workbench.sessions import SessionTree, load_session

    try:
        from workbench.tree import TreeList
    except ImportError:  # a checkout from before the tree package (figures of older commits)
        from workbench.sessions import TreeList  # type: ignore[attr-defined,no-redef]

    path = data / f"big-session-{n}.jsonl"
    if not path.exists():
        rng = random.Random(11)
        w = _Writer(rng)
        w.header("big-session")
        while w.n < n:
            w.turn(12)
            w.extras()
        path.write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    t_load, _c, session = _timed(lambda: load_session(path))
    tree = SessionTree(session)
    t_tree, _c, roots = _timed(tree.get_tree)
    t_flat, _c, tl = _timed(lambda: TreeList(tree))
    t_rows, _c, rows = _timed(tl.rows)
    t_all, _c, tl_all = _timed(lambda: TreeList(tree, filter_mode="all"))
    t_search, _c, found = _timed(lambda: tl.set_search("clearTimeout"))
    print(f"tree: {len(session.entries)} entries ({path.stat().st_size / 1e6:.0f} MB), {len(roots)} root(s)")
    print(f"  load {t_load:.2f} s, tree build {t_tree:.2f} s, flatten (default filter) {t_flat:.2f} s, "
          f"rows {t_rows:.2f} s ({len(rows)} rows), flatten (all) {t_all:.2f} s, "
          f"search {t_search:.2f} s ({len(found.visible_ids)} rows)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0, help="corpus size in MB (default 200)")
    ap.add_argument("--data", type=Path, default=ROOT / "_data", help="where the corpus is generated")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per measurement; the best is shown")
    ap.add_argument("--entries", type=int, default=100_000, help="entries of the tree benchmark session")
    ap.add_argument("--skip-tree", action="store_true", help="only the ingest figures")
    ap.add_argument("--skip-ingest", action="store_true", help="only the tree figures")
    args = ap.parse_args()
    if not args.skip_ingest:
        t0 = time.perf_counter()
        paths = generate_corpus(args.data / "corpus", args.mb)
        print(f"corpus ready in {time.perf_counter() - t0:.1f} s under {args.data} (cpus: {os.cpu_count()})")
        bench_ingest(paths, args.runs)
    if not args.skip_tree:
        bench_tree(args.data, args.entries)


if __name__ == "__main__":
    main()
