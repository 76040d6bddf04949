r"""Probe plans: per turn of a session, which groups can take part in a firing, and which rules can fire.

The model is ``workbench.backtest.probe``'s. What a turn's buffers can hold (a superset is enough), per
assistant message as ``derive_stream`` cuts it: ``text`` / ``thinking``, the concatenation of its text / thinking blocks (chunks join back
to the block text exactly); a tool call's buffers, its arguments as ``json.dumps`` (the deltas), as
compact JSON (the final check of a tool without a digest), or a digest: lines of argument string
values, every one inside some string of the arguments (``prefilter``). Literals holding ``\n`` or NUL
disable the skip (``turn_filter``). A session whose messages do not fit the model (a tool call
without an id, two calls with one id) or that ``derive_stream`` would reject is played whole, as
before, so its outcome or its error does not change. ``tests/backtest/test_probe.py`` compares each
decision with what it stands for (a full replay per turn, the derived stream, the engine's scope and
literal search).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.backtest.prefilter import PATTERN_WORD, ast_literal, collect_strings, literal_patterns, turn_filter
from workbench.replay import LastRuleSet, probe_kit, thaw
from workbench.rules import Rule
from workbench.ttsr import LiteralKey as Key
from workbench.ttsr import compile_rule_condition, engine_text, literal_index, required_literal_sets

__all__ = ["plan_session", "warm"]


# --- literals per rule --------------------------------------------------------------------------


class _Presence:
    """Whether a text holds one of ``keys``: substring tests for ASCII text, else the index's search.

    On ASCII text the index's case-insensitive literals (ASCII, ``workbench.ttsr.literals``) can
    only meet ASCII case pairs, so ``str.lower`` on both sides is the same test; ``in`` is much
    cheaper than a regex alternation over a short text.
    """

    __slots__ = ("index", "plain", "icase", "needles", "plain_keys", "icase_index", "strings", "compact")

    def __init__(self, keys: frozenset[Key]) -> None:
        self.index = literal_index(keys)
        # Whether a key can occur in a call's argument strings or its compact JSON and not in its
        # ``json.dumps`` (``_literals``): one holding what JSON escapes, or a ``,`` / ``:``.
        self.strings = any(c in '"\\' or c < " " for k in keys for c in k[0])
        self.compact = any("," in k[0] or ":" in k[0] for k in keys)
        self.plain = tuple(sorted(k[0] for k in keys if not k[1]))
        self.icase = tuple(sorted({k[0].lower() for k in keys if k[1]}))
        # Per key, what ``str.find`` looks for on ASCII text (the text lowered for a case-insensitive key).
        self.needles = tuple(sorted((k, k[0].lower() if k[1] else k[0]) for k in keys))
        # On other text: ``str.find`` for the case-sensitive keys (a literal occurs where its units
        # do), the index's scan for the case-insensitive ones (its case folding), if any occurs.
        self.plain_keys = tuple(sorted(k for k in keys if not k[1]))
        icase = frozenset(k for k in keys if k[1])
        self.icase_index = literal_index(icase) if icase else None

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

    def first_end_units(self, units: str, found: set[Key]) -> int | None:
        """``first_end`` on any text in engine units (``engine_text``)."""
        best: int | None = None
        for key in self.plain_keys:
            at = units.find(key[0])
            if at >= 0:
                found.add(key)
                end = at + len(key[0])
                if best is None or end < best:
                    best = end
        if self.icase_index is not None and self.icase_index.found_in(units):
            occurrences = self.icase_index.scan(units, 0)
            found.update(key for key, _ in occurrences)
            end = min(at + len(key[0]) for key, at in occurrences)
            if best is None or end < best:
                best = end
        return best

    def first_end(self, text: str, found: set[Key]) -> int | None:
        """On ASCII ``text``: ``None`` when it holds none of the keys; else, with ``found`` updated by
        every key it holds, where the first occurrence of any of them ends. The same answers as the
        index's scan of every occurrence: the earliest end is that of some key's first occurrence."""
        low: str | None = None
        best: int | None = None
        for key, needle in self.needles:
            if key[1]:
                if low is None:
                    low = text.lower()
                at = low.find(needle)
            else:
                at = text.find(needle)
            if at >= 0:
                found.add(key)
                end = at + len(key[0])
                if best is None or end < best:
                    best = end
        return best


_GLOB_SPECIAL = frozenset("*?[]{}\\")


def _glob_endings(glob: str) -> tuple[str, ...] | None:
    """Literal endings one of which every path ``glob`` matches ends with (``None``: none known).

    The characters after the glob's last special one end every match (whole path or basename); a
    final ``{a,b}`` of plain alternatives gives one ending per alternative. A negated glob matches
    paths of any ending."""
    if not glob or glob.startswith("!"):
        return None
    i = len(glob)
    while i > 0 and glob[i - 1] not in _GLOB_SPECIAL:
        i -= 1
    tail = glob[i:]
    if i > 0 and glob[i - 1] == "}" and "\\" not in glob:  # (an escape could make a brace literal)
        opening = glob.rfind("{", 0, i - 1)
        body = glob[opening + 1:i - 1]
        if opening >= 0 and not any(c in _GLOB_SPECIAL for c in body):
            start = opening
            while start > 0 and glob[start - 1] not in _GLOB_SPECIAL:
                start -= 1
            endings = tuple(glob[start:opening] + alt + tail for alt in body.split(","))
            return endings if all(endings) else None
    return (tail,) if tail else None


@dataclass(frozen=True, slots=True)
class _ToolGate:
    """A necessary condition for one rule to match in a tool call, decided before any replay.

    The manager checks a rule in a tool context only when its scope admits the call's tool name and
    paths and its global globs one of the paths (``RuleScope.allows``, ``passes_globs``). Every path
    a call is checked with is built from a piece of one of its argument strings (the argument scan,
    the edit modes' inspections, at any prefix of the streamed arguments) or from the session's cwd
    (``path_candidates``), backslashes turned into ``/``; so a path a glob matches ends with one of the
    glob's literal endings, and that ending occurs in the call's strings or in the cwd. ``scopes``:
    per scope entry, the tool name (``None``: any) and the endings (``None``: any path); ``None``: any
    call. ``globs``: endings of the global globs, one of which must occur (``None``: no gate).
    ``words``: for a rule whose only conditions are AST patterns, per pattern the identifiers that
    are not metavariables; an AST match needs all the words of one pattern in the code, which is
    made of pieces of the argument strings (``None``: no such gate)."""

    scopes: tuple[tuple[str | None, tuple[str, ...] | None], ...] | None
    globs: tuple[str, ...] | None
    words: tuple[tuple[str, ...], ...] | None

    @property
    def open(self) -> bool:
        """True when the gate admits every call."""
        return self.scopes is None and self.globs is None and self.words is None

    def admits_held(self, name: str, held: frozenset[str]) -> bool:
        """Whether a call to tool ``name`` (``tool_name_key``) may be matched by the rule, when of the
        endings and words the gates look for its strings (and cwd, joined with NUL and with ``/`` for
        ``\\``) hold exactly ``held``."""
        if self.scopes is not None:
            for tool, endings in self.scopes:
                if tool is not None and tool != name:
                    continue
                if endings is None or not held.isdisjoint(endings):
                    break
            else:
                return False
        if self.globs is not None and held.isdisjoint(self.globs):
            return False
        if self.words is not None and not any(held.issuperset(ws) for ws in self.words):
            return False
        return True


def _tool_gate(rule: Rule, regex: bool) -> _ToolGate:
    pairs, globs = probe_kit.rule_tool_gate(rule)
    scopes: list[tuple[str | None, tuple[str, ...] | None]] | None = None
    if pairs is not None:
        scopes = [(tool, None if glob is None else _glob_endings(glob)) for tool, glob in pairs]
    glob_endings: list[str] | None = None
    if globs:
        found = [_glob_endings(g) for g in globs]
        glob_endings = None if any(e is None for e in found) else [e for ends in found if ends for e in ends]
    words = None
    if not regex:  # with a regex condition the rule may fire without its AST patterns
        words = tuple(tuple(w for w in PATTERN_WORD.findall(p) if not w.startswith("$"))
                      for p in literal_patterns(rule.ast_condition) if p.strip()) or None
    return _ToolGate(None if scopes is None else tuple(scopes),
                     None if glob_endings is None else tuple(glob_endings), words)


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
    gates: tuple[_ToolGate, ...] = ()  # per rule that can match in tool calls (``tool_rules``)
    tool_rules: tuple[int, ...] = ()  # positions of the rules with tool literals
    open_gates: bool = True  # every gate admits every call: ``tool`` is each call's presence
    # positions of the rules that can match in tool calls only through AST patterns: the agent checks
    # those once, on the finished call (toolcall_end), so no delta's buffer decides them
    ast_only: frozenset[int] = frozenset()
    by_rules: dict[frozenset[int], _Presence | None] = field(default_factory=dict, hash=False, compare=False)
    # The distinct gates with the rules (positions) holding each: the bundled rules share a few
    # scopes, so a call is asked about each gate once rather than once per rule.
    gate_groups: tuple[tuple[_ToolGate, frozenset[int]], ...] = ()
    # The admitted rules per (tool name, which of the endings and words the gates that may admit it
    # look for the call's strings hold): a gate's answer depends on nothing else.
    by_needles: dict[tuple[str, frozenset[str]], frozenset[int]] = field(default_factory=dict, hash=False, compare=False)
    # Per tool name, the endings and words of the gates that may admit it (``None``: no gate can,
    # whatever the call's strings: every scope names another tool).
    by_name: dict[str, tuple[str, ...] | None] = field(default_factory=dict, hash=False, compare=False)
    # Per rule (position): the other requirements of its one regex condition, each a presence of
    # which a call's ``json.dumps`` must hold a key for the rule to match in the call (``_also``).
    also: tuple[tuple[_Presence, ...], ...] = ()

    def tool_presence(self, admitted: frozenset[int]) -> _Presence | None:
        """The presence of the tool literals of the rules at ``admitted`` (cached per set)."""
        hit = self.by_rules.get(admitted, self)
        if hit is self:
            keys = frozenset().union(*(self.per_rule[i][2] for i in admitted))
            hit = self.by_rules[admitted] = _Presence(keys) if keys else None
        return hit  # type: ignore[return-value]  # never ``self`` here


def _literals(rules: Sequence[Rule]) -> _RuleLiterals:
    per_rule: list[tuple[frozenset[Key], frozenset[Key], frozenset[Key]]] = []
    gates: list[_ToolGate] = []
    tool_rules: list[int] = []
    ast_only: set[int] = set()
    also: list[tuple[_Presence, ...]] = []
    for position, rule in enumerate(rules):
        regex: set[Key] = set()
        conds = []
        for pattern in literal_patterns(rule.condition):
            try:
                cond = compile_rule_condition(pattern)
            except Exception:  # noqa: BLE001 - the manager skips an invalid condition: it never matches
                continue
            regex |= cond.literals or set()  # never None: ``turn_filter`` would have said so
            conds.append(cond)
        ast = {k for k in map(ast_literal, (p for p in literal_patterns(rule.ast_condition) if p.strip())) if k is not None}
        has_ast = any(p.strip() for p in literal_patterns(rule.ast_condition))
        also.append(_also(conds[0]) if len(conds) == 1 and not has_ast else ())
        in_text, in_thinking, in_tool = probe_kit.rule_sources(rule)
        none: frozenset[Key] = frozenset()
        per_rule.append((frozenset(regex) if in_text else none, frozenset(regex) if in_thinking else none,
                         frozenset(regex | ast) if in_tool else none))
        if in_tool and (regex or ast):
            tool_rules.append(position)
            gates.append(_tool_gate(rule, bool(regex)))
            if not regex:  # no valid regex condition (an invalid one never matches)
                ast_only.add(position)
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
    groups: dict[_ToolGate, set[int]] = {}
    for position, gate in zip(tool_rules, gates):
        groups.setdefault(gate, set()).add(position)
    return _RuleLiterals(text_in, thinking_in, tool_in, tuple(per_rule), strings, compact, tuple(gates),
                         tuple(tool_rules), all(g.open for g in gates), frozenset(ast_only),
                         gate_groups=tuple((g, frozenset(p)) for g, p in groups.items()),
                         also=tuple(also))


def _also(cond: Any) -> tuple[_Presence, ...]:
    """The requirements of a rule's one regex condition besides ``cond.literals`` (one of whose keys
    the call must hold anyway): a buffer the condition matches holds a key of each
    (``required_literal_sets``), so a call whose ``json.dumps`` holds none of one set's keys cannot
    fire the rule, which then has no other way to (no other condition, no AST pattern). Only sets
    whose keys are free of what JSON escapes, ``,`` and ``:``: such a key in a digest (lines of
    argument strings), the raw deltas (the dumps) or the compact JSON occurs in the dumps too
    (``_literals`` says why)."""
    if cond.literals is None:
        return ()
    found = required_literal_sets(cond.source, cond.flags)
    if found is None or found[0] != cond.literals:
        return ()  # (never expected: the same analysis gives ``literals``)
    out = []
    for keys in found[1:]:
        if keys and all(k[0] and not any(c in '"\\,:' or c < " " for c in k[0]) for k in keys):
            out.append(_Presence(keys))
    return tuple(out)


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


_Call = tuple[int, Any, Any]  # content index, tool name, arguments


def _haystacks(message: Mapping[str, Any], lits: _RuleLiterals) -> tuple[str, str, list[_Call]]:
    """Text and thinking, what one assistant message's derived turn can hold in those buffers, and
    its tool calls (content index, name, arguments; their haystacks are ``_call_haystack``)."""
    if not probe_kit.timestamp_ok(message.get("timestamp")):
        raise _Unfit
    text: list[str] = []
    thinking: list[str] = []
    calls: list[_Call] = []
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
            calls.append((index, block.get("name"), args))
    return (text[0] if len(text) == 1 else "".join(text)), (thinking[0] if len(thinking) == 1 else "".join(thinking)), calls


def _call_haystack(args: Any, lits: _RuleLiterals, presence: _Presence, strings: list[str] | None) -> tuple[str, str]:
    """A tool call's ``json.dumps`` (its deltas, joined) and the rest of what its buffers can hold
    (engine units; pieces joined with NUL, which no literal holds). The rest is made only of what can
    hold one of ``presence``'s keys where the dumps does not (``_literals`` says why): the compact
    JSON for a key with ``,`` or ``:``, the argument strings for one with what JSON escapes; any
    other key that occurs there occurs in the dumps too, where ``_start`` finds it. ``strings``: the
    argument strings when ``_admitted`` has collected them already."""
    rest: list[str] = []
    if lits.compact and presence.compact:
        rest.append(probe_kit.compact_json(args))
    if lits.strings and presence.strings:
        if strings is None:
            collect_strings(thaw(args), rest)
        else:
            rest.extend(strings)
    return probe_kit.args_json(args), "\0".join(rest)


def _start(index: _Presence, text: str, found: set[Key], reliable: bool = True) -> int | None:
    """``None`` when ``text`` (engine units) holds none of the literals; else, with ``found``
    updated, where the first occurrence ends (0 when positions in ``text`` are not those of the
    deltas: astral characters, or a part that is not the joined deltas)."""
    if text.isascii():
        end = index.first_end(text, found)
        return None if end is None else end if reliable else 0
    end = index.first_end_units(text, found)
    return None if end is None else end if reliable else 0


@dataclass(frozen=True, slots=True)
class _Turns:
    """Per assistant message of the active branch, what to feed (``None``: nothing); and the
    positions of the rules one of whose literals some turn holds where they can match."""

    plans: tuple[probe_kit.FeedPlan | None, ...]
    rules: frozenset[int]
    branch: tuple[Any, ...]  # the active branch's entries
    # Per turn, per fed tool call (content index): the rules (positions) that can fire in it, those
    # whose gate admits the call and one of whose literals it holds (``None``: the turn feeds no call).
    calls: tuple[dict[int, frozenset[int]] | None, ...] = ()
    # The ``args_json`` of the calls the plan serialised, by ``id`` of their arguments (with the
    # arguments themselves, so an id is trusted only for that object): ``derive_turns`` takes them
    # rather than serialising the same arguments again.
    texts: dict[int, tuple[Any, str]] = field(default_factory=dict)


def _turns(session: Any, lits: _RuleLiterals) -> _Turns:
    """Mirrors ``derive_stream`` (each assistant message is a turn); raises ``_Unfit``."""
    plans: list[probe_kit.FeedPlan | None] = []
    call_rules: list[dict[int, frozenset[int]] | None] = []
    found: tuple[set[Key], set[Key]] = (set(), set())  # literals held in text, thinking
    in_tools: set[int] = set()  # rules one of whose literals a call they may see holds
    texts: dict[int, tuple[Any, str]] = {}
    branch = tuple(probe_kit.entry_branch(session, None))
    cwd = session.cwd if isinstance(getattr(session, "cwd", None), str) else ""
    cwd = cwd.replace("\\", "/")
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
        can_fire: dict[int, frozenset[int]] = {}
        if calls and lits.tool is not None:
            for at, name, args in calls:
                admitted, strings = _admitted(lits, name, args, cwd)
                presence = lits.tool if admitted is None else lits.tool_presence(admitted)
                if presence is None:
                    continue
                raw, rest = _call_haystack(args, lits, presence, strings)
                texts[id(args)] = (args, raw)
                held: set[Key] = set()
                units = raw if raw.isascii() else engine_text(raw)
                # A literal free of what JSON escapes occurs in the raw deltas where it occurs in a
                # value; one found only in the rest (escaped, or the compact JSON) is fed from the start.
                start = _start(presence, units, held, len(units) == len(raw) and not lits.strings)
                if rest and _start(presence, engine_text(rest), held) is not None:
                    start = 0
                if start is not None:
                    firing = {i for i in (lits.tool_rules if admitted is None else admitted)
                              if not held.isdisjoint(lits.per_rule[i][2])
                              and all(p.found_in(units) for p in lits.also[i])}
                    if not firing:  # (a key found, but some rule's other requirements not)
                        continue
                    # Only AST patterns can fire here: they are checked at toolcall_end on the finished
                    # call, so the deltas are joined into the last one (one partial parse, not one each).
                    fed[at] = len(raw) if firing <= lits.ast_only else start
                    can_fire[at] = frozenset(firing)
                    in_tools.update(firing)
        plans.append(probe_kit.FeedPlan(text_at, thinking_at, fed) if fed or text_at is not None or thinking_at is not None
                     else None)
        call_rules.append(can_fire if fed else None)
    rules = frozenset(i for i, keys in enumerate(lits.per_rule) if any(not f.isdisjoint(k) for f, k in zip(found, keys)))
    return _Turns(tuple(plans), rules | in_tools, branch, tuple(call_rules), texts)


def _admitted(lits: _RuleLiterals, name: Any, args: Any, cwd: str) -> tuple[frozenset[int] | None, list[str] | None]:
    """The rules (positions) whose ``_ToolGate`` admits a call, ``None`` when every gate is open; and
    the call's argument strings (``collect_strings``) when they were searched (else ``None``)."""
    if lits.open_gates:
        return None, None
    key = probe_kit.tool_name_key(name)
    needles: Any = lits.by_name.get(key, lits)
    if needles is lits:
        # Only the gates that may admit this tool look at its strings: a gate all of whose scopes
        # name another tool answers no whatever they hold. So only their endings and words are
        # searched for (the same answers from every gate; fewer searches for ``bash`` or ``read``).
        may = [gate for gate, _ in lits.gate_groups
               if gate.scopes is None or any(tool is None or tool == key for tool, _ in gate.scopes)]
        needles = lits.by_name[key] = None if not may else tuple(sorted(
            {e for g in may for _tool, ends in (g.scopes or ()) for e in (ends or ())}
            | {e for g in may for e in (g.globs or ())} | {w for g in may for ws in (g.words or ()) for w in ws}))
    if needles is None:
        return frozenset(), None  # (as every gate answers without looking at the strings)
    strings: list[str] | None = None
    if needles:
        strings = []
        collect_strings(args, strings)
        joined = "\0".join([*strings, cwd]).replace("\\", "/")
        held = frozenset(n for n in needles if n in joined)
    else:
        held = frozenset()
    hit = lits.by_needles.get((key, held))
    if hit is None:
        hit = frozenset()
        for gate, positions in lits.gate_groups:
            if gate.admits_held(key, held):
                hit = hit | positions
        lits.by_needles[(key, held)] = hit
    return hit, strings


