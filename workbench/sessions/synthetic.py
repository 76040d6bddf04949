"""Generated sessions of any size and the tree-speed figure used by ``benchmarks/``.

``generate_session_text(n)`` writes a v3 session with a long main chain and a side branch every
``branch_every`` entries (labels, tool calls, model changes mixed in), so tree building, flattening
and filtering see realistic shapes. ``time_tree(n)`` times each stage once.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from typing import Any

from workbench.sessions.loader import parse_session_text
from workbench.sessions.tree import SessionTree
from workbench.sessions.treelist import TreeList


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


def time_tree(n: int = 100_000, *, flavor: str = "omp") -> dict[str, float]:
    """Seconds for parse, tree build, TreeList flatten (default filter), a search and rendering all rows."""
    text = generate_session_text(n)
    out: dict[str, float] = {"entries": float(n)}
    t0 = time.perf_counter()
    session = parse_session_text(text, path="<synthetic>")
    t1 = time.perf_counter()
    tree = SessionTree(session)
    tree.get_tree()
    t2 = time.perf_counter()
    tl = TreeList(tree, flavor=flavor)  # type: ignore[arg-type]
    t3 = time.perf_counter()
    searched = tl.set_search("module42")
    t4 = time.perf_counter()
    rows = tl.rows()
    t5 = time.perf_counter()
    out.update(parse_s=t1 - t0, tree_s=t2 - t1, flatten_s=t3 - t2, search_s=t4 - t3, render_s=t5 - t4,
               visible=float(len(rows)), matches=float(len(searched.visible_ids)))
    return out
