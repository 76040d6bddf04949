r"""Probe plans: per turn of a session, which groups can take part in a firing, and which rules can fire.

The model is ``workbench.replay.probe``'s. What a turn's buffers can hold (a superset is enough), per
assistant message as ``derive_stream`` cuts it: ``text`` / ``thinking``, the concatenation of its text / thinking blocks (chunks join back
to the block text exactly); a tool call's buffers, its arguments as ``json.dumps`` (the deltas), as
compact JSON (the final check of a tool without a digest), or a digest: lines of argument string
values, every one inside some string of the arguments (``prefilter``). Literals holding ``\n`` or NUL
disable the skip (``turn_filter``). A session whose messages do not fit the model (a tool call
without an id, two calls with one id) or that ``derive_stream`` would reject is played whole, as
before, so its outcome or its error does not change. ``tests/replay/test_probe.py`` compares each
decision with what it stands for (a full replay per turn, the derived stream, the engine's scope and
literal search).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.replay.derive import FeedPlan, entry_branch, timestamp_ok
from workbench.replay.engine import Key, compile_rule_condition, engine_text, literal_index, rule_sources
from workbench.replay.memo import LastRuleSet
from workbench.replay.prefilter import ast_literal, collect_strings, literal_patterns, turn_filter
from workbench.replay.stream import args_json, compact_json, thaw
from workbench.rules import Rule

__all__ = ["plan_session"]


# --- literals per rule --------------------------------------------------------------------------


class _Presence:
    """Whether a text holds one of ``keys``: substring tests for ASCII text, else the index's search.

    On ASCII text the index's case-insensitive literals (ASCII, ``workbench.ttsr.literals``) can
    only meet ASCII case pairs, so ``str.lower`` on both sides is the same test; ``in`` is much
    cheaper than a regex alternation over a short text.
    """

    __slots__ = ("index", "plain", "icase")

    def __init__(self, keys: frozenset[Key]) -> None:
        self.index = literal_index(keys)
        self.plain = tuple(sorted(k[0] for k in keys if not k[1]))
        self.icase = tuple(sorted({k[0].lower() for k in keys if k[1]}))

    def found_in(self, text: str) -> bool:
        if not text.isascii():
            return self.index.found_in(text)
        for lit in self.plain:
            if lit in text:
                return True
        if self.icase:
            low = text.lower()
            for lit in self.icase:
                if lit in low:
                    return True
        return False


@dataclass(frozen=True, slots=True)
class _RuleLiterals:
    """The literals each part of a turn is searched for: ``text`` / ``thinking``, the regex
    literals of the rules that can match there (scope, and no globs); ``tool``, the regex and AST
    literals of the rules that can match in tool calls. Per rule: its literals in each part (empty
    where it cannot match). ``strings`` / ``compact``: whether the tool haystack needs the argument
    strings and the compact JSON besides ``json.dumps`` (below)."""

    text: _Presence | None
    thinking: _Presence | None
    tool: _Presence | None
    per_rule: tuple[tuple[frozenset[Key], frozenset[Key], frozenset[Key]], ...]
    strings: bool
    compact: bool


def _literals(rules: Sequence[Rule]) -> _RuleLiterals:
    per_rule: list[tuple[frozenset[Key], frozenset[Key], frozenset[Key]]] = []
    for rule in rules:
        regex: set[Key] = set()
        for pattern in literal_patterns(rule.condition):
            try:
                cond = compile_rule_condition(pattern)
            except Exception:  # noqa: BLE001 - the manager skips an invalid condition: it never matches
                continue
            regex |= cond.literals or set()  # never None: ``turn_filter`` would have said so
        ast = {k for k in map(ast_literal, (p for p in literal_patterns(rule.ast_condition) if p.strip())) if k is not None}
        in_text, in_thinking, in_tool = rule_sources(rule)
        none: frozenset[Key] = frozenset()
        per_rule.append((frozenset(regex) if in_text else none, frozenset(regex) if in_thinking else none,
                         frozenset(regex | ast) if in_tool else none))
    parts = [frozenset().union(*(r[i] for r in per_rule)) for i in range(3)]
    texts = [k[0] for part in parts for k in part]
    # ``json.dumps`` (``ensure_ascii=False``) writes a string's characters as they are except ``"``,
    # ``\\`` and control characters: a literal free of them that occurs in a string value (or in a
    # digest, made of lines of them) occurs in the dumps too. And the compact JSON differs from the
    # dumps only by the space after a separator: a literal without ``,`` or ``:`` occurring in it
    # lies between two separators, a stretch the dumps holds as it is.
    strings = any(c in '"\\' or c < " " for t in texts for c in t)
    compact = any("," in t or ":" in t for t in texts)
    text_in, thinking_in, tool_in = (_Presence(p) if p else None for p in parts)
    return _RuleLiterals(text_in, thinking_in, tool_in, tuple(per_rule), strings, compact)


# --- turns of a session ---------------------------------------------------------------------------


def _blocks_ok(content: Any) -> bool:
    """``parse_event``'s check of a content list (``derive_stream`` would raise otherwise)."""
    if not isinstance(content, (list, tuple)):
        return True
    for b in content:
        if not (type(b) is dict or isinstance(b, Mapping)) or not isinstance(b.get("type"), str):
            return False
    return True


class _Unfit(Exception):
    """The session does not fit the model, or ``derive_stream`` would reject it: play it whole."""


