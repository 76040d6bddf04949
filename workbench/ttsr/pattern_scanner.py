"""The JavaScript regex grammar: translation for ``regress`` and the pattern's shape, in one pass.

``scan`` parses a pattern (disjunctions, terms, quantifiers, groups, assertions, back-references) on
top of ``PatternCursor`` and returns the translated source with its ``Shape``. Translation differs
from the raw pattern where ``regress`` parts from JS non-unicode mode: ``\\u{2}`` is an identity escape
``u`` followed by a quantifier in JS (``regress`` reads a code point); a quantified ``\\b``/``\\B`` is a
JS syntax error (``regress`` accepts it); astral characters become two code units (``engine_text``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from workbench.ttsr import js_case_fold
from workbench.ttsr.code_units import (
    ESCAPE_CLASS,
    class_union,
    engine_text,
    nonfree_class,
)
from workbench.ttsr.pattern_lexer import (
    CLASS_NEWLINE,
    QUANTIFIER,
    PatternCursor,
    PatternSyntaxError,
    ScanAbort,
    count_groups,
)
from workbench.ttsr.pattern_shape import (
    INF,
    UNKNOWN,
    Shape,
    ShapeInfo,
    char_info,
    join_classes,
    literal_info,
)

__all__ = ["PatternSyntaxError", "ScannedPattern", "scan"]


class _Scanner(PatternCursor):
    def __init__(self, pattern: str, dotall: bool, icase: bool = False) -> None:
        super().__init__(pattern, dotall, icase)
        # Matches a unit outside the free class (second pass only); see `_counted`.
        self.free_test: Callable[[str], object] | None = None
        self.groups: dict[int, ShapeInfo] = {}
        self.group_count, self.has_names = count_groups(pattern)
        self.next_group = 0
        self.names: dict[str, int] = {}

    # -- grammar ----------------------------------------------------------------------------------
    def disjunction(self) -> ShapeInfo:
        info = self.alternative()
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.copy(1)
            info = info.union(self.alternative())
        return info

    def alternative(self) -> ShapeInfo:
        info = ShapeInfo()
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            info = info.then(self.term())
        return info

    def term(self) -> ShapeInfo:
        p, i = self.p, self.i
        c = p[i]
        if c == "^":
            self.copy(1)
            self._no_quantifier()
            return ShapeInfo(0, 0, 1, False, False, True)
        if c == "$":
            self.copy(1)
            self._no_quantifier()
            return ShapeInfo(0, 1, 0, False, True, False)
        if c == "\\" and p[i + 1 : i + 2] in ("b", "B"):
            self.copy(2)
            self._no_quantifier()
            return ShapeInfo(0, 1, 1, False, True, False)
        if p.startswith("(?<=", i) or p.startswith("(?<!", i):
            self.copy(4)
            body = self.disjunction()
            self._close()
            self._no_quantifier()
            return body.zero_width(back=body.maxw + body.back + 1, nonmono=body.nonmono or p[i + 3] == "!")
        if p.startswith("(?=", i) or p.startswith("(?!", i):
            self.copy(3)
            body = self.disjunction()
            self._close()
            atom = body.zero_width(nonmono=body.nonmono or p[i + 2] == "!")
            return self._quantified(atom)
        return self._quantified(self.atom())

    def _close(self) -> None:
        if self.i >= len(self.p) or self.p[self.i] != ")":
            raise ScanAbort
        self.copy(1)

    def _no_quantifier(self) -> None:
        m = QUANTIFIER.match(self.p, self.i)
        if m is not None:
            raise PatternSyntaxError("Nothing to repeat")

    def _quantified(self, atom: ShapeInfo) -> ShapeInfo:
        m = QUANTIFIER.match(self.p, self.i)
        if m is None:
            return atom
        self.copy_to(m.end())
        if self.p[self.i : self.i + 1] == "?":
            self.copy(1)
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
            unbounded = join_classes(atom.uset, atom.classes)
        else:
            unbounded = atom.uset
        bcount = 0 if hi == INF else atom.bcount * hi
        if atom.maxw == 0:
            return ShapeInfo(0, atom.reach, atom.back, atom.nl, atom.nonmono, atom.caret,
                         atom.classes, bcount if hi != INF else 0, unbounded)
        if hi == 0:
            return ShapeInfo(0, atom.reach, atom.back, atom.nl, atom.nonmono, atom.caret,
                         atom.classes, atom.bcount, atom.uset)
        maxw = atom.maxw * hi
        reach = INF if hi == INF else (hi - 1) * atom.maxw + atom.reach
        return ShapeInfo(maxw, reach, atom.back, atom.nl, atom.nonmono, atom.caret, atom.classes, bcount, unbounded)

    def atom(self) -> ShapeInfo:
        p, i = self.p, self.i
        c = p[i]
        if c == ".":
            self.copy(1)
            return char_info(self.dotall, None if self.dotall else "[^\\n\\r\\u2028\\u2029]")
        if c == "[":
            start = len(self.out)
            info = self.char_class()
            self._fold_set(start)
            return info
        if c == "(":
            return self.group()
        if c == "\\":
            return self.atom_escape()
        if c in "*+?":
            raise ScanAbort  # nothing to repeat: let the engine report it
        if c == "{" and QUANTIFIER.match(p, i):
            raise ScanAbort
        self._emit_literal(c)
        self.i += 1
        return self._counted(literal_info(c, self.icase), c)

    def group(self) -> ShapeInfo:
        p, i = self.p, self.i
        capture = False
        saved_dotall = self.dotall
        if p.startswith("(?:", i):
            self.copy(3)
        elif p.startswith("(?<", i):
            m = re.compile(r"\(\?<([A-Za-z_$][\w$]*)>").match(p, i)
            if m is None:
                raise ScanAbort
            self.copy_to(m.end())
            capture = True
            self.names.setdefault(m.group(1), self.next_group + 1)
        elif p.startswith("(?", i):
            m = re.compile(r"\(\?([ims]*)(?:-([ims]*))?:").match(p, i)
            if m is None:
                raise ScanAbort
            self.copy_to(m.end())
            if "s" in (m.group(1) or ""):
                self.dotall = True
            elif "s" in (m.group(2) or ""):
                self.dotall = False
        else:
            self.copy(1)
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

    def atom_escape(self) -> ShapeInfo:
        p, i = self.p, self.i
        e = self.escaped()
        if e in CLASS_NEWLINE:
            start = len(self.out)
            self.copy(2)
            self._fold_set(start)
            return char_info(CLASS_NEWLINE[e], ESCAPE_CLASS[e])
        if e.isdigit() and e != "0":
            m = re.compile(r"\d+").match(p, i + 1)
            assert m is not None
            n = int(m.group())
            if n <= self.group_count:
                self.copy_to(m.end())
                return self._backref(n)
            # Annex B: more than the group count is a legacy octal (`\2` = U+0002) or `\8`.
        if e == "k" and self.has_names:
            m = re.compile(r"\\k<([A-Za-z_$][\w$]*)>").match(p, i)
            if m is None:
                raise ScanAbort
            self.copy_to(m.end())
            return self._backref(self.names.get(m.group(1), 0))
        ch = self.char_escape(in_class=False)
        self._emit_literal(ch)
        return self._counted(literal_info(ch, self.icase), ch)

    # -- JS case folding under `i` (see workbench.ttsr.js_case_fold) -------------------------------
    def _emit_literal(self, ch: str) -> None:
        fixed = js_case_fold.literal(ch) if self.icase else None
        if fixed is None:
            self.emit_char(ch)
        else:
            self.out.append(fixed)

    def _fold_set(self, start: int) -> None:
        """Give the class emitted from ``self.out[start]`` on JS's answers for the characters
        ``regress`` folds differently (``ſ``, ``ı``, KELVIN SIGN …)."""
        if self.icase:
            fixed = js_case_fold.char_set("".join(self.out[start:]))
            if fixed is not None:
                self.out[start:] = [fixed]

    def _counted(self, info: ShapeInfo, ch: str) -> ShapeInfo:
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

    def _backref(self, n: int) -> ShapeInfo:
        g = self.groups.get(n)
        if g is None:
            return ShapeInfo(INF, INF, INF, True, False, False, None, INF, None)
        if self.icase:
            return ShapeInfo(g.maxw, g.maxw, 0, g.nl, False, False, None, g.bcount, None)
        return ShapeInfo(g.maxw, g.maxw, 0, g.nl, False, False, g.classes, g.bcount, g.uset)


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
            raise ScanAbort
        nonfree = nonfree_class(info.uset) if info.uset else None
        if nonfree is not None:
            # Second pass: bounded literals that the free class covers cannot act as barriers.
            again = _Scanner(pattern, dotall="s" in flags, icase="i" in flags)
            again.free_test = re.compile(nonfree).match
            info2 = again.disjunction()
            info = ShapeInfo(info.maxw, info.reach, info.back, info.nl, info.nonmono, info.caret,
                         info.classes, info2.bcount, info.uset)
    except PatternSyntaxError:
        raise
    except (ScanAbort, IndexError):
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
        free_class=class_union(info.uset),
        nonfree_class=nonfree_class(info.uset) if info.uset else None,
    )
    return ScannedPattern("".join(sc.out), shape)


def _fallback_translation(pattern: str) -> str:
    """Astral characters still become two units when the scanner gave up."""
    return engine_text(pattern)
