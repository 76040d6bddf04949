"""Seeded generator of omp 18 session entries and `/tree` queries (filter mode, search, leaf).

Entries have the shapes today's omp writes (sample_sessions/omp18-*.jsonl): messages of every role
(assistant replies with text, tool calls only, thinking, errors and aborts, dot-only text),
tool results, bash executions, custom messages (advisor notes, system-wrapped reminders, skill
prompts), compactions, branch summaries, labels (set, moved, cleared) and every bookkeeping type.
Parents are drawn from earlier entries, so sessions branch; timestamps grow with file order.
Text avoids control characters (the oracle's sanitizeText shim refuses them).
"""

from __future__ import annotations

import random
from typing import Any

WORDS = [
    "invoice", "rounding", "billing", "cents", "seat", "total", "fix", "test", "refactor", "helper",
    "Money", "Float", "parse", "README", "src/billing/invoice.ts", "npm", "run", "ok", "failed",
    "déjà", "naïve", "über", "日本", "emoji😀", "x", "a-b", "snake_case", "CamelCase", "42", "3.14",
]
MODES = ["default", "no-tools", "user-only", "labeled-only", "all"]


def _words(rng: random.Random, lo: int = 1, hi: int = 8) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _content(rng: random.Random, text: str) -> Any:
    return text if rng.random() < 0.3 else [{"type": "text", "text": text}]


def _entry(rng: random.Random, calls: list[tuple[str, str]]) -> dict[str, Any]:
    kind = rng.choices(
        ["user", "assistant", "toolResult", "bash", "custom_message", "compaction", "branch_summary",
         "model_change", "model_usage", "thinking_level_change", "custom", "service_tier_change",
         "title_change", "mode_change", "credential_pin", "session_init", "reset_boundary",
         "ttsr_injection"],
        weights=[10, 12, 6, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    )[0]
    if kind == "user":
        return {"type": "message", "message": {"role": "user", "content": _content(rng, _words(rng))}}
    if kind == "assistant":
        blocks: list[dict[str, Any]] = []
        if rng.random() < 0.3:
            blocks.append({"type": "thinking", "thinking": _words(rng)})
        shape = rng.random()
        if shape < 0.5:
            blocks.append({"type": "text", "text": _words(rng)})
        elif shape < 0.6:
            blocks.append({"type": "text", "text": rng.choice(["...", " . ", "\u2026", "", "  "])})
        if shape >= 0.4:
            call_id = f"call_{len(calls)}"
            name = rng.choice(["read", "edit", "bash", "grep"])
            calls.append((call_id, name))
            blocks.append({"type": "toolCall", "id": call_id, "name": name, "arguments": {"path": rng.choice(WORDS)}})
        stop = rng.choices(["stop", "toolUse", "error", "aborted", None], weights=[5, 5, 1, 1, 1])[0]
        message: dict[str, Any] = {"role": "assistant", "content": blocks}
        if stop is not None:
            message["stopReason"] = stop
        if stop == "error":
            message["errorMessage"] = "overloaded"
        return {"type": "message", "message": message}
    if kind == "toolResult":
        call_id, name = rng.choice(calls) if calls else ("call_x", "read")
        return {"type": "message", "message": {
            "role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": _words(rng)}], "isError": rng.random() < 0.2}}
    if kind == "bash":
        return {"type": "message", "message": {
            "role": "bashExecution", "command": _words(rng, 1, 3), "output": _words(rng), "exitCode": 0}}
    if kind == "custom_message":
        custom = rng.choice(["advisor", "note", "skill-prompt"])
        entry: dict[str, Any] = {"type": "custom_message", "customType": custom, "display": True}
        if custom == "advisor":
            entry["content"] = "<advisory>" + _words(rng) + "</advisory>"
            entry["details"] = {"notes": [
                {"note": _words(rng), "advisor": rng.choice(["default", "sec", "perf"]),
                 "severity": rng.choice(["nit", "concern", "blocker"])} for _ in range(rng.randint(1, 2))]}
        elif custom == "note":
            text = _words(rng)
            entry["content"] = _content(rng, f"<system-reminder>{text}</system-reminder>" if rng.random() < 0.5 else text)
        else:
            entry["content"] = [{"type": "text", "text": "/skill:tdd " + _words(rng)}]
            entry["details"] = {"skill": "tdd"}
            entry["attribution"] = rng.choice(["user", "agent"])
        return entry
    if kind == "compaction":
        return {"type": "compaction", "summary": _words(rng), "firstKeptEntryId": "x", "tokensBefore": rng.randint(1, 99999)}
    if kind == "branch_summary":
        return {"type": "branch_summary", "fromId": "x", "summary": _words(rng)}
    if kind == "model_change":
        return {"type": "model_change", "model": rng.choice(["anthropic/claude-sonnet-4-5", "openai/gpt-5"])}
    if kind == "model_usage":
        return {"type": "model_usage", "purpose": rng.choice(["title", "judge"]), "role": "tiny",
                "provider": "anthropic", "model": "claude-haiku-4-5"}
    if kind == "thinking_level_change":
        return {"type": "thinking_level_change", "thinkingLevel": rng.choice(["off", "low", "medium", "high"])}
    if kind == "custom":
        return {"type": "custom", "customType": rng.choice(["ext/checkpoint", "ext/state"]), "data": {}}
    if kind == "service_tier_change":
        return {"type": "service_tier_change", "serviceTier": rng.choice([{"anthropic": "priority"}, None])}
    if kind == "title_change":
        return {"type": "title_change", "title": _words(rng, 1, 4), "source": "auto"}
    if kind == "mode_change":
        return {"type": "mode_change", "mode": rng.choice(["plan", "default"])}
    if kind == "credential_pin":
        return {"type": "credential_pin", "provider": "anthropic", "hash": "ab" * 8}
    if kind == "ttsr_injection":
        return {"type": "ttsr_injection", "injectedRules": [rng.choice(["money-floats", "no-any"])]}
    return {"type": kind}  # session_init, reset_boundary


