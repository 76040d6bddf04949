"""A scanner for JavaScript (Annex B, non-unicode) regex syntax: translation for ``regress`` and shape.

Two jobs, done in one pass over the pattern:

* **Translation** where ``regress`` parts from JS non-unicode mode: ``\\u{2}`` is an identity escape
  ``u`` followed by a quantifier in JS (``regress`` reads a code point); a quantified ``\\b``/``\\B``
  is a JS syntax error (``regress`` accepts it); and JS counts UTF-16 units, so astral characters
  and surrogate escapes are mapped onto the private-use code units of ``engine_text`` (the same
  mapping is applied to every searched text).
* **Shape** for incremental matching (``workbench.ttsr.window``): how far a match can read forward
  from its start (``reach``), how far back (``back``), whether it can consume ``\\n``
  (``crosses_newline``), and whether a match can disappear when text is appended (``monotonic`` is
  false as soon as ``$``, ``\\b``, ``\\B`` or a negative lookaround appears). Anything the scanner
  does not understand yields the all-unknown shape, which makes the caller fall back to a full search.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from workbench.ttsr.code_units import (
    _ESCAPE_CLASS,
    _ESCAPE_CLASS_BODY,
    _class_union,
    _py_char,
    _unit,
    engine_text,
    nonfree_class,
)

INF = math.inf

_QUANT = re.compile(r"\*|\+|\?|\{(\d+)(?:(,)(\d*))?\}")
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_CLASS_NL = {"d": False, "D": True, "w": False, "W": True, "s": True, "S": False}

@dataclass(frozen=True, slots=True)
class Shape:
    """What a pattern can read relative to a match start (see module doc)."""

    max_width: float = INF
    reach: float = INF
    back: float = INF
    crosses_newline: bool = True
    monotonic: bool = False
    caret: bool = True
    # Units an attempt can read outside `free_class` (bounded atoms plus one peek), and the
    # Python `re` alternation of what unbounded atoms consume ("" = none, None = anything).
    barrier_count: float = INF
    free_class: str | None = None
    # The complement of the free class as one Python `re` class (fast to scan), if computable.
    nonfree_class: str | None = None


UNKNOWN = Shape()


class PatternSyntaxError(ValueError):
    """A construct JavaScript rejects but the engine would accept."""


class _Opaque(Exception):
    """The scanner gave up; translation falls back to the raw pattern and shape to UNKNOWN."""


@dataclass(slots=True)
class _Info:
    maxw: float = 0
    reach: float = 0
    back: float = 0
    nl: bool = False
    nonmono: bool = False
    caret: bool = False
    # Python `re` classes of every consuming atom below (None: some atom is not describable).
    classes: tuple[str, ...] | None = ()
    # Units consumed by atoms outside unbounded quantifiers (with bounded multiplicity).
    bcount: float = 0
    # Classes of atoms under an unbounded quantifier (None: could be anything).
    uset: tuple[str, ...] | None = ()

    def then(self, b: _Info) -> _Info:
        return _Info(
            self.maxw + b.maxw,
            max(self.reach, self.maxw + b.reach),
            max(self.back, b.back),
            self.nl or b.nl,
            self.nonmono or b.nonmono,
            self.caret or b.caret,
            _join(self.classes, b.classes),
            self.bcount + b.bcount,
            _join(self.uset, b.uset),
        )

    def union(self, b: _Info) -> _Info:
        return _Info(
            max(self.maxw, b.maxw),
            max(self.reach, b.reach),
            max(self.back, b.back),
            self.nl or b.nl,
            self.nonmono or b.nonmono,
            self.caret or b.caret,
            _join(self.classes, b.classes),
            max(self.bcount, b.bcount),
            _join(self.uset, b.uset),
        )

    def zero_width(self, **changes: object) -> _Info:
        """This body as a zero-width lookaround: its reads still count toward the barrier."""
        info = _Info(0, self.reach, self.back, self.nl, self.nonmono, self.caret,
                     self.classes, self.bcount, self.uset)
        for key, value in changes.items():
            setattr(info, key, value)
        return info


def _join(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if a is None or b is None:
        return None
    return a + tuple(c for c in b if c not in a)


def _char_info(nl: bool, cls: str | None) -> _Info:
    return _Info(1, 1, 0, nl, False, False, None if cls is None else (cls,), 1, ())


def _literal_info(ch: str, icase: bool) -> _Info:
    """A literal: an astral character is two code units in JS non-unicode mode."""
    units = engine_text(ch)
    width = len(units)
    if width != 1:
        cls = None
    elif icase and ch.isascii() and ch.isalpha():
        cls = f"[{ch.lower()}{ch.upper()}]"
    elif icase and not ch.isascii() and (ch.lower() != ch or ch.upper() != ch):
        cls = None  # non-ASCII case folding: not described
    else:
        cls = f"[{_py_char(units)}]"
    return _Info(width, width, 0, ch == "\n", False, False, None if cls is None else (cls,), width, ())


class _Scanner:
    def __init__(self, pattern: str, dotall: bool, icase: bool = False) -> None:
        self.icase = icase
        # Matches a unit outside the free class (second pass only); see `_counted`.
        self.free_test: Callable[[str], object] | None = None
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.dotall = dotall
        self.groups: dict[int, _Info] = {}
        self.group_count, self.has_names = _count_groups(pattern)
        self.next_group = 0
        self.names: dict[str, int] = {}

    # -- output helpers -------------------------------------------------------------------------
    def emit_char(self, ch: str) -> None:
        """Emit one literal code unit (or an astral char as two mapped units), escaped."""
        mapped = engine_text(ch)
        for c in mapped:
            self.out.append(f"\\u{ord(c):04X}" if ord(c) > 0x7E or not c.isalnum() else c)

    # -- grammar ----------------------------------------------------------------------------------
    def disjunction(self) -> _Info:
        info = self.alternative()
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.out.append("|")
            self.i += 1
            info = info.union(self.alternative())
        return info

    def alternative(self) -> _Info:
        info = _Info()
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            info = info.then(self.term())
        return info

    def term(self) -> _Info:
        p, i = self.p, self.i
        c = p[i]
        if c == "^":
            self.out.append("^")
            self.i += 1
            self._no_quantifier()
            return _Info(0, 0, 1, False, False, True)
        if c == "$":
            self.out.append("$")
            self.i += 1
            self._no_quantifier()
            return _Info(0, 1, 0, False, True, False)
        if c == "\\" and p[i + 1 : i + 2] in ("b", "B"):
            self.out.append(p[i : i + 2])
            self.i += 2
            self._no_quantifier()
            return _Info(0, 1, 1, False, True, False)
        if p.startswith("(?<=", i) or p.startswith("(?<!", i):
            self.out.append(p[i : i + 4])
            self.i += 4
            body = self.disjunction()
            self._close()
            self._no_quantifier()
            return body.zero_width(back=body.maxw + body.back + 1, nonmono=body.nonmono or p[i + 3] == "!")
        if p.startswith("(?=", i) or p.startswith("(?!", i):
            self.out.append(p[i : i + 3])
            self.i += 3
            body = self.disjunction()
            self._close()
            atom = body.zero_width(nonmono=body.nonmono or p[i + 2] == "!")
            return self._quantified(atom)
        return self._quantified(self.atom())

    def _close(self) -> None:
        if self.i >= len(self.p) or self.p[self.i] != ")":
            raise _Opaque
        self.out.append(")")
        self.i += 1

    def _no_quantifier(self) -> None:
        m = _QUANT.match(self.p, self.i)
        if m is not None:
            raise PatternSyntaxError("Nothing to repeat")

    def _quantified(self, atom: _Info) -> _Info:
        m = _QUANT.match(self.p, self.i)
        if m is None:
            return atom
        self.out.append(m.group())
        self.i = m.end()
        if self.p[self.i : self.i + 1] == "?":
            self.out.append("?")
            self.i += 1
        tok = m.group()
        if tok == "*":
            hi: float = INF
        elif tok == "+":
            hi = INF
        elif tok == "?":
            hi = 1
        elif m.group(2):
            hi = int(m.group(3)) if m.group(3) else INF
        else:
            hi = int(m.group(1))
        if hi == INF:
            # Everything the atom consumes (and its lookaheads read) becomes unbounded.
            unbounded = _join(atom.uset, atom.classes)
        else:
            unbounded = atom.uset
        bcount = 0 if hi == INF else atom.bcount * hi
        if atom.maxw == 0:
            return _Info(0, atom.reach, atom.back, atom.nl, atom.nonmono, atom.caret,
                         atom.classes, bcount if hi != INF else 0, unbounded)
        if hi == 0:
            return _Info(0, atom.reach, atom.back, atom.nl, atom.nonmono, atom.caret,
                         atom.classes, atom.bcount, atom.uset)
        maxw = atom.maxw * hi
        reach = INF if hi == INF else (hi - 1) * atom.maxw + atom.reach
        return _Info(maxw, reach, atom.back, atom.nl, atom.nonmono, atom.caret, atom.classes, bcount, unbounded)

    def atom(self) -> _Info:
        p, i = self.p, self.i
        c = p[i]
        if c == ".":
            self.out.append(".")
            self.i += 1
            return _char_info(self.dotall, None if self.dotall else "[^\\n\\r\\u2028\\u2029]")
        if c == "[":
            return self.char_class()
        if c == "(":
            return self.group()
        if c == "\\":
            return self.atom_escape()
        if c in "*+?":
            raise _Opaque  # nothing to repeat: let the engine report it
        if c == "{" and _QUANT.match(p, i):
            raise _Opaque
        self.emit_char(c)
        self.i += 1
        return self._counted(_literal_info(c, self.icase), c)

    def group(self) -> _Info:
        p, i = self.p, self.i
        capture = False
        saved_dotall = self.dotall
        if p.startswith("(?:", i):
            self.out.append("(?:")
            self.i += 3
        elif p.startswith("(?<", i):
            m = re.compile(r"\(\?<([A-Za-z_$][\w$]*)>").match(p, i)
            if m is None:
                raise _Opaque
            self.out.append(m.group())
            self.i = m.end()
            capture = True
            self.names.setdefault(m.group(1), self.next_group + 1)
        elif p.startswith("(?", i):
            m = re.compile(r"\(\?([ims]*)(?:-([ims]*))?:").match(p, i)
            if m is None:
                raise _Opaque
            self.out.append(m.group())
            self.i = m.end()
            if "s" in (m.group(1) or ""):
                self.dotall = True
            elif "s" in (m.group(2) or ""):
                self.dotall = False
        else:
            self.out.append("(")
            self.i += 1
            capture = True
        index = 0
        if capture:
            self.next_group += 1
            index = self.next_group
        body = self.disjunction()
        self._close()
        self.dotall = saved_dotall
        if capture:
            self.groups[index] = body
        return body

    def atom_escape(self) -> _Info:
        p, i = self.p, self.i
        if i + 1 >= len(p):
            raise _Opaque
        e = p[i + 1]
        if e in _CLASS_NL:
            self.out.append(p[i : i + 2])
            self.i += 2
            return _char_info(_CLASS_NL[e], _ESCAPE_CLASS[e])
        if e.isdigit() and e != "0":
            m = re.compile(r"\d+").match(p, i + 1)
            assert m is not None
            n = int(m.group())
            if n <= self.group_count:
                self.out.append(p[i : m.end()])
                self.i = m.end()
                return self._backref(n)
            # Annex B: more than the group count is a legacy octal (`\2` = U+0002) or `\8`.
        if e == "k" and self.has_names:
            m = re.compile(r"\\k<([A-Za-z_$][\w$]*)>").match(p, i)
            if m is None:
                raise _Opaque
            self.out.append(m.group())
            self.i = m.end()
            return self._backref(self.names.get(m.group(1), 0))
        ch = self._char_escape(in_class=False)
        self.emit_char(ch)
        return self._counted(_literal_info(ch, self.icase), ch)

    def _counted(self, info: _Info, ch: str) -> _Info:
        """A bounded literal whose every case variant is free consumes no barrier units."""
        if self.free_test is None:
            return info
        if self.icase and not ch.isascii() and (ch.lower() != ch or ch.upper() != ch):
            return info  # JS folds non-ASCII letters beyond lower/upper: keep counting it
        units = engine_text(ch)
        variants = {units, units.lower(), units.upper()} if self.icase else {units}
        if all(len(v) == 1 and self.free_test(v) is None for v in variants):
            info.bcount = 0
        return info

    def _backref(self, n: int) -> _Info:
        g = self.groups.get(n)
        if g is None:
            return _Info(INF, INF, INF, True, False, False, None, INF, None)
        if self.icase:
            return _Info(g.maxw, g.maxw, 0, g.nl, False, False, None, g.bcount, None)
        return _Info(g.maxw, g.maxw, 0, g.nl, False, False, g.classes, g.bcount, g.uset)

    def _char_escape(self, in_class: bool) -> str:
        """Decode one character escape at ``self.i`` (pointing at the backslash)."""
        p, i = self.p, self.i
        e = p[i + 1]
        simple = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
        if e in simple:
            self.i += 2
            return simple[e]
        if e == "b" and in_class:
            self.i += 2
            return "\b"
        if e == "0" and not p[i + 2 : i + 3].isdigit():
            self.i += 2
            return "\0"
        if e in "89":
            self.i += 2
            return e
        if e.isdigit():
            m = re.compile(r"[0-7]{1,3}").match(p, i + 1)
            assert m is not None
            digits = m.group()
            if int(digits, 8) > 0o377:
                digits = digits[:2]
            self.i += 1 + len(digits)
            return chr(int(digits, 8))
        if e == "x":
            if _HEX2.match(p, i + 2):
                self.i += 4
                return chr(int(p[i + 2 : i + 4], 16))
            self.i += 2
            return "x"
        if e == "u":
            if _HEX4.match(p, i + 2):
                self.i += 6
                return _unit(int(p[i + 2 : i + 6], 16))
            # JS non-unicode: `\u` not followed by four hex digits is the letter u (`\u{2}` = uu).
            self.i += 2
            return "u"
        if e == "c":
            nxt = p[i + 2 : i + 3]
            if nxt.isascii() and nxt.isalpha():
                self.i += 3
                return chr(ord(nxt) % 32)
            raise _Opaque
        self.i += 2
        return e

    def char_class(self) -> _Info:
        p = self.p
        self.out.append("[")
        self.i += 1
        negated = p[self.i : self.i + 1] == "^"
        if negated:
            self.out.append("^")
            self.i += 1
        has_nl = False  # certainly contains \n
        maybe_nl = False  # might contain \n (unanalysed members)
        parts: list[str] | None = []  # Python class body of the listed members (None: unknown)
        # Case folding only widens a positive class; a negated class is described by its raw
        # members (a superset of the real set), which is all the barrier scan needs.
        fold = self.icase and not negated

        def add_char(ch: str) -> None:
            nonlocal parts
            units = engine_text(ch)
            if parts is None:
                return
            if len(units) != 1:
                parts = None
            elif fold and ch.isascii() and ch.isalpha():
                parts.append(ch.lower() + ch.upper())
            elif fold and not ch.isascii() and (ch.lower() != ch or ch.upper() != ch):
                parts = None
            else:
                parts.append(_py_char(units))

        while True:
            if self.i >= len(p):
                raise _Opaque
            c = p[self.i]
            if c == "]":
                self.out.append("]")
                self.i += 1
                break
            if c == "\\":
                e = p[self.i + 1 : self.i + 2]
                if e in _CLASS_NL:
                    self.out.append(p[self.i : self.i + 2])
                    self.i += 2
                    has_nl = has_nl or _CLASS_NL[e]
                    if parts is not None:
                        if e in _ESCAPE_CLASS_BODY:
                            parts.append(_ESCAPE_CLASS_BODY[e])
                        else:
                            parts = None
                    continue
                if e == "-":
                    self.out.append("\\-")
                    self.i += 2
                    add_char("-")
                    continue
                ch = self._char_escape(in_class=True)
            else:
                ch = c
                self.i += 1
            if ch == "-":
                self.out.append("\\-")
                add_char("-")
                continue
            self.emit_char(ch)
            # A range's upper end: the next char after '-' (if it is not ']').
            if p[self.i : self.i + 1] == "-" and p[self.i + 1 : self.i + 2] not in ("]", ""):
                self.i += 1
                if p[self.i] == "\\":
                    e = p[self.i + 1 : self.i + 2]
                    if e in _CLASS_NL:
                        # `[a-\d]`: Annex B reads a literal '-' next to a class escape.
                        self.out.append("\\-" + p[self.i : self.i + 2])
                        self.i += 2
                        has_nl = has_nl or _CLASS_NL[e] or ch == "\n"
                        add_char(ch)
                        add_char("-")
                        if parts is not None:
                            if e in _ESCAPE_CLASS_BODY:
                                parts.append(_ESCAPE_CLASS_BODY[e])
                            else:
                                parts = None
                        continue
                    hi = self._char_escape(in_class=True)
                else:
                    hi = p[self.i]
                    self.i += 1
                self.out.append("-")
                self.emit_char(hi)
                lo_u, hi_u = engine_text(ch), engine_text(hi)
                if len(lo_u) != 1 or len(hi_u) != 1:
                    maybe_nl = True  # astral range endpoints: not analysed
                    parts = None
                    continue
                if ord(lo_u) <= 10 <= ord(hi_u):
                    has_nl = True
                if parts is not None and ord(lo_u) <= ord(hi_u):
                    parts.append(f"{_py_char(lo_u)}-{_py_char(hi_u)}")
                    if fold and ord(hi_u) >= 0x80:
                        parts = None
                    elif fold and ord(lo_u) <= ord("z") and ord(hi_u) >= ord("A"):
                        parts.append("A-Za-z")
                continue
            has_nl = has_nl or ch == "\n"
            add_char(ch)
        if parts is None:
            cls = None
        elif not parts:
            cls = None if negated else "[^\\x00-\\U0010ffff]"  # `[^]` is anything, `[]` nothing
        else:
            cls = ("[^" if negated else "[") + "".join(parts) + "]"
        return _char_info((not has_nl) if negated else (has_nl or maybe_nl), cls)


def _count_groups(pattern: str) -> tuple[int, bool]:
    """Capturing groups and whether any is named (decides what `\\N` and `\\k` mean)."""
    count, named, i, in_class = 0, False, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            if not pattern.startswith("(?", i):
                count += 1
            elif pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
                count += 1
                named = True
        i += 1
    return count, named


@dataclass(frozen=True, slots=True)
class ScannedPattern:
    """The pattern handed to the engine and the shape of what it can match."""

    source: str
    shape: Shape


def scan(pattern: str, flags: str) -> ScannedPattern:
    """Translate ``pattern`` for ``regress`` and compute its shape.

    Raises ``PatternSyntaxError`` only for constructs JavaScript rejects and ``regress`` accepts.
    """
    sc = _Scanner(pattern, dotall="s" in flags, icase="i" in flags)
    try:
        info = sc.disjunction()
        if sc.i != len(pattern):
            raise _Opaque
        nonfree = nonfree_class(info.uset) if info.uset else None
        if nonfree is not None:
            # Second pass: bounded literals that the free class covers cannot act as barriers.
            again = _Scanner(pattern, dotall="s" in flags, icase="i" in flags)
            again.free_test = re.compile(nonfree).match
            info2 = again.disjunction()
            info = _Info(info.maxw, info.reach, info.back, info.nl, info.nonmono, info.caret,
                         info.classes, info2.bcount, info.uset)
    except PatternSyntaxError:
        raise
    except (_Opaque, IndexError):
        return ScannedPattern(_fallback_translation(pattern), UNKNOWN)
    except Exception:  # noqa: BLE001 - a scanner gap must never reject a pattern JS accepts
        return ScannedPattern(_fallback_translation(pattern), UNKNOWN)
    shape = Shape(
        max_width=info.maxw,
        reach=info.reach,
        back=info.back,
        crosses_newline=info.nl,
        monotonic=not info.nonmono,
        caret=info.caret,
        barrier_count=info.bcount + 1,
        free_class=_class_union(info.uset),
        nonfree_class=nonfree_class(info.uset) if info.uset else None,
    )
    return ScannedPattern("".join(sc.out), shape)


def _fallback_translation(pattern: str) -> str:
    """Astral characters still become two units when the scanner gave up."""
    return engine_text(pattern)
