r"""Tool calls fed as one delta up to the first delta at which a rule may match (probe mode).

A replay checks a tool call at every argument delta: the manager is asked about each buffer the
call's surface names (``toolcall:<id>`` for the raw deltas or the digest, ``toolcall:<id>#<path>``
per touched file) and runs each rule's regex over the whole buffer. A backtest records, per turn,
the first step at which each rule fires, so the deltas before the first one at which *some* rule can
match are only work: they are joined into that one (as ``probe_kit.FeedPlan`` joins those before a
group's first literal), which then sees the buffers the delta-by-delta feed gives it (the same
arguments, so the same surface; a raw buffer holds the raw text so far either way).

Checking only the call's *final* surface is not enough, for two reasons (issue 25's first idea):
the bundled TypeScript rules are not monotone (``\bnew\s+(Set|Map)\b`` matches ``new Set`` and not
``new Settings``; ``$`` in ``ts-no-tiny-functions``), so a buffer can match and its extension not;
and a call's successive surfaces need not extend each other (the edit mode is read from the
arguments so far, a path grows, a patch's ``+++`` row stops counting). So ``CallShadow`` works out
each delta's buffers as the session grows them, without the manager:

* The arguments are parsed delta by delta (``PartialJsonParser``, as the session does) and each
  delta's surface taken (``tool_surface``, the session's own function). A snapshot that extends a
  key's buffer extends it, any other replaces it (``check_snapshot``); a raw delta is appended, and
  is accepted only while every delta of the call was raw (otherwise the rest is fed as before).
* Each buffer is asked, for the rules the replay holds that can see tool calls (scope and glob
  gates ignored: a superset), with the engine's own incremental ``condition_matches`` on a
  ``StreamBuffer`` grown the same way: exact for every condition. The first delta with a match is
  where the join ends; none: the call's last delta.
* What makes it cheap: a condition is *monotone* when a match in a text is a match in every text
  that extends it: no ``$``, ``\b``, ``\B`` or negative lookaround (``Shape.monotonic``, the pattern
  scanner's classification, which the engine's latch relies on) and, to be safe, no positive
  lookahead either (a capture inside one can read past the end of the text). A buffer that is a
  prefix (in engine units) of a text such a condition does not match cannot match it; nor can a
  prefix of a text that holds none of a condition's required literals. Every raw buffer is a prefix
  of the whole raw text, so only the conditions that may match it are asked about raw buffers; and
  for a call to a tool without digest or entries (not ``edit`` / ``apply_patch`` / ``write``) no
  argument is parsed at all. For ``write``, and for ``edit`` read in the ``replace`` mode, the
  buffers from some delta on are all prefixes of one known text (``_stable_text``); when no
  condition may match it, nothing after that delta is looked at.
* Once settled, the deltas at which no test may match are not parsed one by one: the tests' answers
  on prefixes of one text are monotone, so a binary search over whole re-parses of the arguments
  finds the first delta at which one may (``CallShadow._leap``), asking the manager's scope-and-
  globs gate when the check's context can no longer change. Where the matches of conditions the gate
  rejects (a ``.ts`` rule on a ``.md`` write) had each delta of a long write parsed and checked,
  a few parses now decide it.
* A condition that is a top-level alternation is asked alternative by alternative
  (``split_alternatives``: a text matches ``A|B`` iff it matches ``A`` or ``B``), so each half is
  classified on its own; and a condition that is not monotone is first asked through its monotone
  relaxation (``relaxed_pattern``: ``$``, ``\b``, ``\B`` left out, which can only add matches): a
  text the relaxation does not match has no prefix the condition matches. In the bundled
  ``ts-no-tiny-functions`` the ``{ return ... }`` half is monotone and searched in a window, and the
  relaxation of the ``=> ...$`` half rules out most calls, where the whole pattern was searched
  over the whole buffer at every delta.
* After a firing the question is asked again for the rest of the call, leaving out the rules that
  fired in the turn: the recorder keeps only a rule's first firing per turn, and in probe mode a
  match changes nothing another rule's checks see (``probe._play_visits``).

A check that matches nothing changes nothing a probe reports (the buffers aside, which a later check
of the same key replaces or extends to the same text; the literal and regex memos, exact by
construction; the gate cache). ``tests/backtest/test_call_skip.py`` compares the backtest with and
without the join on sample, real, generated sessions and recorded streams with random rules, many of
them not monotone, and holds the two properties above (monotone patterns; partial arguments).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.edits import AUTO, EDIT_TOOLS
from workbench.replay import LastRuleSet, StreamEvent, probe_kit
from workbench.rules import Rule
from workbench.ttsr import (
    PartialJsonParser,
    StreamBuffer,
    argument_paths,
    compile_rule_condition,
    condition_matches,
    engine_text,
    literal_index,
    parse_partial_json,
    rule_str_list,
)

__all__ = ["CallShadow", "CallTest", "call_tests", "first_possible", "is_monotone", "relaxed_pattern"]


def is_monotone(cond: Any) -> bool:
    """Whether a match of ``cond`` in a text is a match in every extension of the text (see above)."""
    return bool(cond.shape.monotonic) and "(?=" not in cond.pattern


_LEADING_FLAGS = re.compile(r"\(\?[ims]+\)")  # only such a group becomes flags (``conditions.split_flags``)


def split_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of ``pattern``, each with its leading flag group; ``[pattern]``
    when it has one, or holds a backreference (whose group numbers a split would change).

    Exact for "does the text match": at every start the alternation tries each alternative on its
    own, so a text has a match of ``A|B`` iff it has one of ``A`` or of ``B``. Split, each
    alternative gets its own classification: in ``ts-no-tiny-functions`` the ``{ return ... }``
    half is monotone (and searched in a window), the ``=> ...$`` half is not, but its relaxation
    rules most calls out."""
    lead = _LEADING_FLAGS.match(pattern)
    head = lead.end() if lead is not None else 0
    parts: list[str] = []
    start, depth, in_class, i, n = head, 0, False, head, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 < n and (pattern[i + 1].isdigit() and pattern[i + 1] != "0" or pattern[i + 1] == "k"):
                return [pattern]
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern.startswith("^", i + 1):
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    if not parts or depth != 0 or in_class:
        return [pattern]
    parts.append(pattern[start:])
    return [pattern[:head] + part for part in parts]


