"""Generated sessions of any size, for the tests and the figures of ``benchmarks/``.

``generate_session_text(n)`` writes a v3 session with a long main chain and a side branch every
``branch_every`` entries (labels, tool calls, model changes mixed in), so tree building, flattening
and filtering see realistic shapes (``workbench.tree.speed.time_tree`` times them). ``write_corpus(folder, n)``
writes ``n`` small sessions that differ where an archive's sessions differ (project, day, model, cost,
title), many with the same title, for the views of many sessions.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any


def generate_session_records(n: int, *, branch_every: int = 2000, tool_result_bytes: int = 0) -> list[dict[str, Any]]:
    """``n`` entries after a header: a main chain with short side branches and some labels.

    ``tool_result_bytes``: each tool result's text is about that long (a file body of numbered lines),
    as in sessions whose agent read large files: 24,000 entries of 10 kB make a 240 MB file."""
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "synthetic", "timestamp": start.isoformat().replace("+00:00", "Z"),
         "cwd": "/proj"}
    ]
    prev: str | None = None
    branch_point: str | None = None
    for i in range(n):
        eid = f"e{i:07x}"
        ts = (start + timedelta(seconds=i)).isoformat().replace("+00:00", "Z")
        kind = i % 7
        parent = prev
        if branch_every and i % branch_every == branch_every - 1 and branch_point is not None:
            parent = branch_point  # a sibling branch off an earlier entry
        rec: dict[str, Any] = {"type": "message", "id": eid, "parentId": parent, "timestamp": ts}
        if kind in (0, 4):
            rec["message"] = {"role": "user", "content": f"question {i} about module{i % 97}", "timestamp": i}
        elif kind in (1, 5):
            rec["message"] = {"role": "assistant", "content": [
                {"type": "text", "text": f"answer {i}"},
                {"type": "toolCall", "id": f"t{i}", "name": "read", "arguments": {"path": f"/proj/src/f{i % 13}.ts"}},
            ], "provider": "anthropic", "model": "m", "stopReason": "toolUse", "timestamp": i}
        elif kind in (2, 6):
            body = _file_body(i, tool_result_bytes) if tool_result_bytes else "file body"
            rec["message"] = {"role": "toolResult", "toolCallId": f"t{i - 1}", "toolName": "read",
                              "content": [{"type": "text", "text": body}], "isError": False, "timestamp": i}
        else:
            rec = {"type": "label", "id": eid, "parentId": parent, "timestamp": ts,
                   "targetId": f"e{max(0, i - 3):07x}", "label": f"mark {i}"}
        records.append(rec)
        if i % branch_every == 0:
            branch_point = eid
        if parent == prev:
            prev = eid
    return records


def _file_body(i: int, size: int) -> str:
    line = f"    const value{i % 89} = compute(input, {i});  // line of module{i % 97}\n"
    return (line * (size // len(line) + 1))[:size]


def generate_session_text(n: int, *, branch_every: int = 2000, tool_result_bytes: int = 0) -> str:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n"
                   for r in generate_session_records(n, branch_every=branch_every, tool_result_bytes=tool_result_bytes))


CORPUS_PROJECTS = ("/home/dev/billing", "/home/dev/web-app", "/home/dev/infra", "/home/dev/cli-tools", "/srv/agent-lab")
CORPUS_MODELS = ("claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5")
CORPUS_TITLES = ("Fix the failing build", "Review the pull request", "Add tests for the parser", "Update dependencies")


def corpus_records(i: int, *, replies: int = 3) -> list[dict[str, Any]]:
    """Session number ``i`` of a corpus: a header (project, day, every 4th a title), then ``replies``
    user/assistant turns, each reply with a usage block whose cost follows from ``i``; every 3rd
    session has a TTSR judge call after its first reply, every 6th one whose rule was injected."""
    start = datetime(2026, 10, 1, 9, tzinfo=timezone.utc) + timedelta(days=i % 45, minutes=i)
    stamp = start.isoformat().replace("+00:00", "Z")
    header: dict[str, Any] = {"type": "session", "version": 3, "id": f"corpus-{i:05d}", "timestamp": stamp,
                              "cwd": CORPUS_PROJECTS[i % len(CORPUS_PROJECTS)]}
    if i % 4 == 0:
        header["title"] = CORPUS_TITLES[(i // 4) % len(CORPUS_TITLES)]
    records: list[dict[str, Any]] = [header]
    model = CORPUS_MODELS[i % len(CORPUS_MODELS)]
    parent: str | None = None
    for turn in range(replies):
        ts = (start + timedelta(seconds=10 * turn)).isoformat().replace("+00:00", "Z")
        uid, aid = f"u{i:05d}{turn}", f"a{i:05d}{turn}"
        records.append({"type": "message", "id": uid, "parentId": parent, "timestamp": ts,
                        "message": {"role": "user", "content": f"task {i} step {turn}: look at module{i % 37}"}})
        tokens_in, tokens_out = 1000 + 10 * i, 100 + turn
        records.append({"type": "message", "id": aid, "parentId": uid, "timestamp": ts, "message": {
            "role": "assistant", "model": model, "provider": "anthropic", "stopReason": "stop",
            "content": [{"type": "text", "text": f"done with step {turn} of task {i}"}],
            "usage": {"input": tokens_in, "output": tokens_out, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": tokens_in + tokens_out, "cost": {"total": round(0.001 * (i % 50 + 1), 6)}}}})
        parent = aid
        if turn == 0 and i % 3 == 1:
            jid = f"j{i:05d}"
            records.append({"type": "model_usage", "id": jid, "parentId": parent, "timestamp": ts, "purpose": "ttsr",
                            "role": "tiny", "provider": "anthropic", "model": "claude-haiku-4-5",
                            "usage": {"input": 300, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 302,
                                      "cost": {"total": 0.0003}}})
            parent = jid
            if i % 6 == 1:
                records.append({"type": "ttsr_injection", "id": f"t{i:05d}", "parentId": parent, "timestamp": ts,
                                "injectedRules": [("no-unwrap", "no-any")[i % 12 == 1]]})
                parent = f"t{i:05d}"
    return records


def write_corpus(folder: str | Path, count: int, *, replies: int = 3) -> list[Path]:
    """``count`` corpus sessions (``corpus_records``) as ``folder/<project>/session-NNNNN.jsonl``."""
    written: list[Path] = []
    for i in range(count):
        records = corpus_records(i, replies=replies)
        target = Path(folder) / Path(str(records[0]["cwd"])).name / f"session-{i:05d}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
        written.append(target)
    return written
