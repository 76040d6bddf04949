"""Search text per entry type, in Python (the store's SQL twin is held to it in tests/test_store.py)."""

from __future__ import annotations

import pytest

from workbench.store.search_text import CUT, json_str, search_text


@pytest.mark.parametrize(("entry", "expected"), [
    ({"type": "message", "message": {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "no"}, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}, "ab"),
    ({"type": "message", "message": {"role": "user", "content": "z" * (CUT + 50)}}, "z" * CUT),
    ({"type": "message", "message": {"role": "bashExecution", "command": "ls -la"}}, "ls -la"),
    ({"type": "message", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c"}]}}, None),
    ({"type": "message", "message": "not an object"}, None),
    ({"type": "custom_message", "customType": "note", "content": "w" * (CUT + 1)}, "note " + "w" * (CUT + 1)),
    ({"type": "custom_message", "customType": "note", "content": [{"type": "text", "text": "x"}]}, "note x"),
    ({"type": "compaction", "summary": "kept the tests"}, "compaction kept the tests"),
    ({"type": "model_change", "modelId": "m-1"}, "model m-1"),
    ({"type": "model_change", "model": "m-2", "modelId": "m-1"}, "model m-2"),
    ({"type": "thinking_level_change", "thinkingLevel": None}, "thinking"),
    ({"type": "ttsr_injection", "injectedRules": ["a", None, "b"]}, "ttsr injection a b"),
    ({"type": "session_info", "name": 7}, "session info 7"),
    ({"type": "future_kind"}, "future kind"),
    ({}, None),
])
def test_search_text_by_entry_type(entry: dict, expected: str | None):
    assert search_text(entry) == expected


def test_json_values_render_like_duckdb_json_extract_string():
    assert json_str("é") == "é" and json_str(None) is None
    assert json_str({"a": [1, True]}) == '{"a":[1,true]}'