def relaxed_pattern(pattern: str) -> str | None:
    r"""``pattern`` without its ``$``, ``\b`` and ``\B`` assertions, or ``None`` when it holds anything
    that makes leaving them out unsafe to reason about (a backreference, any lookaround, an inline
    group other than ``(?:`` / ``(?<name>``, an assertion followed by a quantifier, a trailing ``\``).

    Why it is a sound over-approximation: an assertion consumes nothing, so a successful path of the
    pattern through a text (its choices and the positions it consumes) is a successful path of the
    pattern without the assertion; with no backreference and no lookaround nothing else depends on
    it (captures decide nothing, and JavaScript's empty-iteration check compares positions only).
    So whatever text the pattern matches, the relaxed one matches too. ``^`` stays: it reads only
    what comes before it. Annex B syntax (the reference compiles without the ``u`` flag): ``\b`` in
    a class is a backspace and ``$`` there a dollar, kept; ``]`` right after ``[`` or ``[^`` closes
    the class (``[]``, ``[^]``)."""
    lead = _LEADING_FLAGS.match(pattern)
    i = lead.end() if lead is not None else 0
    out = [pattern[:i]]
    n = len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                return None
            e = pattern[i + 1]
            if e.isdigit() and e != "0" or e == "k":
                return None  # a backreference (or a legacy octal escape: not worth telling apart)
            if not in_class and e in "bB":
                if i + 2 < n and pattern[i + 2] in "*+?{":
                    return None
                i += 2
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            continue
        if ch == "(" and pattern.startswith("?", i + 1):
            if pattern.startswith(":", i + 2):
                out.append("(?:")
                i += 3
                continue
            if pattern.startswith("<", i + 2) and not pattern.startswith(("<=", "<!"), i + 2):
                out.append("(?<")
                i += 3
                continue
            return None
        if ch == "$":
            if i + 1 < n and pattern[i + 1] in "*+?{":
                return None
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out) if not in_class else None