def tree_case(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = []
    calls: list[tuple[str, str]] = []
    for i in range(rng.randint(1, 40)):
        entry_id = f"e{i:03d}"
        if rng.random() < 0.1 and entries:
            parent = rng.choice(entries)["id"]  # a branch off an earlier entry
        else:
            parent = entries[-1]["id"] if entries else None
        if rng.random() < 0.12 and entries:
            target = rng.choice(entries)["id"]
            body: dict[str, Any] = {"type": "label", "targetId": target,
                                    "label": rng.choice(["root-cause", "keep", "todo later", ""])}
        else:
            body = _entry(rng, calls)
        entries.append({"id": entry_id, "parentId": parent,
                        "timestamp": f"2026-11-24T09:{i // 60:02d}:{i % 60:02d}.000Z", **body})
    leaf_roll = rng.random()
    leaf = entries[-1]["id"] if leaf_roll < 0.7 else rng.choice(entries)["id"]
    queries = []
    for _ in range(rng.randint(2, 6)):
        search = ""
        if rng.random() < 0.6:
            pool = WORDS + ["user", "assistant", "model", "thinking", "label", "root", "usage", "tier",
                            "compaction", "branch summary", "ttsr", "mode plan", "sec", "blocker", "tdd"]
            word = rng.choice(pool)
            if rng.random() < 0.4 and len(word) > 2:  # fuzzy: a subsequence of a word
                keep = sorted(rng.sample(range(len(word)), rng.randint(2, len(word))))
                word = "".join(word[k] for k in keep)
            search = word if rng.random() < 0.7 else f"{word} {rng.choice(WORDS)}"
            if rng.random() < 0.2:
                search = search.upper()
        queries.append({"filter": rng.choice(MODES), "search": search})
    return {"kind": "tree", "entries": entries, "leaf": leaf, "queries": queries}
