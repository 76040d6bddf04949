from __future__ import annotations

from workbench.sessions import build_session_context, load_session


def _msg(i, p, role, text, **kw):
    m = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}], "timestamp": 1}
    m.update(kw)
    return {"type": "message", "id": i, "parentId": p, "timestamp": "2025-01-01T00:00:00Z", "message": m}


def test_leaf_none_gives_empty_context_and_default_is_last_entry():
    entries = [_msg("1", None, "user", "a"), _msg("2", "1", "assistant", "b", provider="p", model="m")]
    assert build_session_context(entries, None).messages == ()
    ctx = build_session_context(entries)
    assert [m["role"] for m in ctx.messages] == ["user", "assistant"]
    assert build_session_context(entries, "unknown").leaf_id == "2"


def test_compaction_keeps_from_first_kept_entry():
    entries = [
        _msg("1", None, "user", "old"),
        _msg("2", "1", "assistant", "kept", provider="p", model="m"),
        {"type": "compaction", "id": "c", "parentId": "2", "timestamp": "2025-01-01T00:00:04Z",
         "summary": "S", "firstKeptEntryId": "2", "tokensBefore": 10},
        _msg("3", "c", "user", "new"),
    ]
    ctx = build_session_context(entries, "3", flavor="pi")
    assert [m["role"] for m in ctx.messages] == ["compactionSummary", "assistant", "user"]
    assert ctx.messages[0]["timestamp"] == 1735689604000
    assert ctx.compaction_id == "c"
    llm = ctx.llm_messages()
    assert llm[0]["role"] == "user" and "<summary>\nS\n</summary>" in llm[0]["content"][0]["text"]


def test_branch_summary_custom_message_and_empty_summary():
    entries = [
        _msg("1", None, "user", "q"),
        {"type": "branch_summary", "id": "b", "parentId": "1", "timestamp": "2025-01-01T00:00:01Z", "fromId": "1", "summary": "went elsewhere"},
        {"type": "branch_summary", "id": "e", "parentId": "b", "timestamp": "2025-01-01T00:00:02Z", "fromId": "b", "summary": ""},
        {"type": "custom_message", "id": "cm", "parentId": "e", "timestamp": "2025-01-01T00:00:03Z",
         "customType": "note", "content": "hi", "display": True},
        {"type": "label", "id": "l", "parentId": "cm", "timestamp": "t", "targetId": "1", "label": "x"},
    ]
    ctx = build_session_context(entries)
    assert [m["role"] for m in ctx.messages] == ["user", "branchSummary", "custom"]
    assert ctx.messages[2]["customType"] == "note"


def test_models_by_flavour():
    entries = [
        _msg("1", None, "user", "a"),
        {"type": "model_change", "id": "2", "parentId": "1", "timestamp": "t", "model": "openai/gpt-5", "role": "default"},
        _msg("3", "2", "assistant", "b", provider="anthropic", model="claude"),
        {"type": "thinking_level_change", "id": "4", "parentId": "3", "timestamp": "t", "thinkingLevel": None},
    ]
    omp = build_session_context(entries, flavor="omp")
    assert omp.models == {"default": "openai/gpt-5"} and omp.thinking_level == "off"
    omp57 = build_session_context(entries, flavor="omp57")
    assert omp57.models == {"default": "anthropic/claude"} and omp57.thinking_level is None
    pi = build_session_context(entries, flavor="pi")
    assert pi.model == {"provider": "anthropic", "modelId": "claude"}


def test_ttsr_rules_union_on_path(fixture_path):
    ctx = build_session_context(load_session(fixture_path("title_slot.jsonl")))
    assert ctx.injected_ttsr_rules == ("no-any",)
    assert ctx.models == {"default": "openai/gpt-4o"}


def test_v1_file_context_uses_migrated_compaction(fixture_path):
    ctx = build_session_context(load_session(fixture_path("v1_linear.jsonl")), flavor="pi")
    assert [m["role"] for m in ctx.messages] == ["compactionSummary", "assistant", "custom", "user"]
