r"""Backtest prefilter: turns that cannot fire in probe mode are played without the engine.

In probe mode (``interruptMode: never``, ``repeatMode: after-gap``, gap 0) nothing aborts and no
injection silences a rule, so what fires in a turn depends only on that turn's deltas: every buffer
starts empty at ``turn_start`` (the manager's ``reset_buffer``) and an injection record never gates.
A regex condition matches only text holding one of its required literals
(``workbench.ttsr.literals``); an AST pattern only code holding its longest plain identifier. So a
turn none of whose buffers can hold such a literal cannot fire. Per turn, the text, thinking and
tool-argument deltas each feed their own buffers, so each group whose text holds no literal is not
fed at all (structure events still are; what a delta adds to the conversation is not part of a
probe's outcome), and a session where no group can fire is not replayed. ``tests/replay/
test_prefilter.py`` compares whole backtests with and without the skip on generated corpora.

What a turn's buffers can hold (a superset is enough):

* ``text`` / ``thinking``: the concatenation of the turn's text / thinking deltas;
* a tool call's buffer: its raw argument deltas, or a digest of its arguments parsed so far. Digests
  are lines of argument string values (prefix-trimmed, ``+`` removed) joined with ``\n``
  (``workbench.ttsr.matchers``), and values parsed from a prefix of valid JSON are prefixes of the
  final values, so a literal without ``\n`` in a digest is inside some string of the final
  arguments (every key and value, duplicates included, is collected).

Anything the model above does not cover makes the turn "may fire": a literal holding ``\n`` or NUL,
argument text that is not valid JSON, a tool delta without its ``toolcall_start``, a tool call
without an id, a text delta aimed at a tool block, deltas without ``contentIndex``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from workbench.replay.derive import _branch, _is_injection, chunk_text, derive_stream, open_stream
from workbench.replay.engine import Key, compile_rule_condition, engine_text, literal_index
from workbench.replay.session import SimulatedSession
from workbench.replay.stream import Stream, thaw
from workbench.rules import Rule
from workbench.sessions import load_session

__all__ = ["TurnFilter", "muted_events", "play", "probe_firings", "turn_filter"]

_IDENT = re.compile(r"\$\$?\$?[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class TurnFilter:
    """Required literals of a rule set: regex ones (any buffer) and AST ones (tool arguments)."""

    regex_keys: frozenset[Key]
    ast_keys: frozenset[Key]


def _ast_literal(pattern: str) -> Key | None:
    words = [w for w in _IDENT.findall(pattern) if not w.startswith("$")]
    return (max(words, key=len), False) if words else None


def turn_filter(rules: Iterable[Rule]) -> TurnFilter | None:
    """The rule set's literals, or None when some rule could match without any (no skipping)."""
    return _turn_filter(tuple((tuple(_patterns(r.condition)), tuple(_patterns(r.ast_condition))) for r in rules))


def _patterns(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)]


