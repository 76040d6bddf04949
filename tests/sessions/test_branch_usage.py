"""The usage of one branch: assistant messages root→leaf, judge calls apart per rule, subagents rolled up."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.sessions import branch_usage, load_session, subagent_files
from workbench.sessions.usage import UNATTRIBUTED

# Known numbers: every expected sum below is added up by hand from these.
A1 = {"input": 100, "output": 10, "cacheRead": 1, "cacheWrite": 2, "totalTokens": 113, "cost": {"total": 0.5}}
A2 = {"input": 200, "output": 20, "cacheRead": 4, "cacheWrite": 8, "totalTokens": 232, "cost": {"total": 0.25}}
B1 = {"input": 1000, "output": 100, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1100, "cost": {"total": 3.0}}
J1 = {"input": 7, "output": 1, "totalTokens": 8, "cost": {"total": 0.01}}
J2 = {"input": 9, "output": 1, "totalTokens": 10, "cost": {"total": 0.02}}
C1 = {"input": 50, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 55, "cost": {"total": 0.125}}


def _write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _assistant(eid: str, parent: str, model: str, usage: dict) -> dict:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-11-30T10:00:00Z",
            "message": {"role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}], "usage": usage}}


def _judge(eid: str, parent: str, usage: dict) -> dict:
    return {"type": "model_usage", "id": eid, "parentId": parent, "timestamp": "2026-11-30T10:00:01Z",
            "purpose": "ttsr", "api": "a", "provider": "p", "model": "judge-m", "usage": usage, "stopReason": "stop"}


def make_family(tmp_path: Path) -> Path:
    parent = tmp_path / "parent.jsonl"
    _write(parent, [
        {"type": "session", "version": 3, "id": "P", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/proj"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-30T10:00:00Z",
         "message": {"role": "user", "content": "go"}},
        _assistant("a1", "u1", "m1", A1),
        _judge("j1", "a1", J1),
        {"type": "ttsr_injection", "id": "t1", "parentId": "j1", "timestamp": "2026-11-30T10:00:02Z",
         "injectedRules": ["no-sleep"]},
        _judge("j2", "t1", J2),  # a "no": nothing names its rule
        _assistant("a2", "j2", "m2", A2),
        _assistant("b1", "u1", "m1", B1),  # another branch
    ])
    (tmp_path / "parent").mkdir()
    _write(tmp_path / "parent" / "scout1.jsonl", [
        {"type": "session", "version": 3, "id": "C", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/proj",
         "parentSession": str(parent)},
        {"type": "session_init", "id": "i", "parentId": None, "timestamp": "2026-11-30T10:00:00Z",
         "systemPrompt": "", "task": "look", "tools": [], "agent": "scout"},
        _assistant("c1", "i", "m1", C1),
    ])
    # not a child: its header names another parent
    _write(tmp_path / "parent" / "stranger.jsonl", [
        {"type": "session", "version": 3, "id": "S", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/", "parentSession": "/x.jsonl"},
        _assistant("s1", None, "m1", B1),
    ])
    return parent


def test_branch_sums_only_the_path_and_counts_judge_calls_apart(tmp_path: Path) -> None:
    session = load_session(make_family(tmp_path))
    usage = branch_usage(session, "a2", children=False)
    out = usage.to_json()
    assert out["input"] == 100 + 200 and out["output"] == 10 + 20 and out["cacheRead"] == 1 + 4
    assert out["cacheWrite"] == 2 + 8 and out["totalTokens"] == 113 + 232 and out["cost"] == 0.5 + 0.25
    assert out["byModel"]["m2"]["input"] == 200 and out["byModel"]["m1"]["cost"] == 0.5
    judge = {j["rule"]: j for j in out["judge"]}
    assert judge["no-sleep"]["calls"] == 1 and judge["no-sleep"]["input"] == 7 and judge["no-sleep"]["cost"] == 0.01
    assert judge[UNATTRIBUTED]["totalTokens"] == 10
    assert "children" not in out


def test_default_leaf_is_the_files_last_entry_and_keys_are_the_contracts(tmp_path: Path) -> None:
    out = branch_usage(load_session(make_family(tmp_path)), children=False).to_json()
    assert set(out) == {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "byModel"}
    assert out["input"] == 1000 and out["cost"] == 3.0


def test_subagents_roll_up_and_are_shown_apart(tmp_path: Path) -> None:
    parent = make_family(tmp_path)
    assert [p.name for p in subagent_files(load_session(parent))] == ["scout1.jsonl"]
    usage = branch_usage(load_session(parent), "a1")
    out = usage.to_json()
    assert out["input"] == 100 + 50 and out["cost"] == 0.5 + 0.125
    assert out["byModel"]["m1"]["messages"] == 2
    [child] = out["children"]
    assert child["agent"] == "scout" and child["sessionId"] == "C" and child["input"] == 50
