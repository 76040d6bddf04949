"""The omp18 flavour's context at a leaf (session-context.ts of omp 18.3.4): `/clear` boundaries, failed
turns, dangling tool calls, compaction display fields and context rollovers.
"""

from __future__ import annotations

from tests.sessions.generated import assistant_msg, chained_session, user_msg
from workbench.sessions import build_session_context


def test_context_starts_after_the_latest_reset_boundary():
    session = chained_session(
        user_msg("old"), assistant_msg([{"type": "text", "text": "old reply"}]),
        {"type": "mode_change", "mode": "plan", "data": {"planFilePath": "/p.md"}},
        {"type": "service_tier_change", "serviceTier": {"openai": "flex"}},
        {"type": "reset_boundary"},
        user_msg("new"),
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
    later = chained_session(user_msg("old"), {"type": "reset_boundary"}, user_msg("mid"),
                     {"type": "compaction", "summary": "S", "firstKeptEntryId": "e3", "tokensBefore": 10},
                     user_msg("after"))
    roles = [m["role"] for m in build_session_context(later, flavor="omp18").messages]
    assert roles == ["compactionSummary", "user", "user"]


def test_failed_turns_stay_out_of_the_omp18_context():
    err = lambda content: assistant_msg(content, stopReason="error", errorMessage="boom")  # noqa: E731
    thinking_note = {"type": "custom_message", "customType": "interrupted-thinking", "content": "note", "display": False}
    session = chained_session(
        user_msg("q"),
        err([{"type": "text", "text": "  "}, {"type": "fallback"}]), thinking_note,  # empty: dropped when emitted
        err([{"type": "thinking", "thinking": "", "thinkingSignature": "sig"}]), thinking_note,  # kept: note follows
        err([{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}]),  # dropped with its result
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": [],
                                        "timestamp": 3}},
        assistant_msg([{"type": "text", "text": "r"}], retryRecovery={"status": "recovered"}),  # never in context
        assistant_msg([{"type": "text", "text": "ok"}]))
    got = [(m["role"], m.get("stopReason")) for m in build_session_context(session, flavor="omp18").messages]
    assert got == [("user", None), ("custom", None), ("assistant", "error"), ("custom", None), ("assistant", "stop")]
    # omp17 keeps every error turn with content, and the tool result.
    assert len(build_session_context(session, flavor="omp").messages) == 8  # all but the retry recovery


def test_dangling_tool_calls_are_stripped_from_the_omp18_context():
    call = {"type": "toolCall", "id": "c9", "name": "read", "arguments": {"path": "a"}}
    session = chained_session(user_msg("q"), assistant_msg([{"type": "thinking", "thinking": "t", "thinkingSignature": "sig"},
                                               {"type": "redactedThinking", "data": "x"},
                                               {"type": "text", "text": "reading"}, call], stopReason="toolUse"))
    last = build_session_context(session, flavor="omp18").messages[-1]
    assert last["content"] == [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "reading"}]
    only_call = chained_session(user_msg("q"), assistant_msg([call], stopReason="toolUse"))
    assert [m["role"] for m in build_session_context(only_call, flavor="omp18").messages] == ["user"]
    assert len(build_session_context(only_call, flavor="omp").messages) == 2


def test_compaction_summary_keeps_omp18_display_fields():
    session = chained_session(user_msg("a"), {"type": "compaction", "summary": "S", "shortSummary": "s", "firstKeptEntryId": "e1",
                                    "tokensBefore": 900, "tokensAfter": 90, "method": "snapcompact"}, user_msg("b"))
    first = build_session_context(session, flavor="omp18").messages[0]
    assert first == {"role": "compactionSummary", "summary": "S", "tokensBefore": 900, "timestamp": 1767225602000,
                     "shortSummary": "s", "method": "snapcompact", "tokensAfter": 90}
    assert "shortSummary" not in build_session_context(session, flavor="omp").messages[0]


def test_context_rollover_brings_back_the_latest_user_request():
    rollover = {"type": "compaction", "summary": "", "firstKeptEntryId": "e4", "tokensBefore": 9,
                "details": {"kind": "experimental-context-rollover"}}
    session = chained_session(user_msg("first"), assistant_msg([{"type": "text", "text": "a"}]), user_msg("latest"),
                       assistant_msg([{"type": "text", "text": "b"}]), rollover, user_msg("after"))
    texts = [m.get("content") if m["role"] == "user" else m["role"]
             for m in build_session_context(session, flavor="omp18").messages]
    assert texts == ["compactionSummary", "latest", "assistant", "after"]
    plain = chained_session(user_msg("first"), assistant_msg([{"type": "text", "text": "a"}]), user_msg("latest"),
                     assistant_msg([{"type": "text", "text": "b"}]), {**rollover, "details": {}}, user_msg("after"))
    roles = [m["role"] for m in build_session_context(plain, flavor="omp18").messages]
    assert roles == ["compactionSummary", "assistant", "user"]