CallRules = tuple[dict[int, frozenset[str]] | None, ...]


def plan_session(session: Any, rules: Sequence[Rule]) -> tuple[tuple[probe_kit.FeedPlan | None, ...], tuple[Rule, ...],
                                                              tuple[Any, ...], CallRules, Mapping[int, tuple[Any, str]]] | None:
    """Per assistant message of the active branch what to feed (``None``: nothing), the rules that
    can fire somewhere (in order), the branch's entries, per message the names of the rules that
    can fire in each fed tool call (by content index; ``None``: no call fed), and the argument texts
    the plan made (``_Turns.texts``, for ``derive_turns``); ``None`` when the model does not decide."""
    lits = _rule_literals(rules)
    if lits is None:
        return None
    try:
        turns = _turns(session, lits)
    except _Unfit:
        return None
    names = {rules[i].name for i in turns.rules}
    by_call = tuple(None if calls is None else {at: frozenset(rules[i].name for i in firing) for at, firing in calls.items()}
                    for calls in turns.calls)
    return turns.plans, tuple(r for r in rules if r.name in names), turns.branch, by_call, turns.texts


# The literals of the last rule set, found once per rule set rather than once per session.
_rule_literals: LastRuleSet[_RuleLiterals | None] = LastRuleSet(
    lambda rules: _literals(rules) if turn_filter(rules) is not None else None)


def warm(rules: Sequence[Rule]) -> None:
    """Make what ``plan_session`` needs of ``rules`` alone (their literals, scopes and gates), kept for
    the next sessions under the same rules. Only the rules are compiled and analysed: no session
    text is matched, so this cannot hang on one."""
    _rule_literals(rules)