def _haystacks(message: Mapping[str, Any], lits: _RuleLiterals) -> tuple[str, str, list[tuple[int, str, str]]]:
    """Text, thinking and, per tool call (content index, its ``json.dumps``, the rest of its
    haystack), what one assistant message's derived turn can hold in its buffers (engine units;
    pieces joined with NUL, which no literal holds)."""
    if not timestamp_ok(message.get("timestamp")):
        raise _Unfit
    text: list[str] = []
    thinking: list[str] = []
    calls: list[tuple[int, str, str]] = []
    ids: set[str] = set()
    for index, block in enumerate(message.get("content") or ()):
        if not (type(block) is dict or isinstance(block, Mapping)):  # (a dict is the usual case: no ABC check)
            continue
        kind = block.get("type")
        if kind == "text":
            value = block.get("text")
            if isinstance(value, str):
                text.append(value)
        elif kind == "thinking":
            value = block.get("thinking")
            if isinstance(value, str):
                thinking.append(value)
        elif kind == "toolCall":
            call_id = block.get("id")
            if not isinstance(call_id, str) or not call_id or call_id in ids:
                raise _Unfit  # the stream-level model would not skip it either
            ids.add(call_id)
            args = block.get("arguments")
            if not (type(args) is dict or isinstance(args, Mapping)):
                args = {}
            rest: list[str] = []
            if lits.compact:
                rest.append(compact_json(args))
            if lits.strings:
                collect_strings(thaw(args), rest)
            calls.append((index, args_json(args), "\0".join(rest)))  # the dumps: the deltas, joined
    return (text[0] if len(text) == 1 else "".join(text)), (thinking[0] if len(thinking) == 1 else "".join(thinking)), calls


def _start(index: _Presence, text: str, found: set[Key], reliable: bool = True) -> int | None:
    """``None`` when ``text`` (engine units) holds none of the literals; else, with ``found``
    updated, where the first occurrence ends (0 when positions in ``text`` are not those of the
    deltas: astral characters, or a part that is not the joined deltas)."""
    if not index.found_in(text):
        return None
    occurrences = index.index.scan(text, 0)
    found.update(key for key, _ in occurrences)
    return min(at + len(key[0]) for key, at in occurrences) if reliable else 0


@dataclass(frozen=True, slots=True)
class _Turns:
    """Per assistant message of the active branch, what to feed (``None``: nothing); and the
    positions of the rules one of whose literals some turn holds where they can match."""

    plans: tuple[FeedPlan | None, ...]
    rules: frozenset[int]
    branch: tuple[Any, ...]  # the active branch's entries


def _turns(session: Any, lits: _RuleLiterals) -> _Turns:
    """Mirrors ``derive_stream`` (each assistant message is a turn); raises ``_Unfit``."""
    plans: list[FeedPlan | None] = []
    found: tuple[set[Key], set[Key], set[Key]] = (set(), set(), set())  # literals held, per part
    branch = tuple(entry_branch(session, None))
    for entry in branch:
        if entry.type != "message":  # (so never an injection, which is a custom message)
            continue
        message = entry.message
        if message is None:
            continue
        role = message.get("role")
        if role in ("toolResult", "user", "developer"):
            if not _blocks_ok(message.get("content")):
                raise _Unfit
            continue
        if role != "assistant":
            continue
        text, thinking, calls = _haystacks(message, lits)
        text_at = thinking_at = None
        if text and lits.text is not None:
            units = text if text.isascii() else engine_text(text)
            text_at = _start(lits.text, units, found[0], len(units) == len(text))
        if thinking and lits.thinking is not None:
            units = thinking if thinking.isascii() else engine_text(thinking)
            thinking_at = _start(lits.thinking, units, found[1], len(units) == len(thinking))
        fed: dict[int, int | None] = {}
        if calls and lits.tool is not None:
            for at, raw, rest in calls:
                units = raw if raw.isascii() else engine_text(raw)
                # A literal free of what JSON escapes occurs in the raw deltas where it occurs in a
                # value; one found only in the rest (escaped, or the compact JSON) is fed from the start.
                start = _start(lits.tool, units, found[2], len(units) == len(raw) and not lits.strings)
                if rest and _start(lits.tool, engine_text(rest), found[2]) is not None:
                    start = 0
                if start is not None:
                    fed[at] = start
        plans.append(FeedPlan(text_at, thinking_at, fed) if fed or text_at is not None or thinking_at is not None
                     else None)
    rules = frozenset(i for i, keys in enumerate(lits.per_rule) if any(not f.isdisjoint(k) for f, k in zip(found, keys))
                      ) if any(found) else frozenset()
    return _Turns(tuple(plans), rules, branch)


def plan_session(session: Any, rules: Sequence[Rule]) -> tuple[tuple[FeedPlan | None, ...], tuple[Rule, ...], tuple[Any, ...]] | None:
    """Per assistant message of the active branch what to feed (``None``: nothing), the rules that
    can fire somewhere (in order), and the branch's entries; ``None`` when the model does not decide."""
    lits = _rule_literals(rules)
    if lits is None:
        return None
    try:
        turns = _turns(session, lits)
    except _Unfit:
        return None
    names = {rules[i].name for i in turns.rules}
    return turns.plans, tuple(r for r in rules if r.name in names), turns.branch


# The literals of the last rule set, found once per rule set rather than once per session.
_rule_literals: LastRuleSet[_RuleLiterals | None] = LastRuleSet(
    lambda rules: _literals(rules) if turn_filter(rules) is not None else None)
