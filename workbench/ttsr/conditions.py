"""Rule conditions: JavaScript regular expressions, compiled as the reference compiles them.

The reference (``compileRuleCondition``) turns only a *leading* ``(?`` + letters + ``)`` group made of
``i``, ``m`` and ``s`` into RegExp flags; everything else goes verbatim to ``new RegExp`` in
non-unicode mode, and matching is ``RegExp.test`` on the whole buffer. Python's ``re`` differs in many
places (lookbehind, ``\\d`` on non-ASCII digits, ``$`` before a newline, ...), so the engine is ``regress`` (ECMAScript syntax and
semantics) behind the small translation in ``workbench.ttsr.pattern_scanner``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import regress

from workbench.errors import InputError
from workbench.ttsr.code_units import engine_text
from workbench.ttsr.literals import Key, required_literals
from workbench.ttsr.pattern_lexer import structural_chars
from workbench.ttsr.pattern_scanner import PatternSyntaxError, scan
from workbench.ttsr.pattern_shape import UNKNOWN, Shape

_LEADING_FLAGS = re.compile(r"\(\?([a-z]+)\)")
_JS_FLAG_ORDER = "ims"


@dataclass(frozen=True, slots=True)
class CompiledCondition:
    """One compiled condition: the author's pattern, its JS flags and the engine regexes."""

    pattern: str
    source: str
    flags: str
    shape: Shape
    engine_source: str
    regex: regress.Regex = field(compare=False, repr=False)
    # `(?<=[\s\S]{C})(?:P)`: the same pattern restricted to starts at least C units into the
    # searched text, so a window that carries C units of context finds only starts past it.
    gated: regress.Regex | None = field(compare=False, repr=False, default=None)
    context: int = 0
    # `^?(?=[\s\S]*A)(?=[\s\S]*B)...` matches iff each of A, B, ... matches somewhere in the text
    # (the start that satisfies every lookahead can always be 0). Searching the parts separately
    # lets each use its own window instead of rescanning the whole text at every delta.
    parts: tuple[CompiledCondition, ...] | None = field(compare=False, repr=False, default=None)
    # Literals one of which every match contains at or after its start (``workbench.ttsr.literals``);
    # None when unknown (the scanner gave up, or nothing is required).
    literals: frozenset[Key] | None = field(compare=False, repr=False, default=None)

    def test(self, text: str) -> bool:
        """``RegExp.prototype.test`` on ``text`` (search anywhere, ``lastIndex`` 0)."""
        return self.regex.find(engine_text(text)) is not None

    def test_engine(self, etext: str) -> bool:
        """``test`` on text already in engine form (see ``engine_text``)."""
        return self.regex.find(etext) is not None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the successive matches in ``text`` (Python indices of ``text``)."""
        etext = engine_text(text)
        found = self.regex.find_iter(etext) or []
        raw = etext.encode("utf-8", "surrogatepass")
        out: list[tuple[int, int]] = []
        for m in found:
            r = m.range()
            start = engine_to_text_index(text, etext, len(raw[: r.start].decode("utf-8", "surrogatepass")))
            end = engine_to_text_index(text, etext, len(raw[: r.stop].decode("utf-8", "surrogatepass")))
            out.append((start, end))
        return out


def engine_to_text_index(text: str, etext: str, index: int) -> int:
    """Map an index into ``engine_text(text)`` back to ``text`` (astral chars are 2 units there)."""
    if etext is text or len(etext) == len(text):
        return index
    units = 0
    for pos, ch in enumerate(text):
        if units >= index:
            return pos
        units += 2 if ord(ch) >= 0x10000 else 1
    return len(text)


def split_flags(pattern: str) -> tuple[str, str]:
    """(body, flags) per the reference: only a leading all-``ims`` group is translated."""
    m = _LEADING_FLAGS.match(pattern)
    if m is not None and set(m.group(1)) <= set(_JS_FLAG_ORDER):
        flags = "".join(f for f in _JS_FLAG_ORDER if f in m.group(1))
        return pattern[m.end() :], flags
    return pattern, ""


def compile_rule_condition(pattern: str) -> CompiledCondition:
    """Compile one condition like the reference; raises ``InputError`` where JavaScript throws.

    The error text is the engine's own (the reference's warnings carry JSC's text there, which is
    not normative).
    """
    if not isinstance(pattern, str):
        raise InputError(f"condition is not a string: {pattern!r}", field="condition")
    return _compile_cached(pattern)


# `CompiledCondition` is immutable and depends only on the pattern text, so every manager (the
# backtest builds one per session) can share one compilation. `lru_cache` does not store
# exceptions: an invalid pattern is recompiled and raises a fresh, identical `InputError` each time.
@lru_cache(maxsize=4096)
def _compile_cached(pattern: str) -> CompiledCondition:
    body, flags = split_flags(pattern)
    try:
        scanned = scan(body, flags)
    except PatternSyntaxError as exc:
        raise InputError(f"Invalid regular expression: /{body}/{flags}: {exc}", field="condition") from None
    try:
        regex = regress.Regex(scanned.source, flags or None)
    except regress.RegressError as exc:
        raise InputError(f"Invalid regular expression: /{body}/{flags}: {exc}", field="condition") from None
    except BaseException as exc:  # a native panic (pyo3 PanicException) must not escape the manager
        if type(exc).__name__ != "PanicException":
            raise
        raise InputError(f"Invalid regular expression: /{body}/{flags}: {exc}", field="condition") from None
    shape = scanned.shape
    gated = None
    context = 0
    if shape.back != float("inf") and shape.back > 0:
        context = int(shape.back)
        try:
            gated = regress.Regex(f"(?<=[\\s\\S]{{{context}}})(?:{scanned.source})", flags or None)
        except regress.RegressError:
            gated = None  # fall back to full searches
    parts = None
    bodies = lookahead_conjunction(body, flags)
    if bodies:
        try:
            parts = tuple(_compile_cached(f"(?{flags}){b}" if flags else b) for b in bodies)
        except InputError:
            parts = None
    # Only patterns the scanner understood: the literal walk follows the same grammar decisions.
    literals = required_literals(body, flags) if shape is not UNKNOWN else None
    return CompiledCondition(pattern, body, flags, shape, scanned.source, regex, gated, context, parts, literals)


_ANY_STAR = re.compile(r"(?:\[\\s\\S\]|\[\\S\\s\]|\[\\d\\D\]|\[\\D\\d\]|\[\\w\\W\]|\[\\W\\w\]|\[\^\])\*\??")
_DOT_STAR = re.compile(r"\.\*\??")


def lookahead_conjunction(body: str, flags: str) -> list[str] | None:
    """The bodies ``X`` of a pattern made only of ``(?=<any>*X)`` groups (after an optional ``^``).

    ``<any>`` is a class that matches every unit (``[\\s\\S]``, ``[^]``, ...; ``.`` under ``s``).
    Parts with back-references are not split (their group numbers would change).
    """
    i = 1 if body.startswith("^") else 0
    out: list[str] = []
    while i < len(body):
        if not body.startswith("(?=", i):
            return None
        end = _closing_paren(body, i)
        if end is None:
            return None
        inner = body[i + 3 : end]
        m = _ANY_STAR.match(inner) or (_DOT_STAR.match(inner) if "s" in flags else None)
        if m is None:
            return None
        part = inner[m.end() :]
        if re.search(r"\\(?:[1-9]|k<)", part) or "|" in _top_level(part):
            return None
        out.append(part)
        i = end + 1
    return out or None


def _closing_paren(text: str, start: int) -> int | None:
    for i, c, depth in structural_chars(text, start):
        if c == ")" and depth == 0:
            return i
    return None


def _top_level(text: str) -> str:
    """``text`` with groups and classes removed (to spot a top-level ``|``)."""
    return "".join(c for _, c, depth in structural_chars(text) if depth == 0 and c not in "()")
