"""Stream files: reading, writing, and errors that name the file, the line and the field."""

from __future__ import annotations

import json
import random
from types import MappingProxyType

import pytest

from tests.replay.conftest import prose_turn, stream_of, tool_turn
from workbench.errors import StreamFileError
from workbench.replay import StreamEvent, read_stream, write_stream
from workbench.replay.stream import freeze_value, frozen_copy, thaw

HEADER = {"type": "stream", "version": 1, "cwd": "/proj", "note": "n"}


def _write(tmp_path, *objs, raw: str | None = None):
    path = tmp_path / "s.stream.jsonl"
    text = "\n".join(json.dumps(o) for o in objs) + "\n"
    path.write_text(text if raw is None else raw)
    return path


def test_round_trip_keeps_every_field(tmp_path):
    stream = stream_of(prose_turn("a", "b"), tool_turn("t1", "edit", ['{"path":"a.ts"}'], {"path": "a.ts"}, "ok"))
    path = tmp_path / "out.jsonl"
    write_stream(stream, path)
    back = read_stream(path)
    assert back.events == stream.events and back.cwd == "/proj"
    assert json.loads(path.read_text().splitlines()[0]) == {"type": "stream", "version": 1, "cwd": "/proj"}
    assert back.events[-2].to_json()["toolCallId"] == "t1"


def test_events_are_frozen_including_arguments(tmp_path):
    path = _write(tmp_path, HEADER, {"type": "toolcall_end", "contentIndex": 0, "arguments": {"a": [1]}})
    event = read_stream(path).events[0]
    with pytest.raises(AttributeError):
        event.delta = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        event.arguments["a"] = 2  # type: ignore[index]
    assert event.to_json() == {"type": "toolcall_end", "contentIndex": 0, "arguments": {"a": [1]}}


def test_unknown_keys_survive_a_round_trip(tmp_path):
    path = _write(tmp_path, HEADER, {"type": "text_delta", "contentIndex": 0, "delta": "x", "partial": {"k": 1}})
    assert read_stream(path).events[0].to_json()["partial"] == {"k": 1}


@pytest.mark.parametrize(
    ("lines", "line", "field", "words"),
    [
        ([HEADER, {"type": "text_delta", "contentIndex": 0}], 2, "delta", "needs 'delta'"),
        ([HEADER, {"type": "toolcall_delta", "delta": "x"}], 2, "contentIndex", "needs 'contentIndex'"),
        ([HEADER, {"type": "text_delta", "contentIndex": "0", "delta": "x"}], 2, "contentIndex", "integer"),
        ([HEADER, {"type": "bogus"}], 2, "type", "unknown event type"),
        ([HEADER, {"type": "tool_result", "content": []}], 2, "toolCallId", "needs 'toolCallId'"),
        ([{"type": "stream", "version": 2}], 1, "version", "unsupported stream version"),
        ([{"type": "turn_start"}], 1, "type", "header"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path, lines, line, field, words):
    path = _write(tmp_path, *lines)
    with pytest.raises(StreamFileError) as info:
        read_stream(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, field)
    assert words in str(err) and str(err).startswith(f"{path}:{line}: field '{field}'")


def test_not_json_and_empty_and_missing(tmp_path):
    with pytest.raises(StreamFileError, match=r":2: not valid JSON"):
        read_stream(_write(tmp_path, raw=json.dumps(HEADER) + "\n{oops\n"))
    with pytest.raises(StreamFileError, match="empty stream file"):
        read_stream(_write(tmp_path, raw="\n\n"))
    with pytest.raises(StreamFileError, match="does not exist"):
        read_stream(tmp_path / "nope.jsonl")


def test_blank_lines_are_ignored_and_line_numbers_kept(tmp_path):
    raw = json.dumps(HEADER) + "\n\n" + json.dumps({"type": "turn_start"}) + "\n"
    event = read_stream(_write(tmp_path, raw=raw)).events[0]
    assert event == StreamEvent("turn_start") and event.line == 3


def _shape(value):  # type: ignore[no-untyped-def]
    """A value with its container types spelled out (a read-only mapping equals a dict)."""
    if isinstance(value, MappingProxyType):
        return ("proxy", [(k, _shape(v)) for k, v in value.items()])
    if isinstance(value, dict):
        return (type(value).__name__, [(k, _shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_shape(v) for v in value])
    return (type(value).__name__, value)


class _Dict(dict):  # type: ignore[type-arg]
    pass


@pytest.mark.parametrize("seed", range(4))
def test_frozen_copy_is_freeze_of_thaw(seed: int) -> None:
    """``frozen_copy`` (one pass, what a derived call's end holds) is ``freeze_value(thaw(...))``,
    for plain JSON data and for read-only mappings, tuples and dict subclasses in it."""
    rng = random.Random(seed)

    def value(depth: int):  # type: ignore[no-untyped-def]
        kind = rng.randrange(9 if depth < 4 else 4)
        if kind < 4:
            return rng.choice([None, True, 3, 2.5, "s", "é\n"])
        items = [value(depth + 1) for _ in range(rng.randrange(4))]
        if kind == 4:
            return items
        if kind == 5:
            return tuple(items)
        mapping = {f"k{i}": v for i, v in enumerate(items)}
        return mapping if kind in (6, 7) else rng.choice([MappingProxyType(mapping), _Dict(mapping)])

    for _ in range(300):
        v = value(0)
        assert _shape(frozen_copy(v)) == _shape(freeze_value(thaw(v)))
