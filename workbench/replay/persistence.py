"""What a replay persists, kept in a copy of the session (the original file is never written).

The agent appends a ``custom_message`` (the hidden ``ttsr-injection``) and a ``ttsr_injection``
entry each time it injects rules (docs/architecture.md, "The simulated session"). The replay appends the same entries to an in-memory
copy chained under the resumed leaf; ``write(path)`` saves header + original lines + new entries to a
new file on request.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from workbench.errors import UsageError
from workbench.replay.conversation import Message
from workbench.sessions import branch_path, build_session_context, load_session


def _iso(ms: int | float) -> str:
    stamp = datetime.fromtimestamp(float(ms) / 1000.0, tz=timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


class SessionCopy:
    """The resumed session (optional) plus the entries the replay appended."""

    def __init__(self, resume: Any = None, *, cwd: str) -> None:
        if isinstance(resume, (str, os.PathLike)):
            resume = load_session(resume)
        self.session = resume
        self.cwd = cwd
        self.new_entries: list[dict[str, Any]] = []
        self._branch = self._current_branch()
        self._used = {e.id for e in resume.entries} if resume is not None else set()
        self._parent: str | None = self._branch[-1].id if self._branch else None

    def _current_branch(self) -> list[Any]:
        if self.session is None:
            return []
        return branch_path({e.id: e for e in self.session.entries}, self.session.leaf_id)

    def context_messages(self) -> list[Message]:
        """The conversation at the resumed leaf, as the sessions package rebuilds it."""
        if self.session is None:
            return []
        return [dict(m) for m in build_session_context(self.session).messages]

    def injected_rule_names(self) -> list[str]:
        """Unique names of ``ttsr_injection`` entries on the current branch, root to leaf."""
        names: list[str] = []
        for entry in self._branch:
            if entry.type == "ttsr_injection":
                for name in entry.get("injectedRules") or ():
                    if isinstance(name, str) and name not in names:
                        names.append(name)
        return names

    def _mint(self) -> str:
        n = len(self.new_entries)
        while True:
            candidate = f"ttsr{n:04d}"
            if candidate not in self._used:
                self._used.add(candidate)
                return candidate
            n += 1

    def _append(self, entry: dict[str, Any]) -> None:
        entry = {"type": entry.pop("type"), "id": self._mint(), "parentId": self._parent, **entry}
        self._parent = entry["id"]
        self.new_entries.append(entry)

    def append_injection(self, names: Sequence[str], ms: int | float) -> None:
        kept = [n.strip() for n in names if isinstance(n, str) and n.strip()]
        if kept:
            self._append({"type": "ttsr_injection", "timestamp": _iso(ms), "injectedRules": kept})

    def append_custom_message(self, message: Mapping[str, Any]) -> None:
        self._append(
            {
                "type": "custom_message",
                "timestamp": _iso(message.get("timestamp") or 0),
                "customType": message["customType"],
                "content": message["content"],
                "display": False,
                "details": dict(message["details"]),
                "attribution": "agent",
            }
        )

    def adopt(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Append entries recorded by another copy, re-chained under this copy's leaf."""
        for entry in entries:
            self._append({k: v for k, v in entry.items() if k not in ("id", "parentId")})

    def injected_names(self) -> list[str]:
        names: list[str] = []
        for entry in self.new_entries:
            if entry["type"] == "ttsr_injection":
                names.extend(n for n in entry["injectedRules"] if n not in names)
        return names

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Save a copy: the resumed file's lines verbatim, then the new entries. Never the original."""
        target = Path(path)
        if self.session is not None and target.resolve() == Path(self.session.path).resolve():
            raise UsageError(f"refusing to overwrite the original session file {self.session.path}")
        lines: list[str] = []
        if self.session is not None:
            source = Path(self.session.path)
            if source.exists():
                lines = [ln for ln in source.read_text(encoding="utf-8").splitlines() if ln.strip()]
            else:
                lines = [json.dumps(dict(self.session.header))] + [json.dumps(dict(e.raw)) for e in self.session.entries]
        else:
            header = {"type": "session", "version": 3, "id": "replay", "timestamp": _iso(0), "cwd": self.cwd}
            lines = [json.dumps(header)]
        lines.extend(json.dumps(e, ensure_ascii=False) for e in self.new_entries)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return target
