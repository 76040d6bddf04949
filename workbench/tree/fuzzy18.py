"""The word-local fuzzy scorer as pi-tui 18.2.9 ships it (the `/tree` search of omp 18.3.x).

Two things changed since the omp17 scorer in ``fuzzy.word_match``:

* camelCase splitting only looks at ASCII letters again (``éB`` stays one word, ``xB`` splits);
  dropping every other character but letters, marks and numbers is still Unicode-wide;
* a phrase or compact-text hit that is buried inside a word no longer hides a later hit that starts a
  word ("image" in "reimage image"), for needles of three characters or more.

Both change scores; the first also changes which rows match (a word glued to an accented letter).
Everything else (per-word rules, acronyms, letter/digit swaps, span limits) is shared with
``fuzzy``: a token is only ever matched inside one word, as a prefix/substring/short subsequence, or
as the initials of at most ``len + 2`` consecutive words, never by letters scattered across the text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from workbench.tree.fuzzy import (
    NO_MATCH,
    FuzzyMatch,
    WordIndex,
    index_text,
    token_score,
    utf16,
)

__all__ = ["index_text18", "normalize18", "word_match18"]

_ACRONYM_RUN = re.compile(r"([A-Z]+)([A-Z][a-z])")
_ASCII_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD_ASCII = re.compile(r"[^a-z0-9]+")
MIN_RESCAN = 3  # the reference does not rescan needles shorter than this


def normalize18(text: str) -> str:
    """ASCII camel/acronym split, lowercase, runs of non letter/mark/number characters → one space."""
    spaced = _ASCII_CAMEL.sub(r"\1 \2", _ACRONYM_RUN.sub(r"\1 \2", text)).lower()
    if spaced.isascii():
        return _NON_WORD_ASCII.sub(" ", spaced).strip()
    out: list[str] = []
    for ch in spaced:
        if unicodedata.category(ch)[0] in "LMN":
            out.append(ch)
        elif not out or out[-1] != " ":
            out.append(" ")
    return "".join(out).strip()


@lru_cache(maxsize=4096)
def norm_query18(query: str) -> str:
    return utf16(normalize18(query))


def index_text18(text: str) -> WordIndex:
    return index_text(text, normalize18)


def _bounded(norm: str, at: int, length: int) -> bool:
    end = at + length
    return (at == 0 or norm[at - 1] == " ") and (end == len(norm) or norm[end] == " ")


def _phrase_at(norm: str, phrase: str) -> int:
    """First whole-word occurrence of ``phrase``; a leading hit that starts a word is final."""
    if not phrase:
        return -1
    first = norm.find(phrase)
    if first < 0:
        return -1
    if _bounded(norm, first, len(phrase)):
        return first
    if first == 0 or norm[first - 1] == " " or len(phrase) < MIN_RESCAN:
        return -1
    at = norm.find(phrase, first + 1)
    while at >= 0:
        if _bounded(norm, at, len(phrase)):
            return at
        at = norm.find(phrase, at + 1)
    return -1


def _compact_at(index: WordIndex, needle: str) -> int:
    """First occurrence of ``needle`` in the compact text that starts a word."""
    if not needle:
        return -1
    compact, starts = index.compact, index.starts
    first = compact.find(needle)
    if first < 0:
        return -1
    if first in starts:
        return first
    if len(needle) < MIN_RESCAN:
        return -1
    at = compact.find(needle, first + 1)
    while at >= 0:
        if at in starts:
            return at
        at = compact.find(needle, at + 1)
    return -1


def word_match18(query: str, text: str | WordIndex) -> FuzzyMatch:
    """pi-tui 18.2.9 ``fuzzyMatch``: every token must match one word (or initials); lower is better."""
    nq = norm_query18(query)
    if not nq:
        return FuzzyMatch(True, 0)
    index = text if isinstance(text, WordIndex) else index_text18(text)
    if not index.words:
        return NO_MATCH
    tokens = nq.split(" ")
    # Cheap rejection (as in fuzzy.word_match): all but a token's last 3 characters occur in the text.
    for tok in tokens:
        if not index.chars.issuperset(tok[:-3]):
            return NO_MATCH
    total = 0.0
    p = _phrase_at(index.norm, nq)
    # Accumulated in the reference's order so scores agree to the last bit.
    if p >= 0:
        total -= 1000
        total += p * 0.01
    c = _compact_at(index, nq.replace(" ", ""))
    if c >= 0:
        total -= 1200
        total += c * 0.01
    for tok in tokens:
        s = token_score(tok, index, _compact_at)
        if s is None:
            return NO_MATCH
        total += s
    return FuzzyMatch(True, total)
