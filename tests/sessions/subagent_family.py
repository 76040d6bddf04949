"""A generated omp 18 session family for the support views: a parent that edits files in every edit mode,
reads a screenshot (an image part), runs a task with two subagents (one file on disk, one missing) and
mentions a secret and a home path; the child's file sits where the agent writes it
(``<parent without .jsonl>/<id>.jsonl``, header ``parentSession``, a ``session_init`` entry)."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

SECRET = "sk-ant-" + "a1B2c3D4e5F6g7H8i9J0kLmN"
MAIL = "dana.support@example.com"
HOME = "/home/dana/projects/app"


PNG_WIDTH, PNG_HEIGHT = 240, 90


def png(width: int = PNG_WIDTH, height: int = PNG_HEIGHT) -> bytes:
    """A valid PNG of blue and white bands (built here: no image library needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = [b"\x00" + bytes((31, 111, 235) if (y // 15) % 2 == 0 else (255, 255, 255)) * width for y in range(height)]
    raw = zlib.compress(b"".join(rows))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def _write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


USAGE = {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110, "cost": {"total": 0.5}}
CHILD_USAGE = {"input": 40, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 44, "cost": {"total": 0.25}}

# one call per edit mode (and write), with the ids the tests select
EDIT_CALLS = {
    "e-replace": ("edit", {"path": "src/app.py", "old_string": "x = 1\nprint('Hi')\n", "new_string": "x = 1\nprint('Hello')\n"}),
    "e-patch": ("edit", {"path": "src/util.py", "edits": [{"diff": "@@ def f():\n-    return 1\n+    return 2\n     # done"}]}),
    "e-apply": ("apply_patch", {"input": "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n*** Update File: src/main.py\n"
                                         "@@ def main():\n-    run(old=True)\n+    run(old=False)\n*** End Patch"}),
    "e-hashline": ("edit", {"input": "*** Begin Patch\n[src/a.ts#1A2B]\nPUT 3.=4:\n+const a = 3;\n+const b = 4;\nCUT 7.=9\n*** End Patch"}),
    "e-sloppy": ("edit", {"input": "*** Edit File: src/s.py\n*** Find\nold_call()\n*** Replace\nnew_call()\n"}),
    "e-write": ("write", {"path": "notes/todo.txt", "content": "first <b>item</b>\nsecond item\n"}),
}


def write_family(folder: Path, *, big_image_bytes: int = 0) -> dict[str, Path]:
    """Write the parent and its child under ``folder``; returns their paths (``parent``, ``child``)."""
    parent = folder / "support-parent.jsonl"
    records: list[dict] = [
        {"type": "session", "version": 3, "id": "sess-parent", "timestamp": "2026-11-30T10:00:00.000Z", "cwd": HOME},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-30T10:00:01.000Z",
         "message": {"role": "user", "content": f"fix it; my key is {SECRET}, mail {MAIL}"}},
    ]
    previous = "u1"
    for i, (eid, (tool, args)) in enumerate(EDIT_CALLS.items()):
        records.append({"type": "message", "id": eid, "parentId": previous, "timestamp": f"2026-11-30T10:01:{i:02d}.000Z",
                        "message": {"role": "assistant", "model": "m1", "usage": USAGE, "content": [
                            {"type": "toolCall", "id": f"call-{eid}", "name": tool, "arguments": args}]}})
        records.append({"type": "message", "id": f"r-{eid}", "parentId": eid, "timestamp": f"2026-11-30T10:01:{i:02d}.500Z",
                        "message": {"role": "toolResult", "toolCallId": f"call-{eid}", "toolName": tool,
                                    "content": [{"type": "text", "text": "ok"}]}})
        previous = f"r-{eid}"
    image_parts = [{"type": "text", "text": "the screenshot"},
                   {"type": "image", "mimeType": "image/png", "data": base64.b64encode(png()).decode("ascii")},
                   {"type": "image", "mimeType": "image/svg+xml", "data": base64.b64encode(b"<svg onload=alert(1)/>").decode()}]
    if big_image_bytes:
        image_parts.append({"type": "image", "mimeType": "image/png",
                            "data": base64.b64encode(b"\0" * big_image_bytes).decode("ascii")})
    records += [
        {"type": "message", "id": "a-read", "parentId": previous, "timestamp": "2026-11-30T10:02:00.000Z",
         "message": {"role": "assistant", "model": "m1", "usage": USAGE, "content": [
             {"type": "toolCall", "id": "call-read", "name": "read", "arguments": {"path": f"{HOME}/shot.png"}}]}},
        {"type": "message", "id": "r-image", "parentId": "a-read", "timestamp": "2026-11-30T10:02:01.000Z",
         "message": {"role": "toolResult", "toolCallId": "call-read", "toolName": "read", "content": image_parts}},
        {"type": "message", "id": "a-task", "parentId": "r-image", "timestamp": "2026-11-30T10:03:00.000Z",
         "message": {"role": "assistant", "model": "m1", "usage": USAGE, "content": [
             {"type": "toolCall", "id": "call-task", "name": "task", "arguments": {"agent": "scout", "tasks": []}}]}},
        {"type": "message", "id": "r-task", "parentId": "a-task", "timestamp": "2026-11-30T10:04:00.000Z",
         "message": {"role": "toolResult", "toolCallId": "call-task", "toolName": "task",
                     "content": [{"type": "text", "text": "2 agents finished"}],
                     "details": {"projectAgentsDir": None, "totalDurationMs": 10, "results": [
                         {"index": 0, "id": "0-Scout", "agent": "scout", "task": "look around", "exitCode": 0,
                          "output": "found it", "description": "find the bug"},
                         {"index": 1, "id": "1-Gone", "agent": "reviewer", "task": "review", "exitCode": 0,
                          "output": "", "description": "a file not kept"}]}}},
    ]
    _write(parent, records)
    child = folder / "support-parent" / "0-Scout.jsonl"
    _write(child, [
        {"type": "session", "version": 3, "id": "sess-child", "timestamp": "2026-11-30T10:03:01.000Z", "cwd": HOME,
         "parentSession": "/elsewhere/machine/support-parent.jsonl"},  # copied from another machine
        {"type": "session_init", "id": "i1", "parentId": None, "timestamp": "2026-11-30T10:03:01.000Z",
         "systemPrompt": "you are scout", "task": "look around", "tools": ["read"], "agent": "scout"},
        {"type": "message", "id": "c1", "parentId": "i1", "timestamp": "2026-11-30T10:03:02.000Z",
         "message": {"role": "user", "content": "look around"}},
        {"type": "message", "id": "c2", "parentId": "c1", "timestamp": "2026-11-30T10:03:03.000Z",
         "message": {"role": "assistant", "model": "m2", "usage": CHILD_USAGE,
                     "content": [{"type": "text", "text": "found it"}]}},
    ])
    return {"parent": parent, "child": child}
