r"""What a match of a condition must contain: required literals, found at compile time.

``required_literals(body, flags)`` returns a set of strings (engine units) such that every match of
the pattern contains one of them, starting at or after the match start; or ``None`` when no such set
is known. ``workbench.ttsr.window`` uses it to answer "no match" without running the regex when no
literal occurrence lies where a new match could start (``LiteralIndex`` finds them all at once).

Soundness, construct by construct (when unsure the answer is "no requirement"):

* A node is described by ``exact`` (the finite set of strings it can consume, or ``None``) and
  ``cands`` (sets each of which some literal of must occur inside what the node reads).
* Lookbehinds read before the match start: their contents are ignored (they only add constraints).
  Negative lookarounds assert absence: ignored. A positive lookahead reads forward from a position
  at or after the start: its requirement is kept, but it consumes nothing (``exact == {""}``).
* Back-references, classes, ``.`` and class escapes match unknown text (``exact is None``).
* Case-insensitive patterns (flag ``i`` or any ``(?i:`` group) keep only ASCII literals, scanned
  case-insensitively. ``regress`` folds a few non-ASCII letters onto ASCII ones that Python's
  ``re.IGNORECASE`` does not (``_REGRESS_FOLDS``, verified over the BMP by a test), so those join
  the scanning class. Flags ``m`` and ``s`` change only ``^ $ .``, which carry no literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from workbench.ttsr.code_units import engine_text
from workbench.ttsr.pattern_lexer import QUANTIFIER, PatternCursor, ScanAbort, count_groups

__all__ = ["LiteralIndex", "literal_index", "required_literal_sets", "required_literals"]

_MAX_SET = 16  # exact-set size kept through concatenation and alternation
_MAX_LEN = 64  # literal length kept (a longer run is flushed as a requirement)

# regress's case-insensitive matching also takes these non-ASCII units for an ASCII letter (found
# by `tests/ttsr/test_literals.py::test_regress_folds_table`; JS itself would not fold them).
_REGRESS_FOLDS = {"i": "\u01e2", "s": "\u027e"}

Key = tuple[str, bool]  # (literal in engine units, case-insensitive)


@dataclass(slots=True)
class LiteralInfo:
    exact: frozenset[str] | None
    cands: list[frozenset[str]]


def _score(s: frozenset[str]) -> tuple[int, int]:
    return (min(len(x) for x in s), -len(s))


def _options(info: LiteralInfo) -> list[frozenset[str]]:
    """Every requirement ``info`` knows: each is a set some member of which every match holds."""
    options = list(info.cands)
    if info.exact is not None and "" not in info.exact:
        options.append(info.exact)
    return [_minimal(o) for o in options if o and "" not in o]


def _best(info: LiteralInfo) -> frozenset[str] | None:
    options = _options(info)
    if not options:
        return None
    # The later of equally good requirements: its occurrence lies nearer the end of the match,
    # hence nearer the newly appended text.
    best = options[0]
    for o in options[1:]:
        if _score(o) >= _score(best):
            best = o
    return best


def _minimal(s: frozenset[str]) -> frozenset[str]:
    """Drop members that contain another member (an occurrence of it implies the other's)."""
    return frozenset(x for x in s if not any(y != x and y in x for y in s))


def _cross(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > _MAX_SET:
        return None
    out = frozenset(x + y for x in a for y in b)
    return out if all(len(x) <= _MAX_LEN for x in out) else None


class LiteralParser(PatternCursor):
    """The grammar of ``pattern_scanner`` again, summarising literals instead of shapes.

    It is only run on patterns that scanner analysed fully, and follows the same decisions
    (what is a quantifier, a group, an escape); anything else raises ``ScanAbort``.
    """

    def __init__(self, pattern: str, icase: bool) -> None:
        super().__init__(pattern, dotall=False, icase=icase)
        self.group_count, self.has_names = count_groups(pattern)

    def disjunction(self) -> LiteralInfo:
        alts = [self.alternative()]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            alts.append(self.alternative())
        if len(alts) == 1:
            return alts[0]
        exact: frozenset[str] | None = frozenset()
        for a in alts:
            exact = None if exact is None or a.exact is None else exact | a.exact
        if exact is not None and len(exact) > _MAX_SET:
            exact = None
        req: frozenset[str] | None = frozenset()
        for a in alts:
            b = _best(a)
            req = None if req is None or b is None else req | b
        if req is not None and len(req) > 4 * _MAX_SET:
            req = None
        return LiteralInfo(exact, [req] if req else [])

    def alternative(self) -> LiteralInfo:
        run: frozenset[str] | None = frozenset([""])
        cands: list[frozenset[str]] = []
        exact: frozenset[str] | None = frozenset([""])
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            t = self.term()
            cands.extend(t.cands)
            exact = None if exact is None or t.exact is None else _cross(exact, t.exact)
            if t.exact is None:
                if run is not None and "" not in run:
                    cands.append(run)
                run = frozenset([""])
                continue
            joined = _cross(run, t.exact) if run is not None else None
            if joined is None:
                if run is not None and "" not in run:
                    cands.append(run)
                joined = t.exact
            run = joined
        if run is not None and "" not in run:
            cands.append(run)
        return LiteralInfo(exact, cands)

    def term(self) -> LiteralInfo:
        p, i = self.p, self.i
        c = p[i]
        if c in "^$":
            self.i += 1
            return LiteralInfo(frozenset([""]), [])
        if c == "\\" and p[i + 1 : i + 2] in ("b", "B"):
            self.i += 2
            return LiteralInfo(frozenset([""]), [])
        if p.startswith(("(?<=", "(?<!"), i):
            self.i += 4
            self.disjunction()
            self._close()
            return LiteralInfo(frozenset([""]), [])  # reads before the start: no requirement
        if p.startswith(("(?=", "(?!"), i):
            self.i += 3
            body = self.disjunction()
            self._close()
            positive = p[i + 2] == "="
            best = _best(body) if positive else None
            atom = LiteralInfo(frozenset([""]), [best] if best else [])
            return self._quantified(atom)
        return self._quantified(self.atom())

    def _close(self) -> None:
        if self.i >= len(self.p) or self.p[self.i] != ")":
            raise ScanAbort
        self.i += 1

    def _quantified(self, atom: LiteralInfo) -> LiteralInfo:
        m = QUANTIFIER.match(self.p, self.i)
        if m is None:
            return atom
        self.i = m.end()
        if self.p[self.i : self.i + 1] == "?":
            self.i += 1
        tok = m.group()
        if tok in ("*", "?"):
            lo = 0
        elif tok == "+":
            lo = 1
        else:
            lo = int(m.group(1))
        hi = 1 if tok == "?" else None
        if not m.group(2) and tok not in ("*", "+", "?"):
            hi = lo
        if lo == 0:
            if hi == 1 and atom.exact is not None:
                return LiteralInfo(atom.exact | {""}, [])
            return LiteralInfo(None, [])
        best = _best(atom)
        exact = None
        if hi == lo and atom.exact is not None and lo <= 8:
            exact = frozenset([""])
            for _ in range(lo):
                exact = _cross(exact, atom.exact) if exact is not None else None
        return LiteralInfo(exact, [best] if best else [])

    def atom(self) -> LiteralInfo:
        p, i = self.p, self.i
        c = p[i]
        if c == ".":
            self.i += 1
            return LiteralInfo(None, [])
        if c == "[":
            self.char_class()  # reads the whole class; its members are not tracked
            return LiteralInfo(None, [])
        if c == "(":
            return self.group()
        if c == "\\":
            return self.atom_escape()
        if c in "*+?" or (c == "{" and QUANTIFIER.match(p, i)):
            raise ScanAbort
        self.i += 1
        return self._char(c)

    def group(self) -> LiteralInfo:
        p, i = self.p, self.i
        if p.startswith("(?:", i):
            self.i += 3
        elif p.startswith("(?<", i):
            m = re.compile(r"\(\?<([A-Za-z_$][\w$]*)>").match(p, i)
            if m is None:
                raise ScanAbort
            self.i = m.end()
        elif p.startswith("(?", i):
            m = re.compile(r"\(\?([ims]*)(?:-([ims]*))?:").match(p, i)
            if m is None:
                raise ScanAbort
            self.i = m.end()
        else:
            self.i += 1
        body = self.disjunction()
        self._close()
        return body

    def atom_escape(self) -> LiteralInfo:
        p, i = self.p, self.i
        e = self.escaped()
        if e in "dDwWsS":
            self.i += 2
            return LiteralInfo(None, [])
        if e.isdigit() and e != "0":
            m = re.compile(r"\d+").match(p, i + 1)
            assert m is not None
            if int(m.group()) <= self.group_count:
                self.i = m.end()
                return LiteralInfo(None, [])  # back-reference: unknown text
        if e == "k" and self.has_names:
            m = re.compile(r"\\k<([A-Za-z_$][\w$]*)>").match(p, i)
            if m is None:
                raise ScanAbort
            self.i = m.end()
            return LiteralInfo(None, [])
        return self._char(self.char_escape(in_class=False))

    def _char(self, ch: str) -> LiteralInfo:
        units = engine_text(ch)
        if self.icase:
            if not ch.isascii():
                return LiteralInfo(None, [])  # non-ASCII case folding is not modelled
            units = units.lower()
        return LiteralInfo(frozenset([units]), [])


def required_literals(body: str, flags: str) -> frozenset[Key] | None:
    """Literals one of which every match contains at or after its start (None: unknown)."""
    found = required_literal_sets(body, flags)
    return None if found is None else found[0]


def required_literal_sets(body: str, flags: str) -> tuple[frozenset[Key], ...] | None:
    """``required_literals`` first, then every other requirement the pattern's top level holds (the
    parts of a concatenation: ``\\bnew\\s+(Set|Map)`` needs ``new`` and one of ``Set``, ``Map``), each
    a set one member of which every match holds at or after its start; ``None``: unknown. Used where
    several requirements narrow a search more than the one ``required_literals`` picks (the backtest's
    plan; README, "Backtest")."""
    icase = "i" in flags or re.search(r"\(\?[ims]*i[ims]*(?:-[ims]*)?:|\(\?[ims]*-[ims]*i", body) is not None
    parser = LiteralParser(body, icase)
    try:
        info = parser.disjunction()
        if parser.i != len(body):
            return None
    except (ScanAbort, IndexError, AssertionError):
        return None
    best = _best(info)
    if best is None:
        return None
    others = [o for o in _options(info) if o != best]
    return tuple(frozenset((lit, icase) for lit in s) for s in [best, *dict.fromkeys(others)])


def _icase_source(lit: str) -> str:
    out = []
    for ch in lit:
        extra = _REGRESS_FOLDS.get(ch.lower())
        out.append(f"[{re.escape(ch)}{extra}]" if extra else re.escape(ch))
    return "".join(out)


class LiteralIndex:
    """All occurrences of a set of literals, by the start of the last one seen (one scan per text).

    ``scan(text, base)`` returns ``(key, start)`` for every occurrence in ``text`` (overlapping ones
    included), offsets shifted by ``base``. At each position the alternation (longest first) finds
    the longest literal there; every literal that is a prefix of it occurs there too.
    """

    __slots__ = ("keys", "longest", "_plain", "_icase", "_icase_list", "_prefixes", "_any")

    def __init__(self, keys: frozenset[Key]) -> None:
        self.keys = keys
        self.longest = max((len(k[0]) for k in keys), default=0)
        self._prefixes: dict[Key, tuple[Key, ...]] = {}
        plain = sorted({k[0] for k in keys if not k[1]}, key=lambda s: (-len(s), s))
        icase = sorted({k[0] for k in keys if k[1]}, key=lambda s: (-len(s), s))
        self._plain = re.compile("(?=(" + "|".join(map(re.escape, plain)) + "))") if plain else None
        self._icase = (
            re.compile("(?=(?:" + "|".join(f"(?P<g{n}>{_icase_source(s)})" for n, s in enumerate(icase)) + "))", re.I)
            if icase
            else None
        )
        for k in keys:
            self._prefixes[k] = tuple(o for o in keys if o[1] == k[1] and k[0].startswith(o[0]))
        self._icase_list = icase
        # Presence only (no positions): plain alternations, which `re` searches fast.
        self._any = tuple(
            re.compile("|".join(parts), flags)
            for parts, flags in (([re.escape(x) for x in plain], 0), ([_icase_source(x) for x in icase], re.I))
            if parts
        )

    def found_in(self, text: str) -> bool:
        """Whether any of the literals occurs in ``text``."""
        return any(rx.search(text) is not None for rx in self._any)

    def scan(self, text: str, base: int) -> list[tuple[Key, int]]:
        out: list[tuple[Key, int]] = []
        if self._plain is not None:
            for m in self._plain.finditer(text):
                out.extend((k, base + m.start()) for k in self._prefixes[(m.group(1), False)])
        if self._icase is not None:
            for m in self._icase.finditer(text):
                group = m.lastgroup or ""  # every alternative is a named group: never empty
                lit = self._icase_list[int(group[1:])]
                out.extend((k, base + m.start()) for k in self._prefixes[(lit, True)])
        return out


@lru_cache(maxsize=256)
def literal_index(keys: frozenset[Key]) -> LiteralIndex:
    return LiteralIndex(keys)
