"""Judge calls per rule across sessions, each file's model and cost, search counts (workbench.store)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from workbench.sessions import load_session
from workbench.sessions.synthetic import write_corpus
from workbench.sessions.usage import branch_usage
from workbench.store import Store, judge_by_rule, session_usage, usage_by, usage_sessions, usage_totals


def _usage(tokens: int, cost: float) -> dict:
    return {"input": tokens, "output": 1, "totalTokens": tokens + 1, "cost": {"total": cost}}


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture()
def linear(tmp_path: Path) -> Path:
    """One chain: a judge call whose rule was injected, one answered "no", one naming its rule."""
    def reply(eid: str, parent: str | None, second: int) -> dict:
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-11-29T09:00:0{second}Z",
                "message": {"role": "assistant", "model": "m", "content": [], "usage": _usage(10, 0.5)}}

    def judge(eid: str, parent: str, second: int, **extra: object) -> dict:
        return {"type": "model_usage", "id": eid, "parentId": parent, "timestamp": f"2026-11-29T09:00:0{second}Z",
                "purpose": "ttsr", "model": "jm", "usage": _usage(3 + second, 0.125), **extra}

    return _write(tmp_path / "linear.jsonl", [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-29T09:00:00Z", "cwd": "/a"},
        reply("a1", None, 0), judge("j1", "a1", 1),
        {"type": "ttsr_injection", "id": "i1", "parentId": "j1", "timestamp": "2026-11-29T09:00:02Z",
         "injectedRules": ["no-any", "no-unwrap"]},
        reply("a2", "i1", 3), judge("j2", "a2", 4), reply("a3", "j2", 5), judge("j3", "a3", 6, rule="named")])


def test_judge_calls_per_rule_match_the_branch_usage_of_a_linear_session(linear: Path) -> None:
    with Store() as store:
        store.ingest([linear])
        rows = judge_by_rule(store)
    expected = [j.to_json() for j in branch_usage(load_session(linear), children=False).judge]
    assert [{k: v for k, v in r.items() if k != "sessions"} for r in rows] == expected
    assert {r["rule"] for r in rows} == {"no-any, no-unwrap", "named", "(rule not recorded)"}
    assert all(r["sessions"] == 1 and r["calls"] == 1 for r in rows)


def test_judge_calls_are_attributed_on_every_branch_and_filtered_by_day(tmp_path: Path) -> None:
    # a branch point under the judge call: the injection sits on the second branch only
    _write(tmp_path / "fork.jsonl", [
        {"type": "session", "version": 3, "id": "f", "timestamp": "2026-11-29T09:00:00Z", "cwd": "/a"},
        {"type": "model_usage", "id": "j", "parentId": None, "timestamp": "2026-11-30T09:00:00Z", "purpose": "ttsr",
         "usage": _usage(5, 0.25)},
        {"type": "custom", "id": "c", "parentId": "j", "timestamp": "2026-11-30T09:00:01Z", "customType": "x"},
        {"type": "ttsr_injection", "id": "i", "parentId": "c", "timestamp": "2026-11-30T09:00:02Z",
         "injectedRules": ["deep-rule"]},
        {"type": "message", "id": "u", "parentId": "j", "timestamp": "2026-11-30T09:00:03Z",
         "message": {"role": "user", "content": "other branch"}}])
    with Store() as store:
        store.ingest([tmp_path])
        assert [(r["rule"], r["calls"], r["cost"]) for r in judge_by_rule(store)] == [("deep-rule", 1, 0.25)]
        assert judge_by_rule(store, until=date(2026, 11, 29)) == []
        # judge calls never reach the assistant totals
        assert usage_totals(usage_by(store, "model"))["cost"] == 0 and usage_sessions(store) == 1


def test_each_files_model_and_cost_and_the_totals_of_any_grouping(tmp_path: Path) -> None:
    files = write_corpus(tmp_path, 12)
    with Store() as store:
        store.ingest([tmp_path])
        per_file = session_usage(store)
        by_model, by_day = usage_by(store, "model"), usage_by(store, "day")
        assert usage_sessions(store) == 12
    for path in files:
        session = load_session(path)
        totals = branch_usage(session, children=False).own
        row = per_file[str(path.resolve())]
        assert row["cost"] == pytest.approx(totals.cost) and row["totalTokens"] == totals.tokens["totalTokens"]
        assert row["model"] == max(totals.by_model, key=lambda m: m.messages).model
    # any grouping adds up to the same totals
    assert usage_totals(by_model) == pytest.approx(usage_totals(by_day))
    assert usage_totals(by_model)["cost"] == pytest.approx(sum(r["cost"] for r in per_file.values()))


def test_search_count_counts_past_the_listed_hits(tmp_path: Path) -> None:
    write_corpus(tmp_path, 20)
    with Store() as store:
        store.ingest([tmp_path])
        listed = store.search("look at module1", limit=5)
        hits, files = store.search_count("LOOK AT module1")
        every = store.search("look at module1", limit=10_000)
    assert len(listed) == 5 and hits == len(every) > 5
    assert files == len({h["path"] for h in every})
    assert store.search_count("   ") == (0, 0)
