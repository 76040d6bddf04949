"""Streams derived from recorded sessions: each assistant message re-chunked into deltas.

A session file keeps only finished messages, so the deltas the model streamed are gone; a chunking
policy cuts them again. ``fixed`` = ``size`` characters per delta, ``words`` = ``size`` words (with
their trailing whitespace), ``tokens`` = ``size`` token-like pieces (a BPE-ish split: a word with its
leading space, a run of punctuation, a run of whitespace; long words cut every 6 characters). Tool
arguments are serialised as JSON and chunked the same way; tool results and turn boundaries are kept.
"""

from __future__ import annotations

import json
import os
import re
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from workbench.errors import NotFoundError, UsageError
from workbench.replay.stream import (
    Stream,
    StreamEvent,
    StreamHeader,
    args_json,
    frozen_copy,
    parse_event,
    read_stream,
    thaw,
)
from workbench.sessions import GIVE_WAY_EVERY, Entry, OnDisk, branch_path, give_way, load_session, paused_gc

ChunkPolicy = Literal["words", "fixed", "tokens"]
CHUNK_POLICIES: tuple[str, ...] = ("words", "fixed", "tokens")
DEFAULT_SIZE = {"words": 1, "fixed": 16, "tokens": 1}
_WORDS = re.compile(r"\s*\S+\s*|\s+")
_TOKENS = re.compile(r" ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+|\s+(?!\S)|\s+|_+", re.UNICODE)
_LONG = 6


def chunk_text(text: str, policy: str = "words", size: int | None = None) -> list[str]:
    """Cut ``text`` into deltas; joining them gives ``text`` back exactly."""
    n = _size(policy, size)
    if policy == "words" and n > 1 and text:
        # ``n`` words at a time in one pass: each repetition matches what the next ``_WORDS`` match
        # would (neither alternative can match empty, and the greedy repeat never backtracks into an
        # earlier one), so the chunks are the pieces joined ``n`` at a time, without the joins
        chunks = _word_groups(n).findall(text)
        if "".join(chunks) == text:  # (the same guard as ``_pieces``)
            return chunks
    pieces = _pieces(text, policy, n)
    if policy == "fixed" or n == 1:  # (one piece per chunk: no joins to make)
        return pieces
    return ["".join(pieces[i:i + n]) for i in range(0, len(pieces), n)]


@lru_cache(maxsize=16)
def _word_groups(n: int) -> re.Pattern[str]:
    return re.compile(rf"(?:\s*\S+\s*|\s+){{1,{n}}}")


