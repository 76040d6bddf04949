"""The session files the backtest's differential tests generate: one chain of messages after a header."""

from __future__ import annotations

import json


class ChainedSession:
    """A session file's records, each message the child of the one before (ids ``{index}-{n}``)."""

    def __init__(self, session_id: str, index: int, cwd: str = "/proj") -> None:
        self.index = index
        self.records: list[dict] = [{"type": "session", "version": 3, "id": session_id,
                                     "timestamp": "2026-01-01T00:00:00Z", "cwd": cwd}]
        self.parent: str | None = None

    def add(self, message: dict) -> None:
        eid = f"{self.index}-{len(self.records)}"
        self.records.append({"type": "message", "id": eid, "parentId": self.parent,
                             "timestamp": "2026-01-01T00:00:01Z",
                             "message": {**message, "timestamp": 1767225600000 + len(self.records)}})
        self.parent = eid

    def answer(self, calls: list[dict]) -> None:
        """A plain "ok" result for each tool call, in order."""
        for call in calls:
            self.add({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                      "content": [{"type": "text", "text": "ok"}], "isError": False})

    def text(self) -> str:
        return "\n".join(json.dumps(r) for r in self.records) + "\n"
