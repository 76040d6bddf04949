r"""Backtest prefilter: turns that cannot fire in probe mode are played without the engine.

In probe mode (``interruptMode: never``, ``repeatMode: after-gap``, gap 0) nothing aborts and no
injection silences a rule, so what fires in a turn depends only on that turn's deltas: every buffer
starts empty at ``turn_start`` (the manager's ``reset_buffer``) and an injection record never gates.
A regex condition matches only text holding one of its required literals
(``workbench.ttsr.literals``); an AST pattern only code holding its longest plain identifier. So a
turn none of whose buffers can hold such a literal cannot fire. Per turn, the text, thinking and
tool-argument deltas each feed their own buffers, so each group whose text holds no literal is not
fed at all (structure events still are; what a delta adds to the conversation is not part of a
probe's outcome). This is the model for recorded stream files; session files are decided before
their stream is derived (``workbench.backtest.probe``). ``tests/backtest/test_prefilter.py`` compares
whole backtests with and without the skip on generated corpora.

What a turn's buffers can hold (a superset is enough):

* ``text`` / ``thinking``: the concatenation of the turn's text / thinking deltas;
* a tool call's buffer: its raw argument deltas, its final arguments as compact JSON (the final
  check at ``toolcall_end`` of a tool without a digest), or a digest of its arguments parsed so far. Digests
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
from typing import Any

from workbench.replay import Stream, probe_kit, thaw
from workbench.rules import Rule
from workbench.ttsr import LiteralKey as Key
from workbench.ttsr import compile_rule_condition, engine_text, literal_index

__all__ = ["TurnFilter", "muted_events", "play", "turn_filter"]

PATTERN_WORD = re.compile(r"\$\$?\$?[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class TurnFilter:
    """Required literals of a rule set: regex ones (any buffer) and AST ones (tool arguments)."""

    regex_keys: frozenset[Key]
    ast_keys: frozenset[Key]


def ast_literal(pattern: str) -> Key | None:
    words = [w for w in PATTERN_WORD.findall(pattern) if not w.startswith("$")]
    return (max(words, key=len), False) if words else None


def turn_filter(rules: Iterable[Rule]) -> TurnFilter | None:
    """The rule set's literals, or None when some rule could match without any (no skipping)."""
    return _turn_filter(tuple((tuple(literal_patterns(r.condition)), tuple(literal_patterns(r.ast_condition))) for r in rules))


def literal_patterns(value: Any) -> list[str]:
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
            key = ast_literal(pattern)
            if key is None:
                return None
            ast.add(key)
    if any("\n" in k[0] or "\0" in k[0] for k in regex | ast):
        return None
    return TurnFilter(frozenset(regex), frozenset(ast))


def collect_strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            collect_strings(v, out)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            out.append(str(k))
            collect_strings(v, out)


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
            # The final check reads the arguments given here, else the raw text parsed leniently,
            # as compact JSON when the tool has no digest (``SimulatedSession._final_tool_check``).
            ci = ev.content_index or 0
            args = thaw(ev.arguments) if ev.arguments else probe_kit.parse_partial("".join(raw[blocks[ci]]) if ci in blocks else "")
            tool_strings.append(probe_kit.compact_json(args))
            collect_strings(args, tool_strings)
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
            collect_strings(parsed, tool_strings)
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


DELTA_TYPES = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})


def play(sim: Any, stream: Stream, mute: Sequence[bool] | None, observe: Callable[[int, Any], None] | None = None,
         tick: Callable[[], None] | None = None) -> None:
    """Feed the events of ``stream`` to ``sim``, except those ``mute`` leaves out (``observe`` and
    ``tick`` still hear every one).

    A muted delta could not have made a condition match (no literal in its buffer's whole text),
    and what else it changes (the message being built, hence the conversation) is not part of a
    probe's outcome: nothing aborts and the session's status only changes on an interrupt. A muted
    structure event (``workbench.backtest.probe``) belongs to a turn or group none of whose deltas is fed.
    """
    for i, ev in enumerate(stream.events):
        if observe is not None:
            observe(i, ev)
        if mute is None or not mute[i]:
            sim.feed(i, ev)
        if tick is not None:
            tick()


# Private switch for tests and the benchmark: the same backtest without any skip (also read by
# ``workbench.backtest.probe``).
_SKIP = True
