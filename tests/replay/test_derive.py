"""Streams derived from session files: chunking policies and the turn structure."""

from __future__ import annotations

import json
import random

import pytest

from workbench.errors import UsageError
from workbench.replay import ReplayConfig, chunk_text, derive_stream

TEXT = "Hello, wörld!  Let's call result.unwrap() 12345 times\n\tdone"


@pytest.mark.parametrize(("policy", "size"), [("words", 1), ("words", 3), ("fixed", 1), ("fixed", 7), ("tokens", 1), ("tokens", 2)])
def test_chunks_join_back_to_the_text(policy, size):
    chunks = chunk_text(TEXT, policy, size)
    assert "".join(chunks) == TEXT and all(chunks)


def test_policies_cut_differently():
    assert chunk_text("ab cd ef", "words") == ["ab ", "cd ", "ef"]
    assert chunk_text("abcdefg", "fixed", 3) == ["abc", "def", "g"]
    assert chunk_text("foo.bar(x)", "tokens") == ["foo", ".", "bar", "(", "x", ")"]
    assert chunk_text("abcdefghijklm", "tokens") == ["abcdef", "ghijkl", "m"]


def test_words_chunks_are_the_one_word_pieces_joined_size_at_a_time():
    """``words`` with a size above 1 cuts in one pass; the chunks must be the one-word pieces joined
    ``size`` at a time, on any text (Unicode whitespace, separators, all-blank tails)."""
    rng = random.Random(5)
    alphabet = ["a", "b", "é", " ", "  ", "\n", "\t", "\u3000", "\u2028", "\x1c", "\x85", "\ufeff", "\u200b", "x y"]
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        pieces = chunk_text(text, "words", 1)
        for size in (2, 3, 8):
            assert chunk_text(text, "words", size) == ["".join(pieces[i:i + size]) for i in range(0, len(pieces), size)], text


def test_bad_policy_or_size():
    with pytest.raises(UsageError):
        chunk_text("x", "bytes")
    with pytest.raises(UsageError):
        chunk_text("x", "fixed", 0)


SESSION = [
    {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/proj"},
    {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "user", "content": "fix it", "timestamp": 1}},
    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z",
     "message": {"role": "assistant", "stopReason": "toolUse", "timestamp": 2, "content": [
         {"type": "thinking", "thinking": "hmm ok"},
         {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {"path": "a.rs", "new_string": "x.unwrap()"}}]}},
    {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-01-01T00:00:03.000Z",
     "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "edit", "content": [{"type": "text", "text": "ok"}], "isError": False}},
    {"type": "message", "id": "a2", "parentId": "r1", "timestamp": "2026-01-01T00:00:04.000Z",
     "message": {"role": "assistant", "stopReason": "stop", "timestamp": 4, "content": [{"type": "text", "text": "Done now"}]}},
    {"type": "message", "id": "b1", "parentId": "u1", "timestamp": "2026-01-01T00:00:05.000Z",
     "message": {"role": "assistant", "stopReason": "stop", "timestamp": 5, "content": [{"type": "text", "text": "other branch"}]}},
    {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-01-01T00:00:06.000Z",
     "message": {"role": "assistant", "stopReason": "stop", "timestamp": 6, "content": [{"type": "text", "text": "again"}]}},
]


@pytest.fixture
def session_file(tmp_path):
    path = tmp_path / "branched.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in SESSION) + "\n")
    return path


def test_active_branch_becomes_turns(session_file):
    stream = derive_stream(session_file, policy="words")
    types = [e.type for e in stream.events]
    assert types[:4] == ["user_message", "turn_start", "message_start", "thinking_delta"]
    assert types.count("turn_start") == types.count("turn_end") == 3
    tool_json = "".join(e.delta for e in stream.events if e.type == "toolcall_delta")
    assert json.loads(tool_json) == {"path": "a.rs", "new_string": "x.unwrap()"}
    end = next(e for e in stream.events if e.type == "toolcall_end")
    assert dict(end.arguments) == {"path": "a.rs", "new_string": "x.unwrap()"}
    result = types.index("tool_result")
    assert types[result + 1] == "turn_end" and stream.cwd == "/proj"
    assert "other branch" not in "".join(e.delta or "" for e in stream.events)


def test_every_branch_and_a_named_leaf(session_file):
    every = derive_stream(session_file, all_branches=True)
    assert "other branch" in "".join(e.delta or "" for e in every.events)
    assert every.turn_count() == 4
    leaf = derive_stream(session_file, leaf="b1")
    assert leaf.turn_count() == 1
    with pytest.raises(UsageError):
        derive_stream(session_file, leaf="zzz")


def test_derived_stream_replays(session_file):
    from workbench.replay import run_session
    from workbench.rules import Rule

    rule = Rule("no-unwrap", "/proj/r.md", "No unwrap.", condition=[r"\.unwrap\("])
    result = run_session(derive_stream(session_file, policy="fixed", size=4), [rule], ReplayConfig(time_bound=None))
    abort = next(e for e in result.events if e.type == "abort")
    assert abort.source == "tool" and abort.tool_call_id == "t1"