@lru_cache(maxsize=64)
def _turn_filter(rules: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]) -> TurnFilter | None:
    regex: set[Key] = set()
    ast: set[Key] = set()
    for conditions, ast_patterns in rules:
        for pattern in conditions:
            try:
                cond = compile_rule_condition(pattern)
            except Exception:  # noqa: BLE001 - the manager skips an invalid condition: it never matches
                continue
            if cond.literals is None:
                return None
            regex |= cond.literals
        for pattern in ast_patterns:
            if not pattern.strip():
                continue
            key = _ast_literal(pattern)
            if key is None:
                return None
            ast.add(key)
    if any("\n" in k[0] or "\0" in k[0] for k in regex | ast):
        return None
    return TurnFilter(frozenset(regex), frozenset(ast))


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _strings(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            _strings(v, out)


def _pairs(pairs: list[tuple[str, Any]]) -> list[Any]:
    # Every key and value, duplicates included (a partial parse may have seen an earlier duplicate).
    return [item for pair in pairs for item in pair]


class _Unusual(Exception):
    """The segment does not fit the model: it may fire."""


def _segment_haystacks(events: Sequence[Any], start: int, end: int) -> tuple[str, str, str]:
    """(text, thinking, tool): what the segment's buffers can hold (tool pieces joined with NUL)."""
    text: list[str] = []
    thinking: list[str] = []
    raw: dict[int, list[str]] = {}  # block number -> argument deltas
    tool_strings: list[str] = []
    blocks: dict[int, int] = {}  # content index -> block number, in the current message
    kinds: dict[int, str] = {}  # content index -> "text" / "tool", in the current message
    ids: set[str] = set()
    for i in range(start, end):
        ev = events[i]
        t = ev.type
        if t in ("text_delta", "thinking_delta"):
            ci = ev.content_index
            if ci is None or kinds.setdefault(ci, "text") != "text":
                raise _Unusual
            (text if t == "text_delta" else thinking).append(ev.delta or "")
        elif t == "toolcall_start":
            ci = ev.content_index
            if ci is None or ci in kinds or not ev.id or ev.id in ids:
                raise _Unusual
            ids.add(ev.id)
            kinds[ci] = "tool"
            blocks[ci] = len(raw)
            raw[len(raw)] = []
        elif t == "toolcall_delta":
            ci = ev.content_index
            if ci not in blocks:
                raise _Unusual
            raw[blocks[ci]].append(ev.delta or "")
        elif t == "toolcall_end":
            if ev.arguments:
                _strings(thaw(ev.arguments), tool_strings)
        elif t == "message_start":
            if (ev.role or "assistant") != "assistant":
                raise _Unusual
            blocks, kinds = {}, {}
        elif t == "message_end":
            blocks, kinds = {}, {}
    for pieces in raw.values():
        body = "".join(pieces)
        tool_strings.append(body)
        if body:
            try:
                parsed = json.loads(body, object_pairs_hook=_pairs)
            except ValueError:
                raise _Unusual from None
            _strings(parsed, tool_strings)
    return "".join(text), "".join(thinking), "\0".join(tool_strings)


def muted_events(stream: Stream, filt: TurnFilter | None) -> list[bool] | None:
    """Per event: True for a delta that cannot take part in a firing (None: nothing to mute).

    Segments run from one ``turn_start`` to the next (the events before the first one form a
    segment too): each begins with empty buffers. In a segment, the text deltas feed only the
    ``text`` buffer, the thinking deltas only ``thinking`` and the tool deltas only the tool calls'
    buffers, so each of the three groups is muted on its own when it holds no literal.
    """
    if filt is None:
        return None
    events = stream.events
    starts = [0] + [i for i, e in enumerate(events) if e.type == "turn_start" and i > 0] + [len(events)]
    anywhere = literal_index(filt.regex_keys | filt.ast_keys)  # tool arguments: every rule
    prose = literal_index(filt.regex_keys) if filt.regex_keys else None
    out = [False] * len(events)
    any_muted = False
    for start, end in zip(starts, starts[1:]):
        try:
            text, thinking, tool = _segment_haystacks(events, start, end)
        except _Unusual:
            continue
        quiet = set()
        if prose is None or not prose.found_in(engine_text(text)):
            quiet.add("text_delta")
        if prose is None or not prose.found_in(engine_text(thinking)):
            quiet.add("thinking_delta")
        if not anywhere.found_in(engine_text(tool)):
            quiet.add("toolcall_delta")
        if quiet:
            for i in range(start, end):
                if events[i].type in quiet:
                    out[i] = any_muted = True
    return out if any_muted else None


_DELTAS = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})


def play(sim: Any, stream: Stream, mute: list[bool] | None, observe: Callable[[int, Any], None] | None = None,
         tick: Callable[[], None] | None = None) -> None:
    """Feed the events of ``stream`` to ``sim``, except the deltas ``mute`` leaves out.

    A muted delta could not have made a condition match (no literal in its buffer's whole text),
    and what else it changes (the message being built, hence the conversation) is not part of a
    probe's outcome: nothing aborts and the session's status only changes on an interrupt.
    """
    for i, ev in enumerate(stream.events):
        if observe is not None:
            observe(i, ev)
        if mute is None or not mute[i]:
            sim.feed(i, ev)
        if tick is not None:
            tick()


# Private switch for tests and the benchmark: the same backtest without the skip.
_SKIP = True


