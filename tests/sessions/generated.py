"""Generated session records for the property tests of the loader and the `/tree` list, and the small
chained sessions the omp18 context and selector tests build."""

from __future__ import annotations

import json
import random

from workbench.sessions import parse_session_text

HEADER = {"type": "session", "version": 3, "id": "S", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def chained_session(*bodies: dict, header: dict | None = None):
    """Entries chained in order (ids e1, e2, ...), one second apart."""
    records = [header or HEADER]
    parent = None
    for i, body in enumerate(bodies, start=1):
        records.append({"id": f"e{i}", "parentId": parent, "timestamp": f"2026-01-01T00:00:{i:02d}.000Z", **body})
        parent = f"e{i}"
    return parse_session_text("".join(json.dumps(r) + "\n" for r in records), path="t.jsonl")


def user_msg(text: str) -> dict:
    return {"type": "message", "message": {"role": "user", "content": text, "timestamp": 1}}


def assistant_msg(content: list, **extra) -> dict:
    return {"type": "message", "message": {"role": "assistant", "content": content, "provider": "anthropic",
                                           "model": "m", "stopReason": "stop", "timestamp": 2, **extra}}



def tangled_records(rng: random.Random, n: int, *, duplicates: bool, loops: bool) -> list[dict]:
    """``n`` entry records with orphans, self-parents, parent cycles (``loops``), reused ids
    (``duplicates``), labels and reused tool-call ids: the shapes the loader and the tree must survive."""
    recs: list[dict] = []
    ids: list[str] = []
    # An id reused by a later entry is never anyone's parent: the agent's getTree would place that
    # later node under its own descendants, a tree without end (the flattening would never stop).
    parents: set[str] = set()
    reused: set[str] = set()
    for i in range(n):
        free = [x for x in ids if x not in parents]
        eid = f"e{i}"
        if duplicates and free and rng.random() < 0.1:
            eid = rng.choice(free)
            reused.add(eid)
        usable = [x for x in ids if x not in reused]
        r = rng.random()
        if not usable or r < 0.05:
            parent = None
        elif r < 0.1:
            parent = f"gone{i}"  # an orphan
        elif r < 0.13 and eid not in reused:
            parent = eid  # its own parent
        elif loops and not duplicates and r < 0.2:
            parent = f"e{i + rng.randint(1, 3)}"  # a later entry: parent cycles
        else:
            parent = usable[-1] if rng.random() < 0.8 else rng.choice(usable)
        if parent is not None:
            parents.add(parent)
        kind = rng.random()
        if kind < 0.3:
            rec = {"type": "message", "message": {"role": "user", "content": f"u{i}"}}
        elif kind < 0.6:
            blocks = [{"type": "toolCall", "id": f"t{rng.randint(0, 8)}", "name": rng.choice(["read", "bash", "ls"]),
                       "arguments": {"path": f"/p/{i}", "command": f"c{i}"}} for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.5:
                blocks.insert(0, {"type": "text", "text": f"a{i}"})
            rec = {"type": "message", "message": {"role": "assistant", "content": blocks,
                                                  "stopReason": rng.choice(["toolUse", "stop", "error"])}}
        elif kind < 0.85:
            rec = {"type": "message", "message": {"role": "toolResult", "toolCallId": f"t{rng.randint(0, 8)}",
                                                  "toolName": "read", "content": "r"}}
        else:
            rec = {"type": "label", "targetId": rng.choice(ids) if ids else eid, "label": f"L{i}"}
        rec.update(id=eid, parentId=parent, timestamp=f"2026-01-01T00:{i // 60 % 60:02d}:{rng.randint(0, 59):02d}Z")
        recs.append(rec)
        ids.append(eid)
    return recs
