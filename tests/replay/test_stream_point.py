"""The same point of a session's stream under two chunkings (the Stepper keeps it when the chunking changes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.replay import derive_stream, step_at_point, stream_point

SAMPLE = Path(__file__).parents[2] / "sample_sessions" / "ttsr-fired.jsonl"
DELTAS = ("text_delta", "thinking_delta", "toolcall_delta")


def _streamed(events, index):
    """The text every delta of the current block streamed up to ``index``, and the events before it that
    are not deltas (what every chunking shares)."""
    head = [e for e in events[: index + 1] if e.type not in DELTAS]
    since = len(head) and max(i for i in range(index + 1) if events[i].type not in DELTAS)
    text = "".join(e.delta or "" for e in events[since: index + 1] if e.type in DELTAS)
    return [e.type for e in head], text


@pytest.mark.parametrize(("old", "new"), [("words", "fixed"), ("fixed", "tokens"), ("tokens", "words")])
def test_a_step_maps_to_the_first_step_that_has_streamed_as_much(old, new):
    a = list(derive_stream(SAMPLE, policy=old).events)
    b = list(derive_stream(SAMPLE, policy=new).events)
    assert len(a) != len(b)  # the premise: the steps move
    for index in range(0, len(a), 7):
        found = step_at_point(b, stream_point(a, index))
        assert found is not None
        heads_a, text_a = _streamed(a, index)
        heads_b, text_b = _streamed(b, found)
        assert heads_a == heads_b  # the same message, tool call or result of the same turn
        if a[index].type in DELTAS:
            # the first step of the new chunking that has streamed the old step's text
            assert text_b.startswith(text_a) and b[found].type in DELTAS
            assert not _streamed(b, found - 1)[1].startswith(text_a) or not text_a
        else:
            assert b[found].type == a[index].type and text_b == ""


def test_a_point_past_the_end_is_none_and_the_first_step_is_itself():
    events = list(derive_stream(SAMPLE, policy="words").events)
    assert step_at_point(events, stream_point(events, 0)) == 0
    last = stream_point(events, len(events) - 1)
    assert step_at_point(events, (last[0] + 1, 0)) is None
    assert step_at_point(events[:3], last) is None
