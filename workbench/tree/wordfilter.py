"""The yes/no answer of the word-local scorer, fast enough to run on every row of a 100k-entry tree.

``word_match(query, text).matches`` builds a word index of the text and scores every word; the `/tree`
filter (omp17) only needs the boolean. ``word_matches(query, norm)`` answers it from the text's
normalized form (``normalized_text``) with string searches and small regexes, one rule at a time, in
the same order of cases as ``fuzzy.direct_score`` so the answer is identical (a fuzz test pins it):

* the whole token in the compact text, first occurrence at a word start;
* the token inside one word (covers ``word == tok`` and prefixes);
* a word that is the token minus its last one or two characters;
* the token as a subsequence of one word within the span limit (greedy from the word's start);
* the acronym rule for 2–4 character tokens;
* then the same for each adjacent letter/digit swap of the token.

``normalize_many`` normalizes many texts in one regex pass over their concatenation (ASCII texts),
which is what makes the first keystroke of a search cheap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from workbench.tree.fuzzy import (
    adjacent_swaps,
    normalize_cached,
    normalize_words,
    utf16,
)

__all__ = ["norm_matches", "query_matcher", "normalize_many", "normalized_text", "word_matches", "word_query"]

_SEP = "\x00"
# Character classes of ASCII text, so the split rules of ``normalize_words`` become literal searches
# (fast in C): with "a" = lowercase or digit and "A" = uppercase, camelCase is "aA" (space before the
# "A"); with "a" = lowercase only, an acronym run is "AAa" (space between the two "A"s).
def _classes(digit: str) -> dict[int, str]:
    return str.maketrans({chr(c): ("a" if chr(c).islower() else digit if chr(c).isdigit() else
                                   "A" if chr(c).isupper() else _SEP if chr(c) == _SEP else " ") for c in range(128)})


_CAMEL_CLASSES = _classes("a")
_ACRONYM_CLASSES = _classes(" ")
# Lowercase letters and digits kept, uppercase lowered, every other character a space (separator kept).
_FOLD = str.maketrans({chr(c): (chr(c).lower() if chr(c).isalnum() else _SEP if chr(c) == _SEP else " ")
                       for c in range(128)})
_CAMEL_AT = re.compile("aA")
_ACRONYM_AT = re.compile("AAa")
_SPACES = re.compile("  +")


def normalized_text(text: str) -> str:
    """What ``fuzzy.index_text`` indexes: ``normalize_words`` in UTF-16 units."""
    return utf16(normalize_words(text))


def normalize_many(texts: list[str], fallback: Callable[[str], str] | None = None) -> list[str]:
    """``normalized_text`` of every text; ASCII texts are done together with a few passes in C.

    ``fallback`` normalizes the other texts (default ``normalized_text``; omp 18 passes its own).
    """
    out: list[str | None] = [None] * len(texts)
    ascii_idx = [i for i, t in enumerate(texts) if t.isascii() and _SEP not in t]
    if ascii_idx:
        joined = _SEP.join(texts[i] for i in ascii_idx)
        # The separator is neither a letter nor a digit: no split rule fires across it.
        cuts = sorted([m.start() + 1 for m in _CAMEL_AT.finditer(joined.translate(_CAMEL_CLASSES))] +
                      [m.start() + 1 for m in _ACRONYM_AT.finditer(joined.translate(_ACRONYM_CLASSES))])
        if cuts:
            pieces = []
            prev = 0
            for c in cuts:
                pieces.append(joined[prev:c])
                prev = c
            pieces.append(joined[prev:])
            joined = " ".join(pieces)
        # Collapse space runs and drop spaces next to separators: each part is then stripped already
        # (the very first and last parts have no separator on their outer side: strip them).
        folded = _SPACES.sub(" ", joined.translate(_FOLD)).replace(" " + _SEP, _SEP).replace(_SEP + " ", _SEP)
        parts = folded.split(_SEP)
        parts[0] = parts[0].strip(" ")
        parts[-1] = parts[-1].strip(" ")
        for i, part in zip(ascii_idx, parts):
            out[i] = part
    one = fallback or normalized_text
    for i, t in enumerate(texts):
        if out[i] is None:
            out[i] = one(t)
    return out  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class _TokenRules:
    tok: str
    compact: re.Pattern[str]  # the token in the compact text: its characters with optional spaces
    shorter: tuple[str, ...]  # tok minus its last 1 or 2 characters (a word equal to one matches)
    subseq: re.Pattern[str]  # necessary condition of the in-word subsequence rule
    limit: int  # the subsequence rule's span limit


@lru_cache(maxsize=512)
def token_rules(tok: str) -> _TokenRules:
    m = len(tok)
    esc = [re.escape(c) for c in tok]
    compact = re.compile(" ?".join(esc))
    shorter = tuple(tok[:j] for j in range(max(1, m - 2), m))
    limit = max(m + 2, math.ceil(1.8 * m))
    gap = max(0, limit - m)
    # Between two matched characters the greedy scan skips neither a space nor the next character.
    subseq = re.compile(esc[0] + "".join(f"[^ {esc[i]}]{{0,{gap}}}{esc[i]}" for i in range(1, m)))
    return _TokenRules(tok, compact, shorter, subseq, limit)


def greedy_span(tok: str, word: str) -> int | None:
    """``fuzzy._scan`` without scores: the span of the greedy match of ``tok`` in ``word``, or None."""
    qi = 0
    first = -1
    last = -1
    m = len(tok)
    for i, ch in enumerate(word):
        if qi >= m:
            break
        if ch == tok[qi]:
            if first < 0:
                first = i
            last = i
            qi += 1
    return last - first + 1 if qi == m else None


def _direct(tok: str, norm: str) -> bool:
    r = token_rules(tok)
    m = r.compact.search(norm)
    if m is not None and (m.start() == 0 or norm[m.start() - 1] == " "):
        return True
    if tok in norm:
        return True
    for w in r.shorter:  # a whole word equal to w (plain substring searches are the fastest test)
        if w in norm and (norm == w or norm.startswith(w + " ") or norm.endswith(" " + w) or f" {w} " in norm):
            return True
    if r.subseq.search(norm) is not None:
        n = len(tok)
        for word in norm.split(" "):
            if n <= len(word) and tok[0] in word:
                span = greedy_span(tok, word)
                if span is not None and span <= r.limit:
                    return True
    if 2 <= len(tok) <= 4:
        return acronym_matches(tok, norm)
    return False


def acronym_matches(tok: str, norm: str) -> bool:
    """Greedy: the first word starting with tok[0], then the next word starting with tok[1], …"""
    if norm.startswith(tok[0]):
        first = 0
    else:
        k = norm.find(" " + tok[0])
        if k < 0:
            return False
        first = k + 1
    pos = first
    for ch in tok[1:]:
        k = norm.find(" " + ch, pos)
        if k < 0:
            return False
        pos = k + 1
    span = norm.count(" ", first, pos) + 1
    return span <= len(tok) + 2


@lru_cache(maxsize=512)
def swaps(tok: str) -> tuple[str, ...]:
    return tuple(adjacent_swaps(tok))


def _token(tok: str, norm: str) -> bool:
    if _direct(tok, norm):
        return True
    return any(_direct(s, norm) for s in swaps(tok))


def word_query(query: str) -> list[str] | None:
    """The normalized tokens of a query; None when it normalizes to nothing (matches everything)."""
    nq = utf16(normalize_cached(query))
    return nq.split(" ") if nq else None


def word_matches(query: str, norm: str) -> bool:
    """``fuzzy.word_match(query, text).matches`` where ``norm = normalized_text(text)``."""
    toks = word_query(query)
    return True if toks is None else norm_matches(toks, norm)


def norm_matches(toks: list[str], norm: str) -> bool:
    """``word_matches`` for the tokens ``word_query`` gave."""
    if not norm:
        return False
    for tok in toks:
        for c in tok[:-3]:
            if c not in norm or c == " ":
                return False
    return all(_token(tok, norm) for tok in toks)


def direct_check(tok: str, rescan_min: int | None = None) -> Callable[[str], bool]:
    """``direct_score(tok, ·) is not None`` with everything about the token worked out once (it runs once per row).

    ``rescan_min``: pi-tui 18's one different rule (``fuzzy18._compact_at``): for needles at least
    that long, any compact hit that starts a word counts, not only the first one found."""
    r = token_rules(tok)
    compact_search = r.compact.search
    at_word_start = (re.compile("(?<![^ ])" + r.compact.pattern).search
                     if rescan_min is not None and len(tok) >= rescan_min else None)
    subseq_search = r.subseq.search
    shorter = [(w, w + " ", " " + w, f" {w} ") for w in r.shorter]
    limit = r.limit
    n = len(tok)
    first = tok[0]
    acronym = 2 <= n <= 4

    def check(norm: str) -> bool:
        if tok in norm:
            return True
        if at_word_start is not None:
            if at_word_start(norm) is not None:
                return True
        else:
            m = compact_search(norm)
            if m is not None and (m.start() == 0 or norm[m.start() - 1] == " "):
                return True
        for w, head, tail, mid in shorter:
            if w in norm and (norm == w or norm.startswith(head) or norm.endswith(tail) or mid in norm):
                return True
        if subseq_search(norm) is not None:
            for word in norm.split(" "):
                if n <= len(word) and first in word:
                    span = greedy_span(tok, word)
                    if span is not None and span <= limit:
                        return True
        return acronym and acronym_matches(tok, norm)

    return check


def tokens_matcher(toks: list[str] | None, make_check: Callable[[str], Callable[[str], bool]]) -> Callable[[str], bool]:
    """A row matcher for a query's tokens: every token (or one of its letter/digit swaps) must pass
    ``make_check(token)``; the characters every match needs reject most rows first."""
    if toks is None:
        return lambda norm: True
    required = "".join(sorted({c for tok in toks for c in tok[:-3]}))
    token_checks = [[make_check(v) for v in (tok, *swaps(tok))] for tok in toks]

    def match(norm: str) -> bool:
        if not norm:
            return False  # no words: no match
        for c in required:
            if c not in norm:
                return False
        for variants in token_checks:
            for check in variants:
                if check(norm):
                    break
            else:
                return False
        return True

    return match


@lru_cache(maxsize=256)
def query_matcher(query: str) -> Callable[[str], bool]:
    """``lambda norm: word_matches(query, norm)``, compiled once per query for use on many rows."""
    return tokens_matcher(word_query(query), direct_check)