def chunk_count(text: str, policy: str = "words", size: int | None = None) -> int:
    """``len(chunk_text(text, policy, size))`` without joining the chunks."""
    n = _size(policy, size)
    if policy == "words":
        # One piece per run of non-whitespace (its whitespace around it joined to it), or one for a
        # text that is all whitespace: ``re``'s ``\s`` is ``str.isspace``, what ``split`` splits on.
        count = len(text.split()) or (1 if text else 0)
    else:
        count = len(_pieces(text, policy, n))
    return count if policy == "fixed" else -(-count // n)


def _size(policy: str, size: int | None) -> int:
    if policy not in CHUNK_POLICIES:
        raise UsageError(f"unknown chunking policy {policy!r} (expected one of {', '.join(CHUNK_POLICIES)})")
    n = DEFAULT_SIZE[policy] if size is None else size
    if not isinstance(n, int) or n < 1:
        raise UsageError(f"chunk size must be a positive integer, got {size!r}")
    return n


def _pieces(text: str, policy: str, n: int) -> list[str]:
    """The chunks of ``fixed``; the pieces that ``words`` / ``tokens`` group ``n`` at a time."""
    if not text:
        return []
    if policy == "fixed":
        return [text[i:i + n] for i in range(0, len(text), n)]
    if policy == "words":
        pieces = _WORDS.findall(text)
    else:
        pieces = []
        for piece in _TOKENS.findall(text):
            pieces.extend(piece[i:i + _LONG] for i in range(0, len(piece), _LONG))
    if "".join(pieces) != text:  # the patterns cover every character; guard against a regex slip
        pieces = [text]
    return pieces


def entry_branch(session: Any, leaf: str | None) -> list[Any]:
    by_id = {e.id: e for e in session.entries}
    if leaf is not None and leaf not in by_id:
        raise UsageError(f"no entry {leaf!r} in {session.path}")
    return branch_path(by_id, leaf or session.leaf_id)


def _ev(kind: str, **fields: Any) -> StreamEvent:
    return parse_event({"type": kind, **{k: thaw(v) for k, v in fields.items() if v is not None}})


def _delta(kind: str, index: int, piece: str) -> StreamEvent:
    # What `_ev` gives for a delta (an int index from enumerate, a str piece), without re-validating
    # the fields it just built: deltas are most of a derived stream.
    return StreamEvent(kind, content_index=index, delta=piece)


def timestamp_ok(stamp: Any) -> bool:
    """Whether ``parse_event`` accepts ``stamp`` as a message timestamp (else it names the bad field)."""
    return stamp is None or (isinstance(stamp, (int, float, str)) and not isinstance(stamp, bool))


def says_stream(line: str) -> bool:
    """Whether a file's first non-blank line makes it a recorded stream file (``"type": "stream"``)."""
    try:
        return bool(json.loads(line).get("type") == "stream")
    except (ValueError, AttributeError):
        return False


_TURN_START = StreamEvent("turn_start")
_TURN_END = StreamEvent("turn_end")


def _call_start(index: int, block: Mapping[str, Any]) -> StreamEvent:
    call_id = block.get("id") if isinstance(block.get("id"), str) else ""
    name = block.get("name") if isinstance(block.get("name"), str) else ""
    return StreamEvent("toolcall_start", content_index=index, id=call_id, name=name)


def _call_end(index: int, args: Any) -> StreamEvent:
    return StreamEvent("toolcall_end", content_index=index, arguments=frozen_copy(args))


def _assistant_events(message: Mapping[str, Any], policy: str, size: int | None) -> Iterator[StreamEvent]:
    stamp = message.get("timestamp")
    model = message.get("model") if isinstance(message.get("model"), str) else None
    if timestamp_ok(stamp):
        # As `_ev` builds it; the model rides along as an extra field (the timeline filters turns by it).
        yield StreamEvent("message_start", role="assistant", timestamp=stamp,
                          extra=MappingProxyType({"model": model}) if model else MappingProxyType({}))
    else:
        yield _ev("message_start", role="assistant", timestamp=stamp, model=model)  # `_ev` names the bad field
    for index, block in enumerate(message.get("content") or ()):
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            for piece in chunk_text(block["text"], policy, size):
                yield _delta("text_delta", index, piece)
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            for piece in chunk_text(block["thinking"], policy, size):
                yield _delta("thinking_delta", index, piece)
        elif kind == "toolCall":
            args = block.get("arguments") if isinstance(block.get("arguments"), Mapping) else {}
            yield _call_start(index, block)
            for piece in chunk_text(args_json(args), policy, size):
                yield _delta("toolcall_delta", index, piece)
            yield _call_end(index, args)
    stop = message.get("stopReason")
    error = message.get("errorMessage")
    yield StreamEvent("message_end", stop_reason=stop if isinstance(stop, str) else "stop",
                      error_message=error if isinstance(error, str) else None)


def _is_injection(entry: Any) -> bool:
    return entry.type == "custom_message" and entry.get("customType") == "ttsr-injection"


# What ``derive_turns`` puts in place of each event of a turn it leaves out.
PLACEHOLDER = StreamEvent("placeholder")


class CallDelta:
    """A fed tool call's argument delta in a probe's stream (``derive_turns``): the fields of the
    ``toolcall_delta`` event it stands for, without building that event. A ``StreamEvent`` costs
    several microseconds to make (a frozen dataclass sets its sixteen fields one by one), and the
    probe's tool-call join feeds few of a call's deltas (README, "Benchmarks"); ``event()`` makes the
    event for the ones fed."""

    __slots__ = ("content_index", "delta")
    type = "toolcall_delta"

    def __init__(self, content_index: int, delta: str) -> None:
        self.content_index, self.delta = content_index, delta

    def event(self) -> StreamEvent:
        """The event ``derive_stream`` has at this index (``_delta``'s)."""
        return StreamEvent("toolcall_delta", content_index=self.content_index, delta=self.delta)


def _args_text(args: Any, texts: Mapping[int, tuple[Any, str]] | None) -> str:
    """``args_json(args)``, taken from ``texts`` (``derive_turns``) when it holds these very arguments."""
    if texts is not None:
        known = texts.get(id(args))
        if known is not None and known[0] is args:
            return known[1]
    return args_json(args)


def _assistant_event_count(message: Mapping[str, Any], policy: str, size: int | None,
                           texts: Mapping[int, tuple[Any, str]] | None = None) -> int:
    """``len(list(_assistant_events(message, policy, size)))`` without building the events, for a
    message whose timestamp ``_assistant_events`` accepts (``texts``: as ``derive_turns``)."""
    count = 2  # message_start, message_end
    for block in message.get("content") or ():
        if not (type(block) is dict or isinstance(block, Mapping)):  # (no ABC check for the usual dict)
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            count += chunk_count(block["text"], policy, size)
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            count += chunk_count(block["thinking"], policy, size)
        elif kind == "toolCall":
            args = block.get("arguments") if isinstance(block.get("arguments"), Mapping) else {}
            count += 2 + chunk_count(_args_text(args, texts), policy, size)
    return count


def derive_stream(
    session: Any,
    *,
    policy: str = "words",
    size: int | None = None,
    leaf: str | None = None,
    all_branches: bool = False,
    lazy: bool = False,
) -> Stream:
    """A stream from a session (a loaded ``Session`` or a path): the active branch (or the branch
    ending at ``leaf``), or every message of the file in file order when ``all_branches``.

    Each assistant message opens a turn, closed after the tool results that follow it; user
    messages become ``user_message`` events. Earlier TTSR injections are left out: the replay
    produces its own.

    ``lazy``: the events are built turn by turn when asked for (``LazyEvents``): the same events
    at the same indices, but a 100,000-entry session is ready in the time it takes to count its
    events, and only the turns looked at are held in memory (docs/large-sessions.md).
    """
    if isinstance(session, (str, os.PathLike)):
        session = load_session(session)
    chunk_text("", policy, size)  # validate policy and size up front
    entries: Sequence[Any] = list(session.entries) if all_branches else entry_branch(session, leaf)
    if lazy:
        return Stream(_header(session, policy, size, all_branches), LazyEvents(entries, policy, size))
    return _derive(session, entries, policy, size, all_branches, None)


def _header(session: Any, policy: str, size: int | None, all_branches: bool) -> StreamHeader:
    return StreamHeader(cwd=session.cwd, session=str(session.path),
                        note=f"derived: policy={policy} size={size or DEFAULT_SIZE[policy]}"
                        + (" all branches" if all_branches else ""))


def _tool_result_event(message: Mapping[str, Any]) -> StreamEvent:
    content = message.get("content")
    return _ev("tool_result", toolCallId=str(message.get("toolCallId") or ""),
               toolName=message.get("toolName") if isinstance(message.get("toolName"), str) else None,
               content=content if isinstance(content, (list, str)) else [],
               isError=message.get("isError") if isinstance(message.get("isError"), bool) else None)


def _user_event(message: Mapping[str, Any]) -> StreamEvent:
    content = message["content"]
    return _ev("user_message", content=content if isinstance(content, (list, str)) else str(content))


def _blocks_ok(content: Any) -> bool:
    """Whether ``parse_event`` accepts ``content``'s blocks (else building the event names the bad one)."""
    return not isinstance(content, list) or all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in content)