@dataclass(frozen=True, slots=True)
class CallTest:
    """One regex condition asked whether a buffer may match it: the regex itself when monotone,
    else its monotone relaxation (``relaxed``, see ``relaxed_pattern``) after its required literals
    (``literals`` and ``relaxed`` ``None`` and not monotone: always possible)."""

    rule: str
    cond: Any
    monotone: bool
    literals: Any
    relaxed: Any = None

    def possible(self, text: str) -> bool:
        return self.possible_units(engine_text(text))

    def possible_units(self, units: str) -> bool:
        """``possible`` of a text given in engine units (``engine_text``): ``False`` only when no
        prefix of the text can match (a monotone pattern that does not match the text matches no
        prefix of it; nor does a pattern whose monotone relaxation does not)."""
        if self.monotone:
            return bool(self.cond.test_engine(units))
        if self.literals is not None and not self.literals.found_in(units):
            return False
        if self.relaxed is not None:
            return bool(self.relaxed.test_engine(units))
        return True


def _possible(tests: Sequence[CallTest], text: str) -> list[int]:
    """The positions of the tests that may match ``text`` or a prefix of it."""
    units = engine_text(text)
    return [n for n, t in enumerate(tests) if t.possible_units(units)]


def _tests(rules: tuple[Rule, ...]) -> tuple[CallTest, ...]:
    out: list[CallTest] = []
    for rule in rules:
        if not probe_kit.rule_sources(rule)[2]:
            continue  # never asked about a tool call
        for whole in rule_str_list(rule.condition):
            try:
                compile_rule_condition(whole)
            except Exception:  # noqa: BLE001 - the manager skips an invalid condition: it never matches
                continue
            alternatives = split_alternatives(whole)
            try:
                conds = [compile_rule_condition(p) for p in alternatives]
            except Exception:  # noqa: BLE001 - an alternative that does not compile alone: keep it whole
                alternatives, conds = [whole], [compile_rule_condition(whole)]
            for pattern, cond in zip(alternatives, conds):
                monotone = is_monotone(cond)
                lits = None if monotone or not cond.literals else literal_index(cond.literals)
                out.append(CallTest(rule.name, cond, monotone, lits, None if monotone else _relaxed(pattern)))
    return tuple(out)


def _relaxed(pattern: str) -> Any:
    """The compiled monotone relaxation of ``pattern`` (``relaxed_pattern``), or ``None``."""
    relaxed = relaxed_pattern(pattern)
    if relaxed is None:
        return None
    try:
        cond = compile_rule_condition(relaxed)
    except Exception:  # noqa: BLE001 - e.g. a quantifier left with nothing to repeat: no relaxation
        return None
    return cond if is_monotone(cond) else None


# Once per rule set (a backtest plays one rule set over every session).
call_tests: LastRuleSet[tuple[CallTest, ...]] = LastRuleSet(_tests)


_EDIT_KEYS = ("edits", "input", "_input")
# Fewer deltas left than this are parsed one by one rather than by whole re-parses (``_leap``).
_LEAP_MIN = 8  # arguments that take an edit call out of the replace reading


def _stable_text(name: str, final: Mapping[str, Any], edit_mode: str | None) -> str | None:
    """For a call whose every later buffer is a prefix of one known text once ``_stable`` holds,
    that text; ``None`` for any other call. Relies on the partial parse of a prefix of the
    arguments' JSON: its members are members of the final arguments, and a string member is a prefix
    of the final one in engine units (``engine_text``: an escaped surrogate pair cut after its first
    half reads as that half), which is where the tests ask (``tests/backtest/test_call_skip.py``
    holds it on random documents and splits).

    * ``write``: the digest is ``content`` (``write_digest``); once it is a string it stays one,
      each a prefix of the final ``content``.
    * ``edit`` read in ``auto`` mode, without ``edits``, ``input`` or ``_input``: once ``path`` is a
      non-empty string the mode is ``replace`` (``choose_mode``: no edits list, and ``old_string`` /
      ``new_string`` or else ``path`` decide it) and its one entry's digest is ``new_string`` (a prefix
      of the final one), or ``""`` when the final arguments have no string ``new_string``."""
    if name == "write":
        content = final.get("content")
        return content if isinstance(content, str) else None
    if name == "edit" and edit_mode in (None, AUTO) and not any(k in final for k in _EDIT_KEYS):
        path, new = final.get("path"), final.get("new_string")
        if isinstance(path, str) and path:
            return new if isinstance(new, str) else ""
    return None


