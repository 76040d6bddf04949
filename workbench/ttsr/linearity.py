r"""Conditions whose matching time is provably linear in the text (the time bound can skip them).

A backtracking engine is slow only when an attempt can explore many paths. ``provably_linear``
accepts a condition when every attempt's work is bounded by a constant:

* **bounded**: the scanner knows its shape and its forward ``reach`` and ``back`` are finite (no
  ``*``, ``+`` or ``{n,}``; a window of that many units holds every read of an attempt);
* **no nested quantifiers** (a quantified group holding a quantifier) and no back-references;
* a small product of choice points (counted quantifiers and alternatives): at most ``_MAX_PATHS``
  paths per attempt when the pattern is **literal-led** (it starts with a literal unit, so most
  starts fail at the first unit), ``_MAX_PATHS_ANY`` otherwise.

Then a test costs at most ``paths × reach`` steps per start, so a search is linear in the text.
Anything not understood is "not provably linear" and keeps the pre-check.
"""

from __future__ import annotations

from functools import lru_cache

from workbench.ttsr.conditions import CompiledCondition, compile_rule_condition
from workbench.ttsr.literals import LiteralInfo, LiteralParser
from workbench.ttsr.pattern_lexer import QUANTIFIER, ScanAbort, structural_chars
from workbench.ttsr.pattern_shape import INF, UNKNOWN

__all__ = ["provably_linear", "pattern_is_linear"]

_MAX_PATHS = 4096
_MAX_PATHS_ANY = 64
_MAX_REACH = 10_000


class _Walk(LiteralParser):
    """The literal parser, also counting choice points and spotting nested quantifiers."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern, icase=False)
        self.paths: float = 1
        self.nested = False
        self.backref = False
        # `)` index -> its `(` index, to look inside a quantified group.
        self._opens: dict[int, int] = {}
        stack: list[int] = []
        for i, c, _ in structural_chars(pattern):
            if c == "(":
                stack.append(i)
            elif c == ")" and stack:
                self._opens[i] = stack.pop()

    def disjunction(self) -> LiteralInfo:
        start = self.i
        info = super().disjunction()
        inner = self.p[start : self.i]
        alternatives = 1 + sum(1 for _, c, depth in structural_chars(inner) if c == "|" and depth == 0)
        self.paths *= alternatives
        return info

    def _quantified(self, atom: LiteralInfo) -> LiteralInfo:
        m = QUANTIFIER.match(self.p, self.i)
        if m is not None:
            if self.p[self.i - 1 : self.i] == ")" and (self.i - 1) in self._opens:
                inner = self.p[self._opens[self.i - 1] + 1 : self.i - 1]
                # Conservative: any `*`, `+`, `{` or a `?` that does not open a group construct.
                for k, c, _ in structural_chars(inner):
                    if c in "*+{" or (c == "?" and (k == 0 or inner[k - 1] != "(")):
                        self.nested = True
            tok = m.group()
            if tok in ("*", "+") or (m.group(2) and not m.group(3)):
                self.paths = INF  # unbounded (the shape's reach says so too)
            elif tok == "?":
                self.paths *= 2
            elif m.group(2):
                self.paths *= int(m.group(3)) - int(m.group(1)) + 1
        return super()._quantified(atom)

    def atom_escape(self) -> LiteralInfo:
        info = super().atom_escape()
        if info.exact is None and self.p[self.i - 1 : self.i] not in "dDwWsS":
            self.backref = True  # `\1`, `\k<n>`: unknown text that is not a class escape
        return info


def _literal_led(body: str) -> bool:
    i = 0
    while body.startswith(("^", "\\b", "\\B"), i):
        i += 1 if body[i] == "^" else 2
    if i >= len(body):
        return False
    c = body[i]
    if c in ".[(|)*+?{$":
        return False
    if c == "\\":
        nxt = body[i + 1 : i + 2]
        if not nxt or nxt in "dDwWsSbBk" or nxt.isdigit():
            return False
        width = 2
    else:
        width = 1
    quant = QUANTIFIER.match(body, i + width)
    return quant is None or quant.group() not in ("*", "?") and not (quant.group(1) == "0")


def pattern_is_linear(cond: CompiledCondition) -> bool:
    # A lookahead conjunction is judged whole: `explain` and the reference test the whole regex.
    shape = cond.shape
    if shape is UNKNOWN or shape.reach == INF or shape.back == INF or shape.reach > _MAX_REACH:
        return False
    walk = _Walk(cond.source)
    try:
        walk.disjunction()
        if walk.i != len(cond.source):
            return False
    except (ScanAbort, IndexError, AssertionError):
        return False
    if walk.nested or walk.backref or walk.paths == INF:
        return False
    return walk.paths <= (_MAX_PATHS if _literal_led(cond.source) else _MAX_PATHS_ANY)


def provably_linear(rule: object) -> bool:
    """True when every regex condition of ``rule`` is provably linear.

    AST conditions do not count against it: the agent checks them only on a finished tool call (the
    replay does the same, docs/architecture.md), once per file, so their cost is one tree-sitter
    parse of that source and one search per pattern, and ast-grep matches ``$$$`` lazily without
    backtracking. That grows with the call's size, never catastrophically; a time bound on it could
    only cut a long but legitimate check short."""
    patterns = getattr(rule, "condition", None) or ()
    return all(_linear_text(p) if isinstance(p, str) else _linear_condition(p) for p in patterns)


@lru_cache(maxsize=1024)
def _linear_text(pattern: str) -> bool:
    # A function of the pattern text alone, asked for every rule of every batch (a backtest's time
    # bound asks it per batch of sessions): worked out once per pattern.
    return _linear_condition(pattern)


def _linear_condition(pattern: object) -> bool:
    try:
        cond = compile_rule_condition(pattern)  # type: ignore[arg-type]  # (any value, as before: one that is no pattern raises)
    except Exception:  # noqa: BLE001 - the manager skips an invalid condition: it never runs
        return True
    return pattern_is_linear(cond)