_MARK, _ASSISTANT, _RESULT, _USER = -1, 0, 1, 2
_BUILD = {_RESULT: _tool_result_event, _USER: _user_event}


def _outline(entries: Sequence[Any], *, defer: bool = False) -> Iterator[tuple[int, Any]]:
    """The stream ``entries`` give, one piece per message, in order: ``(_MARK, _TURN_START or
    _TURN_END)`` around each turn (an assistant message opens one, a user message closes it), and
    ``(_ASSISTANT | _RESULT | _USER, message)`` for the messages themselves. Injected messages are
    not part of the recording and give nothing. ``derive_stream`` and ``LazyEvents`` both read it.

    ``defer``: a tool result the loader left in the file comes as ``(_RESULT, entry)``, unread (its
    content is a string or typed blocks: ``workbench.sessions.records``)."""
    in_turn = False
    for entry in entries:
        if defer and entry.type == "message" and type(entry.record) is OnDisk:
            yield _RESULT, entry
            continue
        message = entry.message if entry.type == "message" else None
        if message is None or _is_injection(entry):
            continue
        role = message.get("role")
        if role == "assistant":
            if in_turn:
                yield _MARK, _TURN_END
            yield _MARK, _TURN_START
            in_turn = True
            yield _ASSISTANT, message
        elif role == "toolResult":
            yield _RESULT, message
        elif role in ("user", "developer") and message.get("content") is not None:
            if in_turn:
                yield _MARK, _TURN_END
                in_turn = False
            yield _USER, message
    if in_turn:
        yield _MARK, _TURN_END


