"""Recorded streams: the JSONL file format of docs/stream-format.md, read and written.

A stream file is a header line ``{"type":"stream","version":1,...}`` followed by the assistant-side
events of one or more turns, in the order the agent saw them. Reading never guesses: every bad line
raises a ``StreamFileError`` naming the file, the 1-based line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from workbench.errors import StreamFileError

EventType = Literal[
    "turn_start",
    "turn_end",
    "message_start",
    "message_end",
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "tool_result",
    "user_message",
]
EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]
STREAM_VERSION = 1
_EMPTY: Mapping[str, Any] = MappingProxyType({})

# JSON key -> attribute name; the file uses the reference's camelCase.
_KEYS: dict[str, str] = {
    "contentIndex": "content_index",
    "delta": "delta",
    "id": "id",
    "name": "name",
    "arguments": "arguments",
    "role": "role",
    "timestamp": "timestamp",
    "stopReason": "stop_reason",
    "errorMessage": "error_message",
    "toolCallId": "tool_call_id",
    "toolName": "tool_name",
    "content": "content",
    "isError": "is_error",
}


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One recorded agent event. ``None`` = the key is absent in the file.

    ``user_message`` is a workbench extension (a non-assistant message that enters the conversation,
    e.g. the prompt of a derived session); ``*_start``/``*_end`` block events other than tool calls are
    accepted and carry no TTSR meaning, as in the reference (17.4.1 checks only deltas).
    """

    type: str
    content_index: int | None = None
    delta: str | None = None
    id: str | None = None
    name: str | None = None
    arguments: Mapping[str, Any] | None = None
    role: str | None = None
    timestamp: float | int | str | None = None
    stop_reason: str | None = None
    error_message: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    content: Any = None
    is_error: bool | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    line: int | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for key, attr in _KEYS.items():
            value = getattr(self, attr)
            if value is not None:
                out[key] = thaw(value)
        for key, value in self.extra.items():
            out.setdefault(key, thaw(value))
        return out


