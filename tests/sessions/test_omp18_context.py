"""The omp18 flavour's context at a leaf (session-context.ts of omp 18.3.4): `/clear` boundaries, failed
turns, dangling tool calls, compaction display fields and context rollovers.
"""

from __future__ import annotations

import json

from workbench.sessions import build_session_context, parse_session_text

HEADER = {"type": "session", "version": 3, "id": "S", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def _session(*bodies: dict, header: dict | None = None):
    """Entries chained in order (ids e1, e2, ...), one second apart."""
    records = [header or HEADER]
    parent = None
    for i, body in enumerate(bodies, start=1):
        records.append({"id": f"e{i}", "parentId": parent, "timestamp": f"2026-01-01T00:00:{i:02d}.000Z", **body})
        parent = f"e{i}"
    return parse_session_text("".join(json.dumps(r) + "\n" for r in records), path="t.jsonl")


def _user(text: str) -> dict:
    return {"type": "message", "message": {"role": "user", "content": text, "timestamp": 1}}


def _assistant(content: list, **extra) -> dict:
    return {"type": "message", "message": {"role": "assistant", "content": content, "provider": "anthropic",
                                           "model": "m", "stopReason": "stop", "timestamp": 2, **extra}}


def test_context_starts_after_the_latest_reset_boundary():
    session = _session(
        _user("old"), _assistant([{"type": "text", "text": "old reply"}]),
        {"type": "mode_change", "mode": "plan", "data": {"planFilePath": "/p.md"}},
        {"type": "service_tier_change", "serviceTier": {"openai": "flex"}},
        {"type": "reset_boundary"},
        _user("new"),
        {"type": "custom_message", "customType": "prewalk-plan", "content": "plan", "display": True},
        {"type": "custom_message", "customType": "note", "content": "kept", "display": False, "attribution": "agent"},
    )
    ctx = build_session_context(session, flavor="omp18")
    assert [m["role"] for m in ctx.messages] == ["user", "custom"]
    assert ctx.messages[1]["content"] == "kept" and ctx.messages[1]["attribution"] == "agent"
    assert ctx.reset_boundary_id == "e5" and ctx.mode == "plan" and ctx.service_tier == {"openai": "flex"}
    # omp17 knows no reset boundary: the whole path stays.
    assert [m["role"] for m in build_session_context(session, flavor="omp").messages][:2] == ["user", "assistant"]
    # A compaction after the boundary supersedes it.
    later = _session(_user("old"), {"type": "reset_boundary"}, _user("mid"),
                     {"type": "compaction", "summary": "S", "firstKeptEntryId": "e3", "tokensBefore": 10},
                     _user("after"))
    roles = [m["role"] for m in build_session_context(later, flavor="omp18").messages]
    assert roles == ["compactionSummary", "user", "user"]


def test_failed_turns_stay_out_of_the_omp18_context():
    err = lambda content: _assistant(content, stopReason="error", errorMessage="boom")  # noqa: E731
    thinking_note = {"type": "custom_message", "customType": "interrupted-thinking", "content": "note", "display": False}
    session = _session(
        _user("q"),
        err([{"type": "text", "text": "  "}, {"type": "fallback"}]), thinking_note,  # empty: dropped when emitted
        err([{"type": "thinking", "thinking": "", "thinkingSignature": "sig"}]), thinking_note,  # kept: note follows
        err([{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}]),  # dropped with its result
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": [],
                                        "timestamp": 3}},
        _assistant([{"type": "text", "text": "r"}], retryRecovery={"status": "recovered"}),  # never in context
        _assistant([{"type": "text", "text": "ok"}]))
    got = [(m["role"], m.get("stopReason")) for m in build_session_context(session, flavor="omp18").messages]
    assert got == [("user", None), ("custom", None), ("assistant", "error"), ("custom", None), ("assistant", "stop")]
    # omp17 keeps every error turn with content, and the tool result.
    assert len(build_session_context(session, flavor="omp").messages) == 8  # all but the retry recovery


def test_dangling_tool_calls_are_stripped_from_the_omp18_context():
    call = {"type": "toolCall", "id": "c9", "name": "read", "arguments": {"path": "a"}}
    session = _session(_user("q"), _assistant([{"type": "thinking", "thinking": "t", "thinkingSignature": "sig"},
                                               {"type": "redactedThinking", "data": "x"},
                                               {"type": "text", "text": "reading"}, call], stopReason="toolUse"))
    last = build_session_context(session, flavor="omp18").messages[-1]
    assert last["content"] == [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "reading"}]
    only_call = _session(_user("q"), _assistant([call], stopReason="toolUse"))
    assert [m["role"] for m in build_session_context(only_call, flavor="omp18").messages] == ["user"]
    assert len(build_session_context(only_call, flavor="omp").messages) == 2


def test_compaction_summary_keeps_omp18_display_fields():
    session = _session(_user("a"), {"type": "compaction", "summary": "S", "shortSummary": "s", "firstKeptEntryId": "e1",
                                    "tokensBefore": 900, "tokensAfter": 90, "method": "snapcompact"}, _user("b"))
    first = build_session_context(session, flavor="omp18").messages[0]
    assert first == {"role": "compactionSummary", "summary": "S", "tokensBefore": 900, "timestamp": 1767225602000,
                     "shortSummary": "s", "method": "snapcompact", "tokensAfter": 90}
    assert "shortSummary" not in build_session_context(session, flavor="omp").messages[0]


def test_context_rollover_brings_back_the_latest_user_request():
    rollover = {"type": "compaction", "summary": "", "firstKeptEntryId": "e4", "tokensBefore": 9,
                "details": {"kind": "experimental-context-rollover"}}
    session = _session(_user("first"), _assistant([{"type": "text", "text": "a"}]), _user("latest"),
                       _assistant([{"type": "text", "text": "b"}]), rollover, _user("after"))
    texts = [m.get("content") if m["role"] == "user" else m["role"]
             for m in build_session_context(session, flavor="omp18").messages]
    assert texts == ["compactionSummary", "latest", "assistant", "after"]
    plain = _session(_user("first"), _assistant([{"type": "text", "text": "a"}]), _user("latest"),
                     _assistant([{"type": "text", "text": "b"}]), {**rollover, "details": {}}, _user("after"))
    roles = [m["role"] for m in build_session_context(plain, flavor="omp18").messages]
    assert roles == ["compactionSummary", "assistant", "user"]