class LazyEvents(Sequence[StreamEvent]):
    """The events ``derive_stream`` gives for ``entries``, built one message at a time when asked for.

    Made in one pass that only counts: each message's events are built (chunked, frozen) on first
    access, and the last ``keep`` built messages are kept, so seeking around a step costs nothing
    and memory stays bounded whatever the session's size. Everything that could make the full
    derivation raise (a bad timestamp, a bad content block) is checked in the counting pass, which
    then builds that message at once and raises the same error. Thread-safe: the stepper's lane and
    a timeline may read the same stream.
    """

    def __init__(self, entries: Sequence[Any], policy: str, size: int | None, *, keep: int = 256) -> None:
        self.policy, self.size, self.keep = policy, size, keep
        starts: list[int] = []
        items: list[Any] = []  # a StreamEvent (turn_start / turn_end), or (kind, message) to build
        turn_starts: list[int] = []
        n = 0

        def add(item: Any, count: int = 1) -> None:
            nonlocal n
            starts.append(n)
            items.append(item)
            n += count

        # A tuple per message (140,000 on a 100,000-entry session) and no cycles: with the collector
        # on, its passes over the loaded session's millions of containers were most of the count
        # (0.6-0.75 s against 0.26 s paused; docs/large-sessions.md).
        with paused_gc():
            for kind, item in _outline(entries, defer=True):
                if not len(items) & GIVE_WAY_EVERY:
                    give_way()  # a served page goes first (workbench.sessions.giving_way)
                if kind == _MARK:
                    if item is _TURN_START:
                        turn_starts.append(n)
                    add(item)
                elif kind == _ASSISTANT:
                    if not timestamp_ok(item.get("timestamp")):
                        list(_assistant_events(item, policy, size))  # raises, naming the field, as derive_stream does
                    add((_ASSISTANT, item), _assistant_event_count(item, policy, size))
                else:
                    if type(item) is not Entry and not _blocks_ok(item.get("content")):
                        _BUILD[kind](item)  # raises
                    add((kind, item))  # an entry: read when its event is built
        self._starts, self._items, self._total, self._turn_starts = starts, items, n, turn_starts
        self._built: OrderedDict[int, tuple[StreamEvent, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0  # messages built so far (a benchmark and the tests read it)

    def __len__(self) -> int:
        return self._total

    def turn_starts(self) -> list[int]:
        """The index of every ``turn_start`` event, without building any turn."""
        return list(self._turn_starts)

    def _segment(self, k: int) -> tuple[StreamEvent, ...]:
        item = self._items[k]
        if isinstance(item, StreamEvent):
            return (item,)
        with self._lock:
            got = self._built.get(k)
            if got is not None:
                self._built.move_to_end(k)
                return got
        kind, message = item
        if kind == _ASSISTANT:
            events = tuple(_assistant_events(message, self.policy, self.size))
        else:
            if type(message) is Entry:
                message = message.message
            events = (_BUILD[kind](message),)
        with self._lock:
            self.builds += 1
            self._built[k] = events
            while len(self._built) > self.keep:
                self._built.popitem(last=False)
        return events

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return _Window(self, range(self._total)[index])
        if index < 0:
            index += self._total
        if not 0 <= index < self._total:
            raise IndexError(f"event {index} out of range (the stream has {self._total} events)")
        k = bisect_right(self._starts, index) - 1
        return self._segment(k)[index - self._starts[k]]

    def __iter__(self) -> Iterator[StreamEvent]:
        for k in range(len(self._items)):
            yield from self._segment(k)


class _Window(Sequence[StreamEvent]):
    """A slice of ``LazyEvents``, itself lazy (a bounded replay reads ``events[:until]``)."""

    def __init__(self, base: LazyEvents, indices: range) -> None:
        self._base, self._indices = base, indices

    def __len__(self) -> int:
        return len(self._indices)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return _Window(self._base, self._indices[index])
        return self._base[self._indices[index]]

    def __iter__(self) -> Iterator[StreamEvent]:
        base = self._base
        return (base[i] for i in self._indices)


@dataclass(frozen=True, slots=True)
class FeedPlan:
    """What a probe feeds of one assistant message (``workbench.backtest.probe``). Per group (its
    text deltas, its thinking deltas, the argument deltas of each tool call, by content index):
    ``None``, nothing (a tool call's start and end are not fed either); else ``n``, the length of
    the group's joined text before which no literal can end. Deltas ending before ``n`` are joined
    into the first delta that reaches it, so every fed step sees the buffer text it would have seen."""

    text: int | None
    thinking: int | None
    calls: Mapping[int, int | None]


def derive_turns(session: Any, plans: Sequence[FeedPlan | None], *, policy: str = "words",
                 size: int | None = None, branch: Sequence[Any] | None = None,
                 texts: Mapping[int, tuple[Any, str]] | None = None) -> Stream:
    """``derive_stream`` of the session's active branch for a probe: the same length, event indices
    and turns, but what the probe does not feed is ``PLACEHOLDER``: every event of turn ``k`` but
    its ``turn_start`` and ``turn_end`` when ``plans[k]`` is ``None`` (those turns are not chunked),
    else what ``FeedPlan`` leaves out, the ``message_end``, every tool result and user message.
    ``plans`` has one value per assistant message of the branch. The caller has checked the
    contents ``parse_event`` would check: a placeholder hides no error. ``branch``: the active
    branch's entries when the caller has them already. A fed tool call's argument deltas are
    ``CallDelta`` (its ``event()`` is the event), not ``StreamEvent``. ``texts``: ``args_json`` of
    calls' arguments the caller has made already, by ``id`` of the arguments, each with the
    arguments it was made of (used only for that very object), so they are not serialised again."""
    chunk_text("", policy, size)
    return _derive(session, entry_branch(session, None) if branch is None else branch, policy, size, False, plans,
                   texts)


def _fed_events(message: Mapping[str, Any], plan: FeedPlan, policy: str, size: int | None,
                texts: Mapping[int, tuple[Any, str]] | None = None) -> list[Any]:
    """``_assistant_events`` with what ``plan`` does not feed as ``PLACEHOLDER`` (same positions),
    and a fed tool call's argument deltas as ``CallDelta``."""
    out: list[Any] = [next(_assistant_events(message, policy, size))]  # message_start, as it builds it
    done = {"text": 0, "thinking": 0}
    held: dict[str, list[str]] = {"text": [], "thinking": []}

    def deltas(kind: str, index: int, pieces: list[str], start: int, done: int, held: list[str]) -> int:
        # The pieces that end before ``start`` (a prefix: the ends only grow) are held, then joined
        # into the first one that reaches it; found by the ends' search rather than piece by piece.
        ends = list(accumulate(map(len, pieces), initial=done))
        skip = bisect_left(ends, start, 1) - 1
        if skip:
            held.extend(pieces[:skip])
            out.extend([PLACEHOLDER] * skip)
        fed = pieces[skip:] if skip else pieces
        if fed and held:
            fed[0] = "".join(held) + fed[0]
            held.clear()
        if kind == "toolcall_delta":
            out.extend([CallDelta(index, piece) for piece in fed])
        else:
            out.extend([_delta(kind, index, piece) for piece in fed])
        return ends[-1]

    for index, block in enumerate(message.get("content") or ()):
        if not (type(block) is dict or isinstance(block, Mapping)):
            continue
        kind = block.get("type")
        if kind in ("text", "thinking") and isinstance(block.get(kind), str):
            start = plan.text if kind == "text" else plan.thinking
            if start is None:
                out.extend([PLACEHOLDER] * chunk_count(block[kind], policy, size))
            else:
                done[kind] = deltas(f"{kind}_delta", index, chunk_text(block[kind], policy, size), start, done[kind],
                                    held[kind])
        elif kind == "toolCall":
            args = block.get("arguments") if isinstance(block.get("arguments"), Mapping) else {}
            raw = _args_text(args, texts)
            start = plan.calls.get(index)
            if start is None:
                out.extend([PLACEHOLDER] * (2 + chunk_count(raw, policy, size)))
                continue
            out.append(_call_start(index, block))
            deltas("toolcall_delta", index, chunk_text(raw, policy, size), start, 0, [])
            out.append(_call_end(index, args))
    out.append(PLACEHOLDER)  # message_end
    return out


def _derive(session: Any, entries: Sequence[Any], policy: str, size: int | None, all_branches: bool,
            plans: Sequence[FeedPlan | None] | None, texts: Mapping[int, tuple[Any, str]] | None = None) -> Stream:
    events: list[Any] = []  # (``CallDelta`` among them when ``plans`` is given)
    turn = -1
    for kind, item in _outline(entries):
        if kind == _MARK:
            events.append(item)
            if item is _TURN_START:
                turn += 1
        elif kind == _ASSISTANT:
            if plans is None or turn >= len(plans) or not timestamp_ok(item.get("timestamp")):
                events.extend(_assistant_events(item, policy, size))  # (a bad timestamp raises there)
            elif plans[turn] is None:
                events.extend([PLACEHOLDER] * _assistant_event_count(item, policy, size, texts))
            else:
                events.extend(_fed_events(item, plans[turn], policy, size, texts))  # type: ignore[arg-type]  # not None
        elif plans is not None:
            events.append(PLACEHOLDER)
        else:
            events.append(_BUILD[kind](item))
    return Stream(_header(session, policy, size, all_branches), tuple(events))


def open_stream(path: str | os.PathLike[str], *, policy: str = "words", size: int | None = None,
                all_branches: bool = False) -> tuple[Stream, Any]:
    """``(stream, session or None)``: a stream file as it is; any other file is loaded as a session
    and derived into a stream (``derive_stream``)."""
    source = Path(path)
    if not source.is_file():
        raise NotFoundError(f"{path}: no such file")
    with source.open(encoding="utf-8", errors="replace") as fh:
        first = next((line for line in fh if line.strip()), "")
    if says_stream(first):
        return read_stream(source), None
    session = load_session(source)
    return derive_stream(session, policy=policy, size=size, all_branches=all_branches), session


# The deltas are what a chunking policy cuts differently; every other event (a message's start and
# end, a tool call's start and end, a result, a turn's bounds) is the same in every chunking of a session.
_DELTA_TYPES = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})


def stream_point(events: Sequence[StreamEvent], index: int) -> tuple[int, int]:
    """Where step ``index`` of ``events`` is, in terms every chunking of the same messages shares:
    the number of non-delta events up to it (itself included) and the characters the deltas since
    the last of them streamed, up to and including it."""
    marks = chars = 0
    for i, event in enumerate(events):
        if i > index:
            break
        if event.type in _DELTA_TYPES:
            chars += len(event.delta or "")
        else:
            marks, chars = marks + 1, 0
    return marks, chars


def step_at_point(events: Sequence[StreamEvent], point: tuple[int, int]) -> int | None:
    """The first step of ``events`` at or past ``point`` (``stream_point``'s terms): after a change of
    chunking, the same event of the same turn, or for a delta the first one that streams the same
    character. ``None`` when the stream ends before it."""
    marks = chars = 0
    for i, event in enumerate(events):
        if event.type in _DELTA_TYPES:
            chars += len(event.delta or "")
        else:
            marks, chars = marks + 1, 0
        if (marks, chars) >= point:
            return i
    return None
