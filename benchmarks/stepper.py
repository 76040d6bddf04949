"""Stepper benchmark: a 10,000-event stream stepped through a small rule set.

Prints the time per 1,000 events stepped (with and without the time-bound guard run) and the memory
held by all snapshots (tracemalloc), to check that shared structure keeps a long stream small.
Then the first step on the 15k-event sample session (``sample_sessions/big-refactor.jsonl`` with the
rules of ``sample_sessions/project``): with the time-bound pre-check run before the first step (the
synchronous ``Stepper``) and in the background (``background=True``), and the ratio of the two.
Then the first step on a generated 100,000-entry session (issue 25), as the Stepper tab makes it
from the tree's loaded session: the stream derived whole and the time-bound pre-check run over all
of it before the first step (as before), against the stream derived turn by turn (``lazy=True``)
with the pre-check in the background; the ratio of the two, and how many messages were built.
Run: ``.venv/bin/python benchmarks/stepper.py [EVENTS] [--entries 100000] [--no-full]``.
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc

from workbench.replay import ReplayConfig, Stepper, make_stream, parse_event
from workbench.rules import Rule

WORDS = "the quick brown fox jumps over the lazy dog and then writes some code for the parser ".split(" ")


def build_stream(n_events: int):
    events = []
    turn = 0
    while len(events) < n_events:
        events += [parse_event({"type": "turn_start"}), parse_event({"type": "message_start", "role": "assistant"})]
        for i in range(300):  # a long prose message
            word = WORDS[(i + turn) % len(WORDS)] or "x"
            if turn % 5 == 4 and i == 150:
                word = "result.unwrap("
            events.append(parse_event({"type": "text_delta", "contentIndex": 0, "delta": word + " "}))
        call = f"call_{turn}"
        args = {"path": f"src/mod{turn}.ts", "new_string": " ".join(WORDS * 3) + ("console.log(x)" if turn % 7 == 3 else "")}
        raw = json.dumps(args)
        events.append(parse_event({"type": "toolcall_start", "contentIndex": 1, "id": call, "name": "edit"}))
        for j in range(0, len(raw), 12):
            events.append(parse_event({"type": "toolcall_delta", "contentIndex": 1, "delta": raw[j:j + 12]}))
        events += [
            parse_event({"type": "toolcall_end", "contentIndex": 1, "arguments": args}),
            parse_event({"type": "message_end", "stopReason": "toolUse"}),
            parse_event({"type": "tool_result", "toolCallId": call, "toolName": "edit", "content": [{"type": "text", "text": "ok"}]}),
            parse_event({"type": "turn_end"}),
        ]
        turn += 1
    return make_stream(events[:n_events], cwd="/proj")


RULES = [
    Rule("no-unwrap", "/proj/.omp/rules/no-unwrap.md", "No unwrap.", condition=[r"\.unwrap\("]),
    Rule("no-console", "/proj/.omp/rules/no-console.md", "No console.", condition=[r"console\.log"], scope=["tool:edit(*.ts)"],
         interrupt_mode="never"),
    Rule("todo", "/proj/.omp/rules/todo.md", "No TODO.", condition=[r"\bTODO\b", r"(?i)fixme"]),
    Rule("py-only", "/proj/.omp/rules/py.md", "Py.", condition=[r"import os"], globs=["*.py"]),
]


def _step_all(stream, settings, bound):
    started = time.perf_counter()
    st = Stepper(stream, RULES, ReplayConfig.of(settings, cwd="/proj", time_bound=bound))
    guard = time.perf_counter() - started
    t0 = time.perf_counter()
    snaps = st.snapshots()
    return st, snaps, guard, time.perf_counter() - t0


def first_step_on_sample() -> None:
    import tempfile
    from pathlib import Path

    from workbench.replay.derive import open_stream
    from workbench.replay.timebound import may_hang
    from workbench.rules.discovery import load_rules

    root = Path(__file__).resolve().parents[1] / "sample_sessions"
    stream, _ = open_stream(root / "big-refactor.jsonl")
    home = tempfile.mkdtemp(prefix="bench-home-")
    cwd = str(root / "project")
    rules = load_rules(cwd=cwd, home=home, repo_root=cwd, env={}, boundary=cwd).rules
    checked = [r.name for r in rules if may_hang(r)]
    print(f"sample big-refactor: {len(stream.events):,} events, {len(rules)} rules, "
          f"{len(checked)} not provably linear (pre-checked): {', '.join(checked)}")
    t0 = time.perf_counter()
    st = Stepper(stream, rules, ReplayConfig(cwd=stream.cwd or cwd, home=home))
    st.seek(0)
    sync = time.perf_counter() - t0
    t0 = time.perf_counter()
    st = Stepper(stream, rules, ReplayConfig(cwd=stream.cwd or cwd, home=home), background=True)
    st.seek(0)
    first = time.perf_counter() - t0
    st.precheck.wait()
    whole = time.perf_counter() - t0
    print(f"first step with the pre-check before it: {sync:.2f} s; with the pre-check in the background: "
          f"{first:.3f} s (ratio {first / sync:.3f}x; goal <= 1 s); the background check ended after {whole:.2f} s "
          f"({st.precheck.state}, {len(st.disabled)} rules disabled)")


def first_step_on_big_session(entries: int, full: bool) -> None:
    import tempfile
    from pathlib import Path

    from workbench.replay import ReplaySource, derive_stream
    from workbench.rules.discovery import load_rules
    from workbench.sessions import load_session
    from workbench.sessions.synthetic import generate_session_text

    root = Path(__file__).resolve().parents[1] / "sample_sessions"
    home = tempfile.mkdtemp(prefix="bench-home-")
    cwd = str(root / "project")
    rules = load_rules(cwd=cwd, home=home, repo_root=cwd, env={}, boundary=cwd).rules
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        path.write_text(generate_session_text(entries), encoding="utf-8")
        t0 = time.perf_counter()
        session = load_session(path)
        loaded = time.perf_counter() - t0
    config = ReplayConfig(cwd="/proj", home=home)
    t0 = time.perf_counter()
    stream = derive_stream(session, lazy=True)
    counted = time.perf_counter() - t0
    st = Stepper(ReplaySource(stream, label="lazy"), rules, config, background=True)
    st.seek(0)
    lazy = time.perf_counter() - t0
    st.seek(min(2000, len(st) - 1))
    near = time.perf_counter() - t0
    built = stream.events.builds  # type: ignore[attr-defined]
    if st.precheck is not None:
        st.precheck.cancel()
    print(f"{entries:,}-entry session: {len(stream.events):,} events; loading it {loaded:.2f} s (done once by the "
          f"Tree tab, whose session the Stepper reuses)")
    print(f"  turn by turn, pre-check in the background: first step {lazy:.2f} s (counting the events {counted:.2f} s; "
          f"goal <= 5 s), step 2,000 {near:.2f} s; {built:,} messages built")
    if not full:
        return
    t0 = time.perf_counter()
    whole = derive_stream(session)
    derived = time.perf_counter() - t0
    st = Stepper(ReplaySource(whole, label="full"), rules, config)
    st.seek(0)
    before = time.perf_counter() - t0
    print(f"  whole stream, pre-check first (before): first step {before:.2f} s (deriving {derived:.2f} s); "
          f"turn by turn takes {lazy / before:.3f}x that")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    entries = 100_000
    if "--entries" in sys.argv:
        entries = int(sys.argv[sys.argv.index("--entries") + 1])
        args.remove(str(entries))
    first_step_on_big_session(entries, "--no-full" not in sys.argv)
    first_step_on_sample()
    n = int(args[0]) if args else 10_000
    stream = build_stream(n)
    settings = {"repeatMode": "after-gap", "repeatGap": 3}
    per_k = n / 1000
    st, snaps, _, stepped = _step_all(stream, settings, None)
    triggers = sum(1 for s in snaps if s.is_trigger)
    print(f"{len(snaps)} events, {triggers} trigger steps")
    print(f"stepping (no time bound): {stepped * 1000 / per_k:.1f} ms per 1,000 events")
    t0 = time.perf_counter()
    for i in range(len(st) - 1, -1, -1):
        st.seek(i)
    print(f"seek back over every step (cached): {(time.perf_counter() - t0) * 1000 / per_k:.2f} ms per 1,000 events")
    t0 = time.perf_counter()
    st.seek(n // 2).to_json()
    print(f"one snapshot as JSON (conversations, spans materialised): {(time.perf_counter() - t0) * 1000:.1f} ms")
    del st, snaps
    _, _, guard, stepped = _step_all(stream, settings, 2.0)
    from workbench.replay.timebound import may_hang

    watched = sum(may_hang(r) for r in RULES)
    print(f"time-bound guard run (forked child, whole stream; {watched} of {len(RULES)} rules not provably linear, "
          f"none: no child): {guard * 1000 / per_k:.1f} ms per 1,000 events; "
          f"stepping after it: {stepped * 1000 / per_k:.1f} ms per 1,000 events")
    tracemalloc.start()
    st, snaps, _, _ = _step_all(stream, settings, None)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory held by the stepper and all {len(snaps)} snapshots: {current / 1e6:.1f} MB (peak {peak / 1e6:.1f} MB), "
          f"{current / len(snaps):.0f} bytes per snapshot")
    streamed = sum(len(e.delta or "") for e in stream.events)
    print(f"(for scale: the stream carries {streamed} characters of deltas; copying each step's buffers "
          f"would hold far more)")


if __name__ == "__main__":
    main()
