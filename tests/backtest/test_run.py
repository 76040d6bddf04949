"""``workbench.backtest``: per-rule trigger counts over a small corpus, locally and on Dask."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from workbench.backtest import (
    BacktestOptions,
    backtest_session,
    run_backtest,
    write_results,
)
from workbench.errors import NotFoundError, UsageError
from workbench.ttsr import TtsrSettings

RULES = {
    "no-unwrap.md": "---\ncondition: '\\.unwrap\\(\\)'\nscope: text, tool:edit(*.rs)\n---\nUse ?.\n",
    "no-console.md": "---\ncondition: 'console\\.log\\('\nscope: tool:edit(src/**/*.ts)\ninterruptMode: never\n---\nLogger.\n",
    "never.md": "---\ncondition: 'ZZZ_NEVER'\n---\nNever.\n",
    "rulebook.md": "---\ndescription: just guidance\n---\nGuidance.\n",
}


def write_session(path: Path, turns: list[list[dict]], cwd: str = "/proj") -> Path:
    """A v3 session: a user prompt, then per turn one assistant message (+ tool results)."""
    lines = [{"type": "session", "version": 3, "id": path.stem, "timestamp": "2026-01-01T00:00:00Z", "cwd": cwd}]
    parent = None
    n = 0

    def add(message: dict) -> None:
        nonlocal parent, n
        n += 1
        eid = f"{path.stem}-{n}"
        lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:01Z",
                      "message": {**message, "timestamp": 1767225600000 + n}})
        parent = eid

    add({"role": "user", "content": [{"type": "text", "text": "please help"}]})
    for blocks in turns:
        calls = [b for b in blocks if b["type"] == "toolCall"]
        add({"role": "assistant", "content": blocks, "stopReason": "toolUse" if calls else "stop"})
        for call in calls:
            add({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                 "content": [{"type": "text", "text": "ok"}], "isError": False})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def edit(call_id: str, path: str, new: str) -> dict:
    return {"type": "toolCall", "id": call_id, "name": "edit",
            "arguments": {"path": path, "old_string": "x", "new_string": new}}


@pytest.fixture()
def rules_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir()
    for name, body in RULES.items():
        (folder / name).write_text(body, encoding="utf-8")
    return folder


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    (folder / "nested").mkdir(parents=True)
    write_session(folder / "a.jsonl", [
        [text("Looking at the config loader.")],
        [text("I will just call cfg.unwrap() here for now.")],
        [text("Again: value.unwrap() is fine.")],
    ])
    write_session(folder / "b.jsonl", [
        [text("Adding a log line."), edit("t1", "src/server/app.ts", "console.log('hi');")],
        [edit("t2", "docs/notes.ts", "console.log('outside src');")],
    ])
    write_session(folder / "nested" / "c.jsonl", [[text("Nothing to see.")], [edit("t3", "lib.rs", "let v = r.unwrap();")]])
    (folder / "notes.jsonl").write_text('{"hello": "not a session"}\n', encoding="utf-8")
    return folder


def by_rule(result):
    return {r.rule: r for r in result.rules}


def test_per_rule_sessions_turns_first_trigger_and_samples(rules_dir, corpus):
    result = run_backtest(rules_dir, [corpus], workers=1)
    assert [Path(s.session).name for s in result.sessions] == ["a.jsonl", "b.jsonl", "c.jsonl", "notes.jsonl"]
    rules = by_rule(result)
    unwrap = rules["no-unwrap"]
    assert (unwrap.sessions, unwrap.turns) == (2, 3)  # a: turns 1 and 2; c: the edit of lib.rs in turn 1
    assert Path(unwrap.first.session).name == "a.jsonl"
    assert (unwrap.first.turn, unwrap.first.source) == (1, "text")
    assert unwrap.first.offset == len("I will just call cfg")
    assert ".unwrap()" in unwrap.first.snippet
    assert unwrap.interrupting_turns == 3
    console = rules["no-console"]
    # Only the edit under src/ is in scope; the docs/ edit is not.
    assert (console.sessions, console.turns, console.interrupting_turns) == (1, 1, 0)
    assert console.first.tool_name == "edit" and console.first.stream_key == "toolcall:t1#src/server/app.ts"
    assert set(result.never_fired) == {"never", "rulebook"}
    assert dict(result.not_registered) == {"rulebook": "no condition or astCondition (not a TTSR rule)"}
    (bad,) = result.errors
    assert Path(bad.session).name == "notes.jsonl" and "not a session" in bad.error
    assert result.turns == 3 + 2 + 2
    assert len(result.hits) == 4
    # Samples come from different sessions first, then other distinct snippets.
    assert [(Path(h.session).name, h.turn) for h in unwrap.samples] == [("a.jsonl", 1), ("c.jsonl", 1), ("a.jsonl", 2)]


def test_local_processes_give_the_same_result(rules_dir, corpus):
    seen = []
    one = run_backtest(rules_dir, [corpus], workers=1)
    many = run_backtest(rules_dir, [corpus], workers=2, progress=lambda done, total, _path: seen.append((done, total)))
    assert many == one
    assert seen[-1] == (4, 4) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_chunking_changes_when_not_whether(rules_dir, corpus):
    coarse = backtest_session(str(corpus / "a.jsonl"), _rules(rules_dir), BacktestOptions(size=50))
    fine = backtest_session(str(corpus / "a.jsonl"), _rules(rules_dir), BacktestOptions(size=1))
    assert [(h.rule, h.turn, h.offset) for h in coarse.hits] == [(h.rule, h.turn, h.offset) for h in fine.hits]
    assert coarse.hits[0].fired_at > fine.hits[0].fired_at


def test_agent_mode_interrupts_and_the_repeat_policy_silence_later_turns(rules_dir, corpus):
    probe = by_rule(run_backtest(rules_dir, [corpus], workers=1))
    agent_result = run_backtest(rules_dir, [corpus], workers=1, options=BacktestOptions(mode="agent"))
    agent = by_rule(agent_result)
    # Session a: turn 1 interrupts, the retry consumes turn 2, and `once` keeps the rule quiet there.
    assert (probe["no-unwrap"].turns, agent["no-unwrap"].turns) == (3, 2)
    assert [(Path(h.session).name, h.turn) for h in agent_result.hits if h.rule == "no-unwrap"] == [
        ("a.jsonl", 1), ("c.jsonl", 1)]
    # c ends on the interrupted edit: nothing recorded after it to retry with.
    statuses = {Path(s.session).name: s.status for s in agent_result.sessions}
    assert statuses == {"a.jsonl": "completed", "b.jsonl": "completed",
                        "c.jsonl": "interrupted, no recorded continuation", "notes.jsonl": None}
    again = by_rule(run_backtest(rules_dir, [corpus], workers=1, options=BacktestOptions(
        mode="agent", settings=TtsrSettings.of(repeat_mode="after-gap", repeat_gap=0))))
    assert again["no-unwrap"].turns == 3  # gap 0: the retry (recorded turn 2) fires again


def _rules(folder: Path):
    from workbench.backtest import load_rule_set

    return load_rule_set(folder)


def test_results_land_in_duckdb(rules_dir, corpus, tmp_path):
    from workbench.store import Store

    result = run_backtest(rules_dir, [corpus], workers=1)
    written = write_results(result, tmp_path / "out")
    with Store(written["duckdb"], read_only=True) as store:
        rules = {r["rule"]: r for r in store.read_table("backtest_rules")}
        hits = store.read_table("backtest_hits")
        sessions = store.read_table("backtest_sessions")
    assert rules["no-unwrap"]["sessions"] == 2 and rules["no-unwrap"]["turns"] == 3
    assert rules["never"]["fired"] is False
    assert len(hits) == 4 and {h["rule"] for h in hits} == {"no-unwrap", "no-console"}
    assert sorted(s["turns"] for s in sessions) == [0, 2, 2, 3]


def test_bad_inputs(rules_dir, corpus, tmp_path):
    with pytest.raises(NotFoundError):
        run_backtest(rules_dir, [tmp_path / "missing"], workers=1)
    with pytest.raises(NotFoundError):
        run_backtest(tmp_path / "no-rules", [corpus], workers=1)
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotFoundError):
        run_backtest(rules_dir, [tmp_path / "empty"], workers=1)
    with pytest.raises(UsageError):
        run_backtest(rules_dir, [corpus], workers=0)
    with pytest.raises(UsageError):
        run_backtest(rules_dir, [corpus], workers=1, options=BacktestOptions(policy="lines"))


@pytest.mark.slow
def test_dask_cluster_gives_identical_results(rules_dir, corpus):
    distributed = pytest.importorskip("distributed")
    local = run_backtest(rules_dir, [corpus], workers=1)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=logging.CRITICAL) as cluster:
        seen = []
        remote = run_backtest(rules_dir, [corpus], scheduler=cluster.scheduler_address,
                              progress=lambda done, total, _path: seen.append((done, total)))
    assert remote == local
    assert remote.scheduler is not None and remote.scheduler.startswith("tcp://127.0.0.1:")
    assert seen[-1] == (4, 4)


def test_parquet_files_next_to_the_database(rules_dir, corpus, tmp_path):
    written = write_results(run_backtest(rules_dir, [corpus], workers=1), tmp_path / "out")
    for table in ("backtest_rules", "backtest_hits", "backtest_sessions"):
        data = Path(written[table]).read_bytes()
        assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"


# --- the time bound ---------------------------------------------------------------------------------

SLOW_RULE = "---\ncondition: '(a+)+$'\nscope: text\n---\nCatastrophic on a run of a's that does not end the text.\n"


@pytest.fixture()
def slow_corpus(tmp_path: Path) -> Path:
    """Three sessions; the middle one holds a long run of ``a`` followed by more text."""
    folder = tmp_path / "slow-sessions"
    folder.mkdir()
    write_session(folder / "1-before.jsonl", [[text("First cfg.unwrap() here.")]])
    write_session(folder / "2-slow.jsonl", [[text("Before the run."), text("a" * 40 + "! then value.unwrap() too")]])
    write_session(folder / "3-after.jsonl", [[text("Later x.unwrap() again.")], [text("aaa!")]])
    return folder


def _with_slow_rule(rules_dir: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "rules-with-slow"
    folder.mkdir()
    for f in rules_dir.iterdir():
        (folder / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "slow.md").write_text(SLOW_RULE, encoding="utf-8")
    return folder


def _hits(result):
    return [(Path(h.session).name, h.rule, h.turn, h.offset) for h in result.hits]


@pytest.mark.parametrize("mode", ["probe", "agent"])
def test_a_catastrophic_rule_is_disabled_and_reported(rules_dir, slow_corpus, tmp_path, mode):
    with_slow = _with_slow_rule(rules_dir, tmp_path)
    options = BacktestOptions(mode=mode, time_bound=1.0)
    result = run_backtest(with_slow, [slow_corpus], workers=1, options=options)
    (disabled,) = result.disabled
    assert disabled[0] == "slow" and Path(disabled[1]).name == "2-slow.jsonl" and "1s time bound" in disabled[2]
    slow = by_rule(result)["slow"]
    assert slow.turns == 0 and "at session" in slow.disabled and "slow" not in result.never_fired
    assert result.sessions and all(s.disabled == ("slow",) for s in result.sessions)
    assert [Path(s.session).name for s in result.sessions if s.slow] == ["2-slow.jsonl"]
    # Every other rule sees every session, as in a backtest without the slow rule at all (in probe
    # mode this checks that dropping a rule's hits equals replaying without it).
    without = run_backtest(rules_dir, [slow_corpus], workers=1, options=options)
    assert _hits(result) == _hits(without) and len(without.hits) == 3
    assert [s.status for s in result.sessions] == [s.status for s in without.sessions]


def test_the_bound_gives_the_same_result_on_local_processes(rules_dir, slow_corpus, tmp_path):
    with_slow = _with_slow_rule(rules_dir, tmp_path)
    options = BacktestOptions(time_bound=1.0)
    one = run_backtest(with_slow, [slow_corpus], workers=1, options=options)
    many = run_backtest(with_slow, [slow_corpus], workers=3, options=options)
    assert many == one and many.disabled


def test_well_behaved_rules_give_the_same_result_with_and_without_the_bound(rules_dir, corpus):
    bounded = run_backtest(rules_dir, [corpus], workers=1)
    unbounded = run_backtest(rules_dir, [corpus], workers=1, options=BacktestOptions(time_bound=None))
    assert bounded == unbounded and bounded.disabled == ()


def test_batch_reports_each_outcome_as_it_arrives(rules_dir, slow_corpus, tmp_path):
    from workbench.backtest import backtest_batch

    rules = _rules(_with_slow_rule(rules_dir, tmp_path))
    paths = sorted(str(p) for p in slow_corpus.iterdir())
    seen = []
    out = backtest_batch(paths, rules, BacktestOptions(time_bound=1.0), on_outcome=lambda o: seen.append(o.session))
    assert seen == paths == [o.session for o in out]
    # The batch goes on without the rule after the session that exceeded the bound.
    assert [o.disabled for o in out] == [(), ("slow",), ("slow",)]


def test_time_bound_must_be_positive(rules_dir, corpus):
    with pytest.raises(UsageError):
        run_backtest(rules_dir, [corpus], workers=1, options=BacktestOptions(time_bound=0))


@pytest.mark.parametrize(("count", "workers"), [(2480, 2), (20, 2), (3, 2), (1000, 4)])
def test_local_batches_cover_every_file_once_and_shrink_toward_the_end(count, workers):
    """The pool takes batches from the front and this process from the back: every file is in one
    batch, each batch is a run of positions, and the last ones handed out are the shortest."""
    from workbench.backtest.run import _LEAST_BATCH, _MOST_BATCH, _Cutter

    files = [f"f{i}" for i in range(count)]
    cutter = _Cutter(files, workers)
    taken: list[tuple[int, list[str]]] = []
    turn = 0
    while cutter:
        taken.append(cutter.front() if turn % 3 else cutter.back())  # two from the front per one from the back
        turn += 1
    assert sorted(f for _, batch in taken for f in batch) == sorted(files)
    assert all(batch == files[first:first + len(batch)] for first, batch in taken)
    sizes = [len(batch) for _, batch in taken]
    assert max(sizes) <= _MOST_BATCH and sizes[-1] <= sizes[0]
    if count >= 2 * workers * _LEAST_BATCH:
        assert min(sizes[:-1]) >= _LEAST_BATCH and sizes[0] > 2 * sizes[-2]  # guided: big first, small last
