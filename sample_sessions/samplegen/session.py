"""A deterministic session-file builder (v3 trees, pi-mono or oh-my-pi flavour) and JSONL writing.

The builder mirrors the agent's append rule (spec sessions-and-tree §4.3): every append is a child of
the current leaf and becomes the leaf; ``branch(id)`` moves the leaf without writing anything, and
``branch_with_summary`` writes a ``branch_summary`` whose ``fromId`` is the target (the reference
quirk, §2.2).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

Flavour = Literal["pi", "omp"]

# Per-million-token prices used for the sample usage blocks (plausible, not authoritative).
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-sonnet-4-5": (3.0, 15.0, 0.3, 3.75),
    "claude-opus-4-1": (15.0, 75.0, 1.5, 18.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
    "gpt-5": (1.25, 10.0, 0.125, 0.0),
}


def dumps(obj: Any) -> str:
    """One JSONL line the way the agent writes it (``JSON.stringify``: compact, UTF-8 kept)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(path: str, records: list[Any], *, raw_lines: dict[int, str] | None = None) -> None:
    """Write records one per line; ``raw_lines`` replaces line N (1-based) with literal text."""
    lines = [dumps(r) for r in records]
    for number, text in sorted((raw_lines or {}).items()):
        lines.insert(number - 1, text)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")


def iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def short_id(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:8]


def signature(seed: str) -> str:
    """A stand-in for a provider's opaque thinking signature (base64, stable per seed)."""
    digest = b"".join(hashlib.sha256(f"{seed}/{i}".encode()).digest() for i in range(3))
    return base64.b64encode(digest).decode()


def tool_call_id(seed: str) -> str:
    return "toolu_01" + base64.b32encode(hashlib.sha256(seed.encode()).digest()).decode()[:22].lower()


