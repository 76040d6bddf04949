"""JavaScript's case folding under the ``i`` flag (non-unicode mode), where ``regress`` folds otherwise.

JS compares ``Canonicalize(ch)``: ``toUpperCase(ch)`` when that is one character, except that a
non-ASCII character never canonicalizes to an ASCII one. So ``ſ`` (U+017F, upper ``S``) and ``ı``
(U+0131, upper ``I``) match only themselves, ``s`` never matches ``ſ``, and ``K`` (KELVIN SIGN, its
own upper case) never matches ``k``. ``regress`` folds with Unicode simple case folding instead, and
differently for literals and classes: a probe of every BMP case pair through Bun (the reference's
runtime; tests/ttsr/js_case_fold_probe.js) found 82 pairs where it answers otherwise, all among the
75 characters of ``DIFFERING``. Outside that set both engines agree, so only an atom that can match
one of them is rewritten:

- a literal becomes a case-sensitive class of its JS equivalents, ``s`` → ``(?-i:[Ss])``;
- a class (or ``\\w``-style escape) keeps its folded form for every other character and gets the JS
  answer for the differing ones: ``(?:(?!(?-i:[DIFFERING]))[a-z]|(?-i:[<those JS matches>]))``.

Back-references under ``i`` still compare with ``regress``'s folding (README, known deviations).
"""

from __future__ import annotations

from functools import cache, lru_cache

import regress

# Every character of a (pattern char, subject char) pair where regress and Bun disagree under `i`.
DIFFERING = (
    "IKSiks\u00c5\u00df\u00e5\u0131\u017f\u0398\u03a9\u03b8\u03c9\u03d1\u03f4\u1e9e"
    "\u1f80\u1f81\u1f82\u1f83\u1f84\u1f85\u1f86\u1f87\u1f88\u1f89\u1f8a\u1f8b\u1f8c\u1f8d\u1f8e\u1f8f"
    "\u1f90\u1f91\u1f92\u1f93\u1f94\u1f95\u1f96\u1f97\u1f98\u1f99\u1f9a\u1f9b\u1f9c\u1f9d\u1f9e\u1f9f"
    "\u1fa0\u1fa1\u1fa2\u1fa3\u1fa4\u1fa5\u1fa6\u1fa7\u1fa8\u1fa9\u1faa\u1fab\u1fac\u1fad\u1fae\u1faf"
    "\u1fb3\u1fbc\u1fc3\u1fcc\u1ff3\u1ffc\u2126\u212a\u212b"
)


def canonicalize(ch: str) -> str:
    """ECMAScript ``Canonicalize(rer, ch)`` for a non-unicode, ignore-case pattern."""
    upper = ch.upper()
    if len(upper) != 1:
        return ch
    if ord(ch) >= 128 and ord(upper) < 128:
        return ch
    return upper


@cache
def _equivalents(ch: str) -> str:
    """Every BMP character with the same canonical form as ``ch`` (``ch`` included)."""
    target = canonicalize(ch)
    # Whatever canonicalizes to `target` is `target` itself or has `target` as its upper case.
    found = {ch, target} | {z for z in _upper_inverse().get(target, "") if canonicalize(z) == target}
    return "".join(sorted(found))


@lru_cache(maxsize=1)
def _upper_inverse() -> dict[str, str]:
    """``toUpperCase`` inverted over the BMP, for the canonical forms of ``DIFFERING`` only."""
    wanted = {canonicalize(c) for c in DIFFERING}
    inverse: dict[str, str] = {}
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        upper = chr(cp).upper()
        if upper in wanted:
            inverse[upper] = inverse.get(upper, "") + chr(cp)
    return inverse


def _escape(chars: str) -> str:
    """A class body for ``chars``, runs of consecutive code points written as ranges."""
    cps = sorted({ord(c) for c in chars})
    out: list[str] = []
    i = 0
    while i < len(cps):
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1:
            j += 1
        out.append(f"\\u{cps[i]:04X}" if j < i + 2 else f"\\u{cps[i]:04X}-\\u{cps[j]:04X}")
        if j == i + 1:
            out.append(f"\\u{cps[j]:04X}")
        i = j + 1
    return "".join(out)


_DIFFERING_CLASS = "[" + _escape(DIFFERING) + "]"


@lru_cache(maxsize=1)
def _probe() -> str:
    """Every character the class answers are needed for: the differing ones and their equivalents."""
    return "".join(sorted(set(DIFFERING) | {z for y in DIFFERING for z in _equivalents(y)}))


@lru_cache(maxsize=1024)
def _members(source: str, flags: str) -> frozenset[str]:
    """The probe characters that the one-character ``source`` matches (one search over all of them)."""
    probe = _probe()
    raw = probe.encode("utf-8")
    found = regress.Regex(source, flags or None).find_iter(probe) or []
    return frozenset(raw[m.range().start : m.range().stop].decode("utf-8") for m in found)


@lru_cache(maxsize=1024)
def literal(ch: str) -> str | None:
    """The replacement for literal ``ch`` under ``i``, or ``None`` when ``regress`` already agrees."""
    if len(ch) != 1 or ch not in DIFFERING:
        return None
    return f"(?-i:[{_escape(_equivalents(ch))}])"


@lru_cache(maxsize=4096)
def char_set(source: str) -> str | None:
    """The replacement for class or class escape ``source`` (engine syntax) under ``i``, or ``None``.

    JS matches ``y`` against a class when some member canonicalizes like ``y``; an inverted class
    ``[^...]`` when none does. Membership is evaluated case-sensitively on ``y``'s equivalents.
    """
    inverted = source.startswith("[^")
    try:
        exact = _members(source, "")
        folded = [y for y in DIFFERING if y in _members(source, "i")]
    except regress.RegressError:
        return None
    js: list[str] = []
    for y in DIFFERING:
        eq = _equivalents(y)
        if all(z in exact for z in eq) if inverted else any(z in exact for z in eq):
            js.append(y)
    if js == folded:
        return None
    keep = f"(?!(?-i:{_DIFFERING_CLASS})){source}"
    if not js:
        return f"(?:{keep})"
    return f"(?:{keep}|(?-i:[{_escape(''.join(js))}]))"
