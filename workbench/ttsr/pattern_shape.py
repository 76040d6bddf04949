"""The shape of a JavaScript regex: what a match can read around its start (for incremental matching).

``workbench.ttsr.window`` re-searches only the tail of a growing buffer, which is sound only if it
knows how far a match can read forward from its start (``reach``), how far back (``back``), whether it
can consume ``\\n`` (``crosses_newline``), and whether a match can disappear when text is appended
(``monotonic`` is false as soon as ``$``, ``\\b``, ``\\B`` or a negative lookaround appears).
``ShapeInfo`` is the per-node summary the scanner (``workbench.ttsr.pattern_scanner``) builds
bottom-up with ``then`` (concatenation), ``union`` (alternation) and ``zero_width`` (lookaround);
``Shape`` is the public result. Anything the scanner does not understand yields ``UNKNOWN``, which
makes the caller fall back to a full search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.ttsr.code_units import engine_text, py_char

__all__ = ["INF", "UNKNOWN", "Shape", "ShapeInfo", "char_info", "engine_text", "join_classes", "literal_info"]

INF = math.inf


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


@dataclass(slots=True)
class ShapeInfo:
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

    def then(self, b: ShapeInfo) -> ShapeInfo:
        return ShapeInfo(
            self.maxw + b.maxw,
            max(self.reach, self.maxw + b.reach),
            max(self.back, b.back),
            self.nl or b.nl,
            self.nonmono or b.nonmono,
            self.caret or b.caret,
            join_classes(self.classes, b.classes),
            self.bcount + b.bcount,
            join_classes(self.uset, b.uset),
        )

    def union(self, b: ShapeInfo) -> ShapeInfo:
        return ShapeInfo(
            max(self.maxw, b.maxw),
            max(self.reach, b.reach),
            max(self.back, b.back),
            self.nl or b.nl,
            self.nonmono or b.nonmono,
            self.caret or b.caret,
            join_classes(self.classes, b.classes),
            max(self.bcount, b.bcount),
            join_classes(self.uset, b.uset),
        )

    def zero_width(self, **changes: object) -> ShapeInfo:
        """This body as a zero-width lookaround: its reads still count toward the barrier."""
        info = ShapeInfo(0, self.reach, self.back, self.nl, self.nonmono, self.caret,
                     self.classes, self.bcount, self.uset)
        for key, value in changes.items():
            setattr(info, key, value)
        return info


def join_classes(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if a is None or b is None:
        return None
    return a + tuple(c for c in b if c not in a)


def char_info(nl: bool, cls: str | None) -> ShapeInfo:
    return ShapeInfo(1, 1, 0, nl, False, False, None if cls is None else (cls,), 1, ())


def literal_info(ch: str, icase: bool) -> ShapeInfo:
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
        cls = f"[{py_char(units)}]"
    return ShapeInfo(width, width, 0, ch == "\n", False, False, None if cls is None else (cls,), width, ())