@dataclass
class Session:
    """Appends entries to an in-memory v3 session, minting stable ids and timestamps."""

    key: str
    session_id: str
    cwd: str
    start: datetime
    flavour: Flavour = "pi"
    provider: str = "anthropic"
    model: str = "claude-sonnet-4-5"
    header_extra: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    leaf: str | None = None
    clock: datetime = field(init=False)
    _n: int = field(default=0, init=False)
    _calls: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.clock = self.start

    # -- plumbing -----------------------------------------------------------------------------
    def header(self) -> dict[str, Any]:
        head = {"type": "session", "version": 3, "id": self.session_id, "timestamp": iso(self.start), "cwd": self.cwd}
        head.update(self.header_extra)
        return head

    def records(self) -> list[dict[str, Any]]:
        return [self.header(), *self.entries]

    def tick(self, seconds: float) -> datetime:
        self.clock += timedelta(seconds=seconds)
        return self.clock

    def append(self, kind: str, body: dict[str, Any], *, after: float = 2.0) -> str:
        self._n += 1
        entry_id = short_id(f"{self.key}:{self._n}")
        when = self.tick(after)
        entry = {"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": iso(when), **body}
        self.entries.append(entry)
        self.leaf = entry_id
        return entry_id

    def new_call_id(self) -> str:
        self._calls += 1
        return tool_call_id(f"{self.key}:call:{self._calls}")

    def branch(self, entry_id: str | None) -> None:
        self.leaf = entry_id

    # -- messages -----------------------------------------------------------------------------
    def user(self, text: str, *, after: float = 20.0) -> str:
        when = self.clock + timedelta(seconds=after)
        msg = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms(when)}
        return self.append("message", {"message": msg}, after=after)

    def assistant(
        self,
        *,
        text: str | None = None,
        thinking: str | None = None,
        calls: list[tuple[str, dict[str, Any]]] | None = None,
        stop: str | None = None,
        after: float = 6.0,
        usage_in: int = 4000,
        error: str | None = None,
        extra: dict[str, Any] | None = None,
        call_ids: list[str] | None = None,
    ) -> tuple[str, list[str]]:
        """An assistant message; returns (entry id, tool-call ids in order)."""
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking, "thinkingSignature": signature(f"{self.key}:{self._n}")})
        if text is not None:
            content.append({"type": "text", "text": text})
        ids: list[str] = []
        for k, (name, args) in enumerate(calls or []):
            cid = call_ids[k] if call_ids else self.new_call_id()
            ids.append(cid)
            content.append({"type": "toolCall", "id": cid, "name": name, "arguments": args})
        out_tokens = max(12, sum(len(json.dumps(c)) for c in content) // 4)
        when = self.clock + timedelta(seconds=after)
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages" if self.provider == "anthropic" else "openai-responses",
            "provider": self.provider,
            "model": self.model,
            "usage": self.usage(usage_in, out_tokens),
            "stopReason": stop or ("toolUse" if calls else "stop"),
            "timestamp": ms(when),
        }
        if error:
            msg["errorMessage"] = error
        msg.update(extra or {})
        return self.append("message", {"message": msg}, after=after), ids

    def usage(self, tokens_in: int, tokens_out: int) -> dict[str, Any]:
        cache_read = (tokens_in * 3) // 4
        fresh = tokens_in - cache_read
        p_in, p_out, p_cr, p_cw = PRICES.get(self.model, PRICES["claude-sonnet-4-5"])
        cost = {
            "input": round(fresh * p_in / 1e6, 6),
            "output": round(tokens_out * p_out / 1e6, 6),
            "cacheRead": round(cache_read * p_cr / 1e6, 6),
            "cacheWrite": 0,
        }
        cost["total"] = round(sum(cost.values()), 6)
        return {
            "input": fresh,
            "output": tokens_out,
            "cacheRead": cache_read,
            "cacheWrite": 0,
            "totalTokens": tokens_in + tokens_out,
            "cost": cost,
        }

    def tool_result(
        self,
        call_id: str,
        name: str,
        text: str | list[dict[str, Any]],
        *,
        is_error: bool = False,
        after: float = 1.5,
    ) -> str:
        content = [{"type": "text", "text": text}] if isinstance(text, str) else text
        when = self.clock + timedelta(seconds=after)
        msg = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "isError": is_error,
            "timestamp": ms(when),
        }
        return self.append("message", {"message": msg}, after=after)

    # -- other entry types --------------------------------------------------------------------
    def model_change(self, provider: str, model: str, *, role: str | None = None) -> str:
        self.provider, self.model = provider, model
        if self.flavour == "pi":
            return self.append("model_change", {"provider": provider, "modelId": model}, after=1.0)
        body: dict[str, Any] = {"model": f"{provider}/{model}"}
        if role:
            body["role"] = role
        return self.append("model_change", body, after=1.0)

    def thinking_level(self, level: str) -> str:
        return self.append("thinking_level_change", {"thinkingLevel": level}, after=1.0)

    def label(self, target: str, text: str | None) -> str:
        body: dict[str, Any] = {"targetId": target}
        if text is not None:
            body["label"] = text
        return self.append("label", body, after=3.0)

    def session_info(self, name: str) -> str:
        return self.append("session_info", {"name": name}, after=1.0)

    def branch_with_summary(self, target: str, summary: str, details: dict[str, Any] | None = None) -> str:
        self.leaf = target
        body: dict[str, Any] = {"fromId": target, "summary": summary}
        if details is not None:
            body["details"] = details
        return self.append("branch_summary", body, after=30.0)

    def compaction(self, first_kept: str, summary: str, tokens_before: int, details: dict[str, Any]) -> str:
        body = {"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": tokens_before, "details": details}
        return self.append("compaction", body, after=12.0)

    def custom_message(self, custom_type: str, content: str, *, display: bool, details: dict[str, Any]) -> str:
        body: dict[str, Any] = {"customType": custom_type, "content": content, "display": display, "details": details}
        if self.flavour == "omp":
            body["attribution"] = "agent"
        return self.append("custom_message", body, after=0.1)

    def ttsr_injection(self, names: list[str]) -> str:
        return self.append("ttsr_injection", {"injectedRules": names}, after=0.05)
