"""The lexical layer of the JavaScript (Annex B, non-unicode) regex scanner.

``PatternCursor`` walks a pattern and copies it, translated, to ``out`` for ``regress``: it decodes
character escapes the JS way (legacy octal, ``\\x`` and ``\\u`` that fall back to letters, ``\\c``)
and reads whole character classes, describing each as a ``ShapeInfo`` atom. JS counts UTF-16 units,
so astral characters and surrogate escapes are emitted as the private-use code units of
``engine_text`` (the same mapping is applied to every searched text). The grammar on top (groups,
quantifiers, assertions) is ``workbench.ttsr.pattern_scanner``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from workbench.ttsr.code_units import ESCAPE_CLASS_BODY, code_unit, engine_text, py_char
from workbench.ttsr.pattern_shape import ShapeInfo, char_info

QUANTIFIER = re.compile(r"\*|\+|\?|\{(\d+)(?:(,)(\d*))?\}")
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_OCTAL = re.compile(r"[0-7]{1,3}")
_SIMPLE_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
# `\xHH` is a character; `\uHHHH` a UTF-16 code unit (an astral half maps as ``engine_text`` does).
_HEX_ESCAPES: dict[str, tuple[re.Pattern[str], Callable[[int], str]]] = {"x": (_HEX2, chr), "u": (_HEX4, code_unit)}
# Class escapes and whether their set contains `\n`.
CLASS_NEWLINE = {"d": False, "D": True, "w": False, "W": True, "s": True, "S": False}


class PatternSyntaxError(ValueError):
    """A construct JavaScript rejects but the engine would accept."""


class ScanAbort(Exception):
    """The scanner gave up; translation falls back to the raw pattern and shape to UNKNOWN."""


class PatternCursor:
    """A position in a pattern plus the translated output so far (the grammar's lexical half)."""

    def __init__(self, pattern: str, dotall: bool, icase: bool = False) -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.dotall = dotall
        self.icase = icase

    # -- output helpers -------------------------------------------------------------------------
    def copy(self, n: int) -> None:
        """Copy the next ``n`` characters of the pattern to ``out`` as they are, and step past them."""
        self.copy_to(self.i + n)

    def copy_to(self, end: int) -> None:
        """Copy the pattern up to index ``end`` to ``out`` as it is, and step there."""
        self.out.append(self.p[self.i : end])
        self.i = end

    def emit_char(self, ch: str) -> None:
        """Emit one literal code unit (or an astral char as two mapped units), escaped."""
        mapped = engine_text(ch)
        for c in mapped:
            self.out.append(f"\\u{ord(c):04X}" if ord(c) > 0x7E or not c.isalnum() else c)


    def escaped(self) -> str:
        """The character after the backslash at ``self.i``; a pattern that ends in the backslash
        cannot be analysed (the engine reports it)."""
        if self.i + 1 >= len(self.p):
            raise ScanAbort
        return self.p[self.i + 1]

    def char_escape(self, in_class: bool) -> str:
        """Decode one character escape at ``self.i`` (pointing at the backslash)."""
        p, i = self.p, self.i
        e = p[i + 1]
        width = 2  # the backslash and the letter
        hexa = _HEX_ESCAPES.get(e)
        if e in _SIMPLE_ESCAPES:
            out = _SIMPLE_ESCAPES[e]
        elif e == "b" and in_class:
            out = "\b"
        elif e == "0" and not p[i + 2 : i + 3].isdigit():
            out = "\0"
        elif e.isdigit() and e not in "89":
            m = _OCTAL.match(p, i + 1)
            assert m is not None
            digits = m.group()
            if int(digits, 8) > 0o377:
                digits = digits[:2]
            width, out = 1 + len(digits), chr(int(digits, 8))
        elif hexa is not None and (m := hexa[0].match(p, i + 2)):
            width, out = 2 + len(m.group()), hexa[1](int(m.group(), 16))
        elif e == "c":
            nxt = p[i + 2 : i + 3]
            if not (nxt.isascii() and nxt.isalpha()):
                raise ScanAbort
            width, out = 3, chr(ord(nxt) % 32)
        else:
            # An identity escape. JS non-unicode: `\8`, `\9`, and `\x` / `\u` not followed by their
            # hex digits are the letters themselves (`\u{2}` = uu).
            out = e
        self.i += width
        return out

    def char_class(self) -> ShapeInfo:
        p = self.p
        self.copy(1)  # [
        negated = p[self.i : self.i + 1] == "^"
        if negated:
            self.copy(1)
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
                parts.append(py_char(units))

        def add_class_escape(e: str) -> None:
            """A class escape member (``\\d``, ``\\W``…): Python's class body says it, or nothing can."""
            nonlocal parts, has_nl
            has_nl = has_nl or CLASS_NEWLINE[e]
            if parts is None:
                return
            if e in ESCAPE_CLASS_BODY:
                parts.append(ESCAPE_CLASS_BODY[e])
            else:
                parts = None

        while True:
            if self.i >= len(p):
                raise ScanAbort
            c = p[self.i]
            if c == "]":
                self.copy(1)
                break
            if c == "\\":
                e = p[self.i + 1 : self.i + 2]
                if e in CLASS_NEWLINE:
                    self.copy(2)
                    add_class_escape(e)
                    continue
                if e == "-":
                    self.out.append("\\-")
                    self.i += 2
                    add_char("-")
                    continue
                ch = self.char_escape(in_class=True)
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
                    if e in CLASS_NEWLINE:
                        # `[a-\d]`: Annex B reads a literal '-' next to a class escape.
                        self.out.append("\\-" + p[self.i : self.i + 2])
                        self.i += 2
                        has_nl = has_nl or ch == "\n"
                        add_char(ch)
                        add_char("-")
                        add_class_escape(e)
                        continue
                    hi = self.char_escape(in_class=True)
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
                    parts.append(f"{py_char(lo_u)}-{py_char(hi_u)}")
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
        return char_info((not has_nl) if negated else (has_nl or maybe_nl), cls)


def structural_chars(pattern: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """``(index, char, depth)`` for each character outside escapes and character classes.

    ``depth`` is the group nesting the character stands at; a ``)`` is given the depth it returns to,
    so a group's ``(`` and ``)`` share one depth. The group-aware helpers below all walk this way.
    """
    depth, i, in_class = 0, start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        else:
            if c == ")":
                depth -= 1
            yield i, c, depth
            if c == "(":
                depth += 1
        i += 1


def count_groups(pattern: str) -> tuple[int, bool]:
    """Capturing groups and whether any is named (decides what `\\N` and `\\k` mean)."""
    count, named = 0, False
    for i, c, _ in structural_chars(pattern):
        if c != "(":
            continue
        if not pattern.startswith("(?", i):
            count += 1
        elif pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            count += 1
            named = True
    return count, named
