"""Code units and character classes shared by the pattern scanner and the window matcher.

JavaScript's non-unicode regexes see UTF-16 code units; the engine (``regress``) sees code points.
``engine_text`` moves each surrogate unit to the private-use block U+F000-U+F7FF (order kept), so
every JS unit is one engine character. The class helpers describe, as Python ``re`` classes, which
units an atom can consume (JS ``\\s``, ``\\w`` and ``\\d`` semantics, ASCII-only without ``u``).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Surrogate code units (U+D800-U+DFFF) are moved to U+F000-U+F7FF, order kept, so that a UTF-8
# engine sees one character per JS code unit.
_SURROGATE_SHIFT = 0xF000 - 0xD800
_NEEDS_MAP = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")


def code_unit(cu: int) -> str:
    return chr(cu + _SURROGATE_SHIFT) if 0xD800 <= cu <= 0xDFFF else chr(cu)


def _map_char(m: re.Match[str]) -> str:
    cp = ord(m.group())
    if cp >= 0x10000:
        v = cp - 0x10000
        return code_unit(0xD800 + (v >> 10)) + code_unit(0xDC00 + (v & 0x3FF))
    return code_unit(cp)


def engine_text(text: str) -> str:
    """``text`` as the engine sees it: one character per UTF-16 code unit (identity if BMP only)."""
    if text.isascii() or _NEEDS_MAP.search(text) is None:
        return text
    return _NEEDS_MAP.sub(_map_char, text)


# JS `\s` (WhiteSpace + LineTerminator), `\w` and `\d` (ASCII only in non-unicode mode).
JS_SPACE_CLASS = "\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
ESCAPE_CLASS = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": "[A-Za-z0-9_]",
    "W": "[^A-Za-z0-9_]",
    "s": f"[{JS_SPACE_CLASS}]",
    "S": f"[^{JS_SPACE_CLASS}]",
}
ESCAPE_CLASS_BODY = {"d": "0-9", "w": "A-Za-z0-9_", "s": JS_SPACE_CLASS}


def py_char(ch: str) -> str:
    return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"


@lru_cache(maxsize=256)
def _members(body: str) -> frozenset[str] | None:
    """The (BMP) members of a Python class body, if few: engine text is BMP only."""
    rx = re.compile(f"[{body}]")
    out = [c for c in map(chr, range(0x10000)) if rx.match(c)]
    return frozenset(out) if len(out) <= 4096 else None


def nonfree_class(classes: tuple[str, ...] | None) -> str | None:
    """One Python class for "not in any of ``classes``" (each ``[...]`` or ``[^...]``)."""
    if not classes:
        return None
    positive = [c[1:-1] for c in classes if not c.startswith("[^")]
    negated = [c[2:-1] for c in classes if c.startswith("[^")]
    if not negated:
        return "[^" + "".join(positive) + "]"
    common: frozenset[str] | None = None
    for body in negated:
        members = _members(body)
        if members is None:
            return None
        common = members if common is None else common & members
    assert common is not None
    if positive:
        pos = re.compile("[" + "".join(positive) + "]")
        common = frozenset(c for c in common if pos.match(c) is None)
    if not common:
        return "[^\\x00-\\uffff]"  # nothing is outside the free class
    return "[" + "".join(py_char(c) for c in sorted(common)) + "]"


def class_union(classes: tuple[str, ...] | None) -> str | None:
    if classes is None:
        return None
    if not classes:
        return ""
    return "(?:" + "|".join(classes) + ")"
