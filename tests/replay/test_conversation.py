"""Persistent conversation values: ropes, text views and the shared-prefix message list."""

from __future__ import annotations

from workbench.replay.conversation import Conversation, LazyMessage, TextView, text_of


def test_text_views_share_one_rope_and_keep_their_prefix():
    a = TextView.of("ab")
    b = a.extend("cd")
    c = b.extend("ef")
    assert (str(a), str(b), str(c)) == ("ab", "abcd", "abcdef")
    assert a._rope is b._rope is c._rope
    fork = b.extend("XY")  # b is no longer the tip: a new rope, the old views unchanged
    assert str(fork) == "abcdXY" and fork._rope is not c._rope and str(c) == "abcdef"
    assert b == "abcd" and b == TextView.of("abcd") and a != b


def test_conversation_append_truncate_and_lazy_messages():
    base = Conversation.EMPTY.append({"role": "user", "content": "hi"})
    calls = []

    def build():
        calls.append(1)
        return {"role": "assistant", "content": [{"type": "text", "text": "partial"}]}

    longer = base.append(LazyMessage(build)).append({"role": "custom", "content": "rule"})
    assert len(base) == 1 and len(longer) == 3 and calls == []
    assert [m["role"] for m in longer.messages()] == ["user", "assistant", "custom"] and calls == [1]
    assert longer.truncate(1) is base and len(Conversation.EMPTY) == 0
    assert base.messages() == [{"role": "user", "content": "hi"}]  # the prefix never changes
    assert text_of(longer.messages()[1]) == "partial" and text_of({"content": "x"}) == "x"
