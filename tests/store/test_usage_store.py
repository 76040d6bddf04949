"""Usage across sessions from the store, grouped by model, day, week and cwd."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from workbench.errors import UsageError
from workbench.store import Store, usage_by


def _assistant(eid: str, parent: str | None, model: str, day: str, inp: int, out: int | str, cost: float) -> dict:
    total = inp + (out if isinstance(out, int) else 0)
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": f"{day}T09:00:00.000Z",
            "message": {"role": "assistant", "model": model, "content": [],
                        "usage": {"input": inp, "output": out, "totalTokens": total, "cost": {"total": cost}}}}


@pytest.fixture()
def store(tmp_path: Path):
    one = [{"type": "session", "version": 3, "id": "one", "timestamp": "2026-11-29T09:00:00Z", "cwd": "/a"},
           _assistant("x1", None, "m1", "2026-11-29", 10, 1, 0.5),   # Sunday: ISO week 48
           _assistant("x2", "x1", "m2", "2026-11-30", 20, 2, 0.25),  # Monday: week 49
           {"type": "model_usage", "id": "j", "parentId": "x2", "timestamp": "2026-11-30T09:00:01Z", "purpose": "ttsr",
            "model": "judge", "usage": {"input": 3, "output": 1, "totalTokens": 4, "cost": {"total": 0.125}}},
           {"type": "model_usage", "id": "t", "parentId": "j", "timestamp": "2026-11-30T09:00:02Z", "purpose": "title",
            "model": "tiny", "usage": {"totalTokens": 2, "cost": {"total": 0.0625}}}]
    two = [{"type": "session", "version": 3, "id": "two", "timestamp": "2026-12-01T09:00:00Z", "cwd": "/b"},
           _assistant("y1", None, "m1", "2026-12-01", 100, "many", 1.0)]  # "many" is not a number: left out
    for name, records in (("one.jsonl", one), ("two.jsonl", two)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with Store() as db:
        db.ingest([tmp_path])
        yield db


def _by(rows: list[dict]) -> dict[str, dict]:
    return {r["group"]: r for r in rows}


def test_by_model_sums_assistant_messages_and_keeps_judge_calls_apart(store: Store) -> None:
    rows = _by(usage_by(store, "model"))
    assert rows["m1"]["input"] == 10 + 100 and rows["m1"]["output"] == 1 and rows["m1"]["cost"] == 0.5 + 1.0
    assert rows["m1"]["sessions"] == 2 and rows["m2"]["messages"] == 1
    assert rows["judge"]["messages"] == 0 and rows["judge"]["judgeCalls"] == 1 and rows["judge"]["judgeCost"] == 0.125
    assert rows["tiny"]["otherCalls"] == 1 and rows["tiny"]["cost"] == 0


def test_by_day_week_and_cwd(store: Store) -> None:
    days = _by(usage_by(store, "day"))
    assert days["2026-11-30"]["input"] == 20 and days["2026-11-30"]["judgeTokens"] == 4
    weeks = _by(usage_by(store, "week"))
    assert weeks["2026-W48"]["input"] == 10 and weeks["2026-W49"]["input"] == 20 + 100
    cwd = _by(usage_by(store, "cwd"))
    assert cwd["/a"]["cost"] == 0.5 + 0.25 and cwd["/b"]["totalTokens"] == 100 and cwd["/b"]["output"] == 0


def test_since_until_and_paths(store: Store, tmp_path: Path) -> None:
    rows = usage_by(store, "model", since=date(2026, 11, 30), until=date(2026, 11, 30))
    assert {r["group"]: r["input"] for r in rows} == {"m2": 20, "judge": 0, "tiny": 0}
    only = usage_by(store, "model", paths=[str((tmp_path / "two.jsonl").resolve())])
    assert [(r["group"], r["input"]) for r in only] == [("m1", 100)]
    with pytest.raises(UsageError):
        usage_by(store, "hour")
