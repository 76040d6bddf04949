"""Format-edge samples: a v1 linear file, a file with broken lines, an omp file with a title slot."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from .project import CWD, SOURCE_FILES
from .session import Session, dumps, iso, ms, signature, tool_call_id, write_jsonl

# ---------------------------------------------------------------------------------------------------
# legacy-v1.jsonl: no version, no ids; compaction points back with firstKeptEntryIndex (header = 0).
# ---------------------------------------------------------------------------------------------------


def legacy_v1_records() -> list[dict[str, Any]]:
    t0 = datetime(2025, 10, 2, 16, 40, 5, 120000, tzinfo=timezone.utc)
    clock = [t0]

    def at(seconds: float) -> datetime:
        clock[0] += timedelta(seconds=seconds)
        return clock[0]

    def msg(message: dict[str, Any], seconds: float = 8.0) -> dict[str, Any]:
        when = at(seconds)
        message["timestamp"] = ms(when)
        return {"type": "message", "timestamp": iso(when), "message": message}

    def assistant(content: list[dict[str, Any]], stop: str, model: str = "claude-3-5-sonnet-20241022") -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": model,
            "usage": {"input": 2100, "output": 180, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2280},
            "stopReason": stop,
        }

    c1, c2 = tool_call_id("legacy:1"), tool_call_id("legacy:2")
    records: list[dict[str, Any]] = [
        {
            "type": "session",
            "id": "c41d6e0b-2f8a-4a53-8b1e-93d0f7a2c558",
            "timestamp": iso(t0),
            "cwd": CWD,
            "provider": "anthropic",
            "modelId": "claude-3-5-sonnet-20241022",
            "thinkingLevel": "off",
        },
        msg({"role": "user", "content": "Write a script that seeds the dev database with users from fixtures/users.json."}),
        msg(
            assistant(
                [
                    {"type": "text", "text": "Let me check what the fixture looks like first."},
                    {"type": "toolCall", "id": c1, "name": "bash", "arguments": {"command": "head -c 300 fixtures/users.json"}},
                ],
                "toolUse",
            )
        ),
        msg(
            {
                "role": "toolResult",
                "toolCallId": c1,
                "toolName": "bash",
                "content": [{"type": "text", "text": '[{"email": "ada@example.com", "name": "Ada"}, {"email": "Bob@Example.com", "name": "Bob"}]'}],
                "isError": False,
            },
            2.0,
        ),
        msg(
            assistant(
                [
                    {"type": "text", "text": "Writing `scripts/seed_users.py`."},
                    {"type": "toolCall", "id": c2, "name": "write", "arguments": {"path": "scripts/seed_users.py", "content": SOURCE_FILES["scripts/seed_users.py"]}},
                ],
                "toolUse",
            )
        ),
        msg({"role": "toolResult", "toolCallId": c2, "toolName": "write", "content": [{"type": "text", "text": "Wrote 19 lines to scripts/seed_users.py."}], "isError": False}, 1.0),
        msg(assistant([{"type": "text", "text": "Done. Run `python scripts/seed_users.py --fixtures fixtures`."}], "stop")),
        {"type": "thinking_level_change", "timestamp": iso(at(30)), "thinkingLevel": "low"},
        {"type": "model_change", "timestamp": iso(at(1)), "provider": "anthropic", "modelId": "claude-3-5-haiku-20241022"},
        msg({"role": "user", "content": "It printed nothing useful. Print how many users were inserted, and lower-case the emails."}, 40),
        msg(
            assistant(
                [
                    {"type": "thinking", "thinking": "Count after the insert loop; normalise with str.lower() before insert.", "thinkingSignature": signature("legacy:t1")},
                    {"type": "text", "text": "I'll lower-case each email before inserting and print the count at the end."},
                ],
                "stop",
                model="claude-3-5-haiku-20241022",
            )
        ),
        # Index 9 (header = 0) is the second user request: the summary replaces entries 1-8.
        {
            "type": "compaction",
            "timestamp": iso(at(20)),
            "summary": "User asked for scripts/seed_users.py to seed users from fixtures/users.json; the script was written.",
            "firstKeptEntryIndex": 9,
            "tokensBefore": 18250,
        },
        msg({"role": "user", "content": "Looks good now, thanks."}, 60),
        msg(assistant([{"type": "text", "text": "You're welcome."}], "stop", model="claude-3-5-haiku-20241022")),
    ]
    return records


# ---------------------------------------------------------------------------------------------------
# broken-line.jsonl: line 7 was cut short by a crash mid-write; line 11 holds two entries glued
# together (a lost newline). The entries after them point at ids that never parsed: orphans.
# ---------------------------------------------------------------------------------------------------

BROKEN_MALFORMED_LINE = 7
BROKEN_TWO_OBJECTS_LINE = 11


def broken_line_lines() -> list[str]:
    s = Session(
        key="broken-line",
        session_id="5b0e2f4c-91d7-4c6a-a3e8-0d7f1b9c2e64",
        cwd=CWD,
        start=datetime(2026, 9, 12, 11, 15, 0, tzinfo=timezone.utc),
        flavour="pi",
    )
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.user("Rename fixtures/users.json to fixtures/dev-users.json and update every reference.", after=3)
    _, (c1,) = s.assistant(text="Finding references first.", calls=[("bash", {"command": "rg -l 'users.json'"})])
    s.tool_result(c1, "bash", "scripts/seed_users.py\nREADME.md\n")
    _, (c2,) = s.assistant(calls=[("bash", {"command": "git mv fixtures/users.json fixtures/dev-users.json"})])  # line 6
    s.tool_result(c2, "bash", "")  # line 7: will be cut short
    _, (c3,) = s.assistant(
        calls=[("edit", {"path": "scripts/seed_users.py", "old_string": '"users.json"', "new_string": '"dev-users.json"'})]
    )  # line 8: child of the lost line 7 -> orphan root
    s.tool_result(c3, "edit", "Successfully replaced 1 occurrence in scripts/seed_users.py.")
    _, (c4,) = s.assistant(
        calls=[("edit", {"path": "README.md", "old_string": "fixtures/users.json", "new_string": "fixtures/dev-users.json"})]
    )  # line 10
    s.tool_result(c4, "edit", "Successfully replaced 1 occurrence in README.md.")  # glued ...
    s.label(s.leaf or "", "renamed")  # ... with this one on line 11
    s.assistant(text="Renamed the fixture and updated `scripts/seed_users.py` and `README.md`.")  # line 12: orphan
    s.user("Thanks!")
    lines = [dumps(r) for r in s.records()]
    # Line 7 (index 6) is cut in the middle of its message object.
    lines[6] = lines[6][: len(lines[6]) // 2]
    # Lines 11 and 12 of the clean file become one physical line 11.
    lines[10:12] = [lines[10] + lines[11]]
    return lines


# ---------------------------------------------------------------------------------------------------
# omp-title-slot.jsonl: omp17's fixed-width first line (256 bytes including the newline).
# ---------------------------------------------------------------------------------------------------


def title_slot(title: str, source: str, updated: str) -> str:
    base = {"type": "title", "v": 1, "title": title, "source": source, "updatedAt": updated, "pad": ""}
    need = 256 - 1 - len(dumps(base).encode("utf-8"))
    base["pad"] = " " * need
    line = dumps(base)
    assert len((line + "\n").encode("utf-8")) == 256
    return line


def title_slot_lines() -> list[str]:
    s = Session(
        key="omp-title-slot",
        session_id="0199b1f0-3a5c-7e42-8d19-6f2b7c0a9e31",
        cwd=CWD,
        start=datetime(2026, 9, 16, 8, 30, 0, tzinfo=timezone.utc),
        flavour="omp",
        header_extra={"title": "login rate limit", "titleSource": "auto"},
    )
    s.model_change("openai", "gpt-5", role="default")
    s.thinking_level("low")
    s.user("Where is the per-IP rate limit for /login configured?", after=4)
    _, (c1,) = s.assistant(
        thinking="Probably middleware registered in src/server.ts.",
        calls=[("bash", {"command": "rg -n 'rateLimit' src"})],
    )
    s.tool_result(c1, "bash", "src/server.ts:18:app.use('/login', rateLimit({ windowMs: 60_000, max: 10 }));\n")
    s.assistant(text="In `src/server.ts` line 18: `rateLimit({ windowMs: 60_000, max: 10 })`, ten attempts per minute per IP.")
    s.append("title_change", {"title": "Rate-limit /login per IP", "source": "user"}, after=15)
    s.user("Make it 5 per minute.")
    _, (c2,) = s.assistant(
        calls=[("edit", {"path": "src/server.ts", "old_string": "max: 10", "new_string": "max: 5"})],
    )
    s.tool_result(c2, "edit", "Successfully replaced 1 occurrence in src/server.ts.")
    s.assistant(text="Now five attempts per minute per IP.")
    slot = title_slot("Rate-limit /login per IP", "user", iso(s.clock))
    return [slot] + [dumps(r) for r in s.records()]


def write_lines(path: str, lines: list[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")


def write_small(root: str) -> list[str]:
    import os

    write_jsonl(os.path.join(root, "legacy-v1.jsonl"), legacy_v1_records())
    write_lines(os.path.join(root, "broken-line.jsonl"), broken_line_lines())
    write_lines(os.path.join(root, "omp-title-slot.jsonl"), title_slot_lines())
    return ["legacy-v1.jsonl", "broken-line.jsonl", "omp-title-slot.jsonl"]