def probe_firings(stream: Stream, rules: Sequence[Rule], settings: Any, *, cwd: str, recorder: Callable[[Any], Any],
                  tick: Callable[[], None] | None = None) -> tuple[str, list[Any]]:
    """``(status, firings)`` of ``record_firings`` in probe mode: ``recorder(manager)`` is the
    ``on_check`` hook (with ``observe(index, event)`` and ``firings``). Turns that cannot fire are
    played with the engine muted; when no turn can, there is nothing to play: no firing, and the
    session completes (only an interrupt can end it early, and nothing fires).
    """
    mute = muted_events(stream, turn_filter(rules)) if _SKIP else None
    if mute is not None and all(m or ev.type not in _DELTAS for m, ev in zip(mute, stream.events)):
        return "completed", []
    sim = SimulatedSession(rules, settings, cwd=cwd, stream=stream)
    hook = recorder(sim.manager)
    sim.on_check = hook
    play(sim, stream, mute, hook.observe, tick)
    return sim.finish().status, hook.firings


# --- whole sessions, before deriving their stream ----------------------------------------------------


def _blocks_ok(content: Any) -> bool:
    """``parse_event``'s check of a content list (``derive_stream`` would raise otherwise)."""
    if not isinstance(content, (list, tuple)):
        return True
    return all(isinstance(b, Mapping) and isinstance(b.get("type"), str) for b in content)


def quiet_session(session: Any, filt: TurnFilter) -> int | None:
    """The turn count of the session's active branch when none of its turns can fire, else None.

    Mirrors ``derive_stream``: each assistant message is a turn whose text, thinking and tool
    argument deltas are the chunks of its blocks (chunks join back to the block text exactly) and
    the ``json.dumps`` of each call's arguments. A session ``derive_stream`` would reject (a bad
    timestamp, a malformed content block) is left to it (None), so its error is reported as before.
    """
    anywhere = literal_index(filt.regex_keys | filt.ast_keys)
    prose = literal_index(filt.regex_keys) if filt.regex_keys else None
    turns = 0
    for entry in _branch(session, None):
        message = entry.message if entry.type == "message" else None
        if message is None or _is_injection(entry):
            continue
        role = message.get("role")
        if role in ("toolResult", "user", "developer"):
            if not _blocks_ok(message.get("content")):
                return None
            continue
        if role != "assistant":
            continue
        turns += 1
        stamp = message.get("timestamp")
        if not (stamp is None or (isinstance(stamp, (int, float, str)) and not isinstance(stamp, bool))):
            return None
        text: list[str] = []
        thinking: list[str] = []
        tool: list[str] = []
        ids: set[str] = set()
        for block in message.get("content") or ():
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                text.append(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                thinking.append(block["thinking"])
            elif kind == "toolCall":
                call_id = block.get("id") if isinstance(block.get("id"), str) else ""
                if not call_id or call_id in ids:
                    return None  # the stream-level model would not skip it either
                ids.add(call_id)
                args = thaw(block.get("arguments")) if isinstance(block.get("arguments"), Mapping) else {}
                tool.append(json.dumps(args, ensure_ascii=False))
                _strings(args, tool)
        if anywhere.found_in(engine_text("\0".join(tool))):
            return None
        if prose is not None and (prose.found_in(engine_text("".join(text)))
                                  or prose.found_in(engine_text("".join(thinking)))):
            return None
    return turns


def probe_stream(path: str, rules: Sequence[Rule], *, policy: str, size: int | None) -> tuple[Stream | None, int]:
    """``(stream, 0)`` as ``open_stream`` gives it, or ``(None, turns)`` for a session file none of
    whose turns can fire in probe mode (its stream is not even derived)."""
    filt = turn_filter(rules) if _SKIP else None
    source = Path(path)
    if filt is None or not source.is_file():
        return open_stream(path, policy=policy, size=size)[0], 0
    with source.open(encoding="utf-8", errors="replace") as fh:
        first = next((line for line in fh if line.strip()), "")
    try:
        kind = json.loads(first).get("type")
    except (ValueError, AttributeError):
        kind = None
    if kind == "stream":
        return open_stream(path, policy=policy, size=size)[0], 0
    session = load_session(source)
    chunk_text("", policy, size)
    turns = quiet_session(session, filt)
    if turns is not None:
        return None, turns
    return derive_stream(session, policy=policy, size=size), 0