def _stable(name: str, args: Mapping[str, Any], final: Mapping[str, Any], stable: str) -> bool:
    """Whether from these arguments on every buffer of the call is a prefix of ``stable``, on one
    key or, for an edit, on its file's key (``""`` on every key while the path still grows)."""
    if name == "write":
        return isinstance(args.get("content"), str)
    path = args.get("path")
    return isinstance(path, str) and bool(path) and (stable == "" or path == final.get("path"))


def _settled_checks(name: str, key: str, args: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What ``tool_surface`` gives a call once ``_stable`` holds (``_stable_text`` says why): a write's
    ``content`` on the call's key; an edit's one entry, ``new_string`` (or ``""``) on its file's key."""
    if name == "write":
        return ((key, args["content"]),)
    new = args.get("new_string")
    return ((f"{key}#{args['path']}", new if isinstance(new, str) else ""),)


class CallShadow:
    """The buffers one tool call's argument deltas give the manager, worked out without it.

    ``next_possible(fired)`` resumes after the deltas looked at so far and says at which delta a
    rule not in ``fired`` may first match (the last delta when none may, and then ``quiet`` is
    set), or ``None`` when the buffers do not fit the model above (then feed the rest delta by
    delta)."""

    def __init__(self, tests: Sequence[CallTest], call_id: str, name: str, deltas: Sequence[StreamEvent],
                 cwd: str, edit_mode: str | None, gate: Callable[[Any], frozenset[str]] | None = None) -> None:
        self.tests, self.name, self.deltas, self.cwd, self.edit_mode = tests, name, deltas, cwd, edit_mode
        # ``gate(ctx)``: the names of the rules the manager's scope-and-globs gate admits in a match
        # context (``None``: every rule); a test's match counts only for an admitted rule.
        self.gate = gate
        self._admitted: dict[tuple[str, ...] | None, frozenset[str]] = {}
        self.key = f"toolcall:{call_id}"
        self.last = len(deltas) - 1
        self.position = -1  # the last delta looked at
        self.raw_text = "".join(ev.delta or "" for ev in deltas)
        self.raw = name not in EDIT_TOOLS and name != "write"  # no digest, no entries whatever the arguments
        # Every raw buffer is a prefix of the whole raw text: the tests that may match one of them
        # (found when a raw buffer is first checked).
        self._raw_tests: list[int] | None = None
        self.final: Mapping[str, Any] = {}
        self.stable: str | None = None
        self._stable_tests: list[int] | None = None
        if not self.raw:
            value = parse_partial_json(self.raw_text)  # (what a parser fed every delta ends with)
            self.final = value if isinstance(value, Mapping) else {}
            self.stable = _stable_text(name, self.final, edit_mode)
        self.parser = PartialJsonParser()
        self.buffers: dict[str, tuple[str, StreamBuffer]] = {}  # key -> (its text, the buffer as the manager grows it)
        self.raw_only = True  # every delta so far was checked as a raw delta (on ``key``)
        self.settled = False  # every buffer from here on is a prefix of ``stable``
        self.broken = not call_id or not deltas
        # The last ``next_possible`` answered the last delta with no rule (not in ``fired``) able to
        # match at any delta it joins: feeding them checks nothing that can match.
        self.quiet = False
        self._ends: list[int] | None = None  # where each delta ends in ``raw_text``

    def next_possible(self, fired: frozenset[str] = frozenset()) -> int | None:
        self.quiet = False
        if self.broken:
            return None
        tests = self.tests
        live = [n for n in range(len(tests)) if tests[n].rule not in fired]
        raw_tests = stable_tests = None
        leapt = False  # (one leap per call: after it, the next delta's buffer may match)
        while self.position < self.last:
            self.position += 1
            position = self.position
            delta = self.deltas[position].delta or ""
            if self.raw:  # every delta checked raw: the buffer is the raw text so far
                if raw_tests is None:
                    raw_tests = self._live(self._raw(), fired)
                if not raw_tests:
                    self.position = self.last
                    self.quiet = True
                    return self.last
                checks: Sequence[tuple[str, str]] = ((self.key, delta),)
                which = raw_tests
            else:
                value = self.parser.feed(delta)
                args = value if isinstance(value, Mapping) else {}
                if not self.settled and self.stable is not None and _stable(self.name, args, self.final, self.stable):
                    self.settled = True
                if self.settled and stable_tests is None:
                    if self._stable_tests is None:
                        self._stable_tests = _possible(tests, self.stable or "")
                    stable_tests = self._live(self._stable_tests, fired)
                if self.settled and not stable_tests:
                    # (the deltas before matched nothing, and no buffer from here on can)
                    self.position = self.last
                    self.quiet = True
                    return self.last
                if self.settled:  # the surface ``_stable_text`` describes, without asking ``tool_surface``
                    checks = _settled_checks(self.name, self.key, args)
                    which = stable_tests or []
                    hit = self._check(checks, which, args)
                    if hit:
                        return position
                    if not leapt and position < self.last:
                        leapt = True
                        if self._leap(which, args):
                            self.position = self.last
                            self.quiet = True
                            return self.last
                    continue
                surface = probe_kit.tool_surface(self.name, args, self.cwd, self.edit_mode)
                if surface.entries:
                    checks = [(f"{self.key}#{path}", digest) for path, digest in surface.entries]
                    self.raw_only = False
                elif surface.digest is not None:
                    checks = ((self.key, surface.digest),)
                    self.raw_only = False
                elif self.raw_only:
                    checks = ((self.key, self.parser.text),)
                else:
                    self.broken = True  # a raw delta appended to a buffer that held a snapshot
                    return None
                if self.raw_only:
                    if raw_tests is None:
                        raw_tests = self._live(self._raw(), fired)
                    which = raw_tests
                else:
                    which = live
                if self._check(checks, which, args, surface.paths):
                    return position
                continue
            if self._check(checks, which):
                return position
        self.quiet = True
        return self.last

    def _leap(self, which: Sequence[int], args: Mapping[str, Any]) -> bool:
        """Once settled (``args``: the arguments at the current delta), move on to the delta before
        the first one whose buffer some test at ``which`` may match (``CallTest.possible_units``),
        without parsing or checking the deltas in between one by one; True when no later delta's
        may. From here on every buffer is a prefix of ``stable`` (in engine units) and each test's
        answer there is monotone: a prefix that no test may match has no shorter prefix that one
        may. So a binary search over the deltas finds that first one, each probe feeding a copy of
        the parser the arguments up to its end at once (what the parser fed every delta gives:
        ``PartialJsonParser`` is held to the full re-parse at every delta, and a copy to going on
        as the original would).

        A test counts only for a rule the manager's gate admits when the check's context cannot
        change from here on: an edit's file key (its path is the final one), or a write whose
        path arguments (keys ending ``path`` / ``paths``, what ``tool_surface`` reads for it) are
        already the final ones: arguments only gain members and a string only grows, so every
        later delta has those same ones."""
        if self._ends is None:
            ends, at = [], 0
            for ev in self.deltas:
                at += len(ev.delta or "")
                ends.append(at)
            self._ends = ends
        ends = self._ends
        tests = self.tests
        key = _settled_checks(self.name, self.key, args)[0][0]
        fixed = (argument_paths(args) == argument_paths(self.final) if self.name == "write"
                 else args.get("path") == self.final.get("path"))
        if self.gate is not None and fixed:
            admitted = self._gate(key, args, False)
            which = [n for n in which if tests[n].rule in admitted]
            if not which:
                return True

        def possible(text: str) -> bool:
            units = engine_text(text)
            return any(tests[n].possible_units(units) for n in which)

        base, base_at = self.parser, self.position  # the parser after delta ``base_at``

        def may_match(d: int) -> tuple[bool, PartialJsonParser]:
            probe = base.copy()  # (the parser's state goes on from ``base_at``: no re-parse from the start)
            value = probe.feed(self.raw_text[ends[base_at]:ends[d]])
            args = value if isinstance(value, Mapping) else {}
            return possible(_settled_checks(self.name, self.key, args)[0][1]), probe

        # The current buffer and the last one (``stable`` itself) are known without a parse.
        if possible(_settled_checks(self.name, self.key, args)[0][1]):
            return False
        if not possible(self.stable or ""):
            return True
        lo, hi = self.position + 1, self.last
        if hi - lo < _LEAP_MIN:
            return False  # (a few deltas are cheaper parsed one by one)
        while lo < hi:  # may_match(hi) holds, may_match(lo - 1) does not
            mid = (lo + hi) // 2
            hit, probe = may_match(mid)
            if hit:
                hi = mid
            else:
                lo = mid + 1
                base, base_at = probe, mid
        # The deltas after the current one and before ``lo`` match nothing: the parser takes them
        # in one feed.
        if base_at < lo - 1:
            base.feed(self.raw_text[ends[base_at]:ends[lo - 1]])
        self.parser = base
        self.position = lo - 1
        return False

    def _check(self, checks: Sequence[tuple[str, str]], which: Sequence[int], args: Mapping[str, Any] | None = None,
               paths: tuple[str, ...] | None | bool = False) -> bool:
        """Grow each checked key's buffer as the manager does and ask the tests at ``which``. With a
        gate and ``args`` (the call's arguments at this delta), a match counts only for a rule the
        gate admits in the check's context: a per-file key's (the file's path candidates, as
        ``ToolChecks.per_file`` makes it), else the call's matcher ``paths`` (``False``: worked out
        from ``args`` when needed, as ``tool_surface`` gives them)."""
        hit = False
        tests = self.tests
        gate = self.gate if args is not None else None
        for k, text in checks:
            held = self.buffers.get(k)
            if self.raw and held is not None:
                buf = held[1]
                buf.append(text)  # (a raw buffer's text is not kept: nothing compares it)
            elif held is not None and text.startswith(held[0]):
                buf = held[1]
                buf.append(text[len(held[0]):])
            else:  # a first buffer, or a snapshot that does not extend it and replaces it (``check_snapshot``)
                buf = StreamBuffer(text)
            self.buffers[k] = (text, buf)
            # Every buffer of the delta grows as the manager's does, matched or not.
            if hit:
                continue
            admitted: frozenset[str] | None = None
            for n in which:
                if not condition_matches(tests[n].cond, n, buf):
                    continue
                if gate is None:
                    hit = True
                    break
                if admitted is None:
                    admitted = self._gate(k, args, paths)  # type: ignore[arg-type]  # not None with a gate
                if tests[n].rule in admitted:
                    hit = True
                    break
        return hit

    def _gate(self, key: str, args: Mapping[str, Any], paths: tuple[str, ...] | None | bool) -> frozenset[str]:
        """The names the gate admits for the check of ``key`` (see ``_check``)."""
        if "#" in key[len(self.key):]:
            path = key[len(self.key) + 1:]
            found: tuple[str, ...] | None = tuple(probe_kit.path_candidates(path, self.cwd) or [path])
        elif paths is False:
            found = probe_kit.tool_surface(self.name, args, self.cwd, self.edit_mode).paths
        else:
            found = paths  # type: ignore[assignment]  # not False here
        hit = self._admitted.get(found)
        if hit is None:
            hit = self._admitted[found] = self.gate(probe_kit.tool_context(self.name, found))  # type: ignore[misc]
        return hit

    def _raw(self) -> list[int]:
        if self._raw_tests is None:
            self._raw_tests = _possible(self.tests, self.raw_text)
        return self._raw_tests

    def _live(self, positions: list[int], fired: frozenset[str]) -> list[int]:
        return [n for n in positions if self.tests[n].rule not in fired] if fired else positions


def first_possible(tests: Sequence[CallTest], call_id: str, name: str, deltas: Sequence[StreamEvent], cwd: str,
                   edit_mode: str | None) -> int | None:
    """``CallShadow(...).next_possible()``: the first delta of a call at which a rule may match."""
    return CallShadow(tests, call_id, name, deltas, cwd, edit_mode).next_possible()