@dataclass(frozen=True, slots=True)
class StreamHeader:
    """The first line of a stream file."""

    version: int = STREAM_VERSION
    cwd: str | None = None
    session: str | None = None
    note: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "stream", "version": self.version}
        for key in ("cwd", "session", "note"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        for key, value in self.extra.items():
            out.setdefault(key, thaw(value))
        return out


@dataclass(frozen=True, slots=True)
class Stream:
    """A header and its events; ``path`` is where it was read from (``None`` when built in memory)."""

    header: StreamHeader
    events: Sequence[StreamEvent]  # a tuple, or a derived session's ``LazyEvents`` (built turn by turn)
    path: str | None = None

    @property
    def cwd(self) -> str | None:
        return self.header.cwd

    def __len__(self) -> int:
        return len(self.events)

    def turn_count(self) -> int:
        return sum(1 for e in self.events if e.type == "turn_start")


def event(type: str, **fields: Any) -> StreamEvent:
    """Build an event from camelCase or snake_case keyword fields (tests and the conformance runner)."""
    data = {"type": type}
    for key, value in fields.items():
        json_key = next((k for k, a in _KEYS.items() if a == key), key)
        data[json_key] = value
    return parse_event(data)


def parse_event(data: Mapping[str, Any], *, path: str | None = None, line: int | None = None) -> StreamEvent:
    """Validate one decoded event object; raises ``StreamFileError`` naming the bad field."""

    def fail(message: str, fld: str | None) -> StreamFileError:
        return StreamFileError(message, path, line, fld)

    kind = data.get("type")
    if not isinstance(kind, str):
        raise fail("event has no string 'type'", "type")
    if kind not in EVENT_TYPES:
        raise fail(f"unknown event type {kind!r} (expected one of {', '.join(EVENT_TYPES)})", "type")
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        if key == "type":
            continue
        attr = _KEYS.get(key)
        if attr is None:
            extra[key] = freeze_value(value)
        else:
            values[attr] = value

    def want(attr: str, key: str, types: type | tuple[type, ...], *, required: bool = False) -> None:
        value = values.get(attr)
        if value is None:
            if required:
                raise fail(f"{kind} needs '{key}'", key)
            return
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise fail(f"'{key}' must be {_type_name(types)}, got a boolean", key)
        if not isinstance(value, types):
            raise fail(f"'{key}' must be {_type_name(types)}, got {type(value).__name__}", key)

    is_tool = kind.startswith("toolcall_")
    want("content_index", "contentIndex", int, required=is_tool)
    if values.get("content_index") is not None and values["content_index"] < 0:
        raise fail("'contentIndex' must be >= 0", "contentIndex")
    want("delta", "delta", str, required=kind.endswith("_delta"))
    want("id", "id", str)
    want("name", "name", str, required=kind == "toolcall_start")
    want("arguments", "arguments", dict)
    want("role", "role", str)
    want("timestamp", "timestamp", (int, float, str))
    want("stop_reason", "stopReason", str)
    want("error_message", "errorMessage", str)
    want("tool_call_id", "toolCallId", str, required=kind == "tool_result")
    want("tool_name", "toolName", str)
    want("is_error", "isError", bool)
    if kind in ("tool_result", "user_message"):
        content = values.get("content")
        if content is None:
            raise fail(f"{kind} needs 'content'", "content")
        if not isinstance(content, (str, list)):
            raise fail("'content' must be a string or a list of content blocks", "content")
        if isinstance(content, list):
            for i, block in enumerate(content):
                if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                    raise fail(f"content block {i} must be an object with a string 'type'", "content")
    if kind == "toolcall_start" and values.get("id") is None:
        values["id"] = ""
    for attr in ("arguments", "content"):
        if values.get(attr) is not None:
            values[attr] = freeze_value(values[attr])
    return StreamEvent(kind, **values, extra=MappingProxyType(extra) if extra else _EMPTY, line=line)


def read_stream(path: str | Path) -> Stream:
    """Read a stream file; every malformed line raises ``StreamFileError`` (file:line: field)."""
    p = Path(path)
    name = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise StreamFileError("stream file does not exist", name) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamFileError(f"cannot read stream file: {exc}", name) from exc
    return parse_stream(text.splitlines(), path=name)


def parse_stream(lines: Iterable[str], *, path: str | None = None) -> Stream:
    """Parse stream lines (blank lines are allowed and ignored)."""
    header: StreamHeader | None = None
    events: list[StreamEvent] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise StreamFileError(f"not valid JSON ({exc.msg} at column {exc.colno})", path, number) from exc
        if not isinstance(data, dict):
            raise StreamFileError("each line must be a JSON object", path, number)
        if header is None:
            header = _parse_header(data, path, number)
            continue
        if data.get("type") == "stream":
            raise StreamFileError("a second stream header", path, number, "type")
        events.append(parse_event(data, path=path, line=number))
    if header is None:
        raise StreamFileError('empty stream file (expected a {"type":"stream","version":1} header)', path)
    return Stream(header, tuple(events), path)


def _parse_header(data: Mapping[str, Any], path: str | None, line: int) -> StreamHeader:
    if data.get("type") != "stream":
        raise StreamFileError(
            'the first line must be the header {"type":"stream","version":1,...}', path, line, "type"
        )
    version = data.get("version")
    if version != STREAM_VERSION or isinstance(version, bool):
        raise StreamFileError(f"unsupported stream version {version!r} (expected 1)", path, line, "version")
    for key in ("cwd", "session", "note"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise StreamFileError(f"'{key}' must be a string", path, line, key)
    extra = {k: freeze_value(v) for k, v in data.items() if k not in ("type", "version", "cwd", "session", "note")}
    return StreamHeader(version, data.get("cwd"), data.get("session"), data.get("note"), MappingProxyType(extra))


def write_stream(stream: Stream, path: str | Path) -> None:
    """Write ``stream`` as JSONL (header first). Refuses to overwrite nothing but its own target."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for line in stream_lines(stream):
            fh.write(line + "\n")


def stream_lines(stream: Stream) -> list[str]:
    out = [json.dumps(stream.header.to_json(), ensure_ascii=False)]
    out.extend(json.dumps(e.to_json(), ensure_ascii=False) for e in stream.events)
    return out


def make_stream(events: Sequence[StreamEvent], *, cwd: str | None = None, note: str | None = None) -> Stream:
    return Stream(StreamHeader(cwd=cwd, note=note), tuple(events))


def freeze_value(value: Any) -> Any:
    """Deep read-only copy so a frozen event cannot be changed through its arguments."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze_value(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze_value(v) for v in value)
    return value


def frozen_copy(value: Any) -> Any:
    """``freeze_value(thaw(value))`` in one pass: plain JSON data (what a session holds) is frozen
    without first being copied; anything else goes the two-pass way."""
    kind = type(value)
    if kind is dict:
        return MappingProxyType({k: frozen_copy(v) for k, v in value.items()})
    if kind is list:
        return tuple([frozen_copy(v) for v in value])
    if isinstance(value, (Mapping, tuple, list)):
        return freeze_value(thaw(value))
    return value


def thaw(value: Any) -> Any:
    """Plain JSON data (dicts and lists) back out of a frozen or otherwise read-only value."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [thaw(v) for v in value]
    return value


# The two JSON texts of a tool call's arguments. ``json.dumps`` with options builds an encoder at
# every call; these are built once.
_SPACED = json.JSONEncoder(ensure_ascii=False).encode
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def args_json(args: Any) -> str:
    """The joined argument deltas of a derived tool call: ``json.dumps(thaw(args), ensure_ascii=False)``."""
    try:
        return _SPACED(args)  # plain data (what a session holds): no copy needed
    except TypeError:  # a read-only mapping somewhere
        return _SPACED(thaw(args))


def compact_json(args: Any) -> str:
    """``JSON.stringify`` of final arguments (the check of a tool without a digest): compact, non-ASCII kept."""
    try:
        return _COMPACT(args)
    except TypeError:
        return _COMPACT(thaw(args))


def _type_name(types: type | tuple[type, ...]) -> str:
    names = {int: "an integer", str: "a string", dict: "an object", bool: "a boolean", float: "a number"}
    seq = types if isinstance(types, tuple) else (types,)
    return " or ".join(names.get(t, t.__name__) for t in seq)
