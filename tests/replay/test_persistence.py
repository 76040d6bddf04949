"""The session copy: restored names come from the current branch only; writes never touch the original."""

from __future__ import annotations

import json

from workbench.replay import SessionCopy


def _session(tmp_path):
    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
        {"type": "ttsr_injection", "id": "r", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z", "injectedRules": ["a"]},
        {"type": "ttsr_injection", "id": "x", "parentId": "r", "timestamp": "2026-01-01T00:00:02.000Z", "injectedRules": ["off-branch"]},
        {"type": "ttsr_injection", "id": "y", "parentId": "r", "timestamp": "2026-01-01T00:00:03.000Z", "injectedRules": ["b", "a"]},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_restored_names_follow_the_active_branch(tmp_path):
    copy = SessionCopy(str(_session(tmp_path)), cwd="/p")
    assert copy.injected_rule_names() == ["a", "b"]


def test_new_entries_chain_under_the_leaf_with_fresh_ids(tmp_path):
    copy = SessionCopy(str(_session(tmp_path)), cwd="/p")
    copy.append_injection([" a ", "", "c"], 1500)
    copy.append_injection(["  "], 1600)  # nothing left after trimming: no entry
    assert copy.new_entries == [
        {"type": "ttsr_injection", "id": "ttsr0000", "parentId": "y", "timestamp": "1970-01-01T00:00:01.500Z",
         "injectedRules": ["a", "c"]}
    ]
    assert copy.injected_names() == ["a", "c"]


def test_a_copy_without_a_session_gets_its_own_header(tmp_path):
    copy = SessionCopy(None, cwd="/p")
    copy.append_custom_message({"customType": "ttsr-injection", "content": "x", "details": {"rules": ["a"]}, "timestamp": 0})
    out = copy.write(tmp_path / "new.jsonl")
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[0]["type"] == "session" and rows[0]["cwd"] == "/p"
    assert rows[1]["type"] == "custom_message" and rows[1]["parentId"] is None and rows[1]["display"] is False
