"""The yes/no answer of pi-tui 18.2.9's scorer (omp 18.3 `/tree` search) without building a word index.

``fuzzy18.word_match18(q, text).matches`` builds a ``WordIndex`` per row (tuples of words, frozensets),
which on 100k rows costs over a second per keystroke. ``query_matcher18(q)(normalized18(text))`` gives
the same boolean from the text's normalized form, reusing ``wordfilter``'s rule checks: the per-word
rules, acronyms, letter/digit swaps and the cheap character rejection are shared with omp17. The one
rule that differs is the compact-text hit (``fuzzy18._compact_at``): for needles of three characters or
more, any occurrence that starts a word counts, not only the first. The match ``score`` is not needed
by the filter (the `/tree` list keeps display order), so it is not computed. A fuzz test pins equality.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from workbench.sessions.fuzzy import utf16
from workbench.sessions.fuzzy18 import MIN_RESCAN, norm_query18, normalize18
from workbench.sessions.wordfilter import acronym_matches, greedy_span, normalize_many, swaps, token_rules

__all__ = ["normalized18", "normalized18_many", "query_matcher18"]


def normalized18(text: str) -> str:
    """What ``fuzzy18.index_text18`` indexes: ``normalize18`` in UTF-16 units."""
    return utf16(normalize18(text))


def normalized18_many(texts: list[str]) -> list[str]:
    """``normalized18`` of every text. On ASCII text ``normalize18`` and omp17's ``normalize_words``
    split, lower and strip identically (the camelCase difference is about non-ASCII letters), so the
    batch path of ``normalize_many`` serves ASCII texts; the others are normalized one by one."""
    return normalize_many(texts, fallback=normalized18)


def _direct_check18(tok: str) -> Callable[[str], bool]:
    """``fuzzy18._direct18(tok, index) is not None`` from the normalized text."""
    r = token_rules(tok)
    compact_search = r.compact.search
    # A compact hit starting a word = the token's characters, single spaces allowed between them,
    # right after a space or at the start of the text.
    at_word_start = re.compile("(?<![^ ])" + r.compact.pattern).search if len(tok) >= MIN_RESCAN else None
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


def query_tokens18(query: str) -> list[str] | None:
    """The normalized tokens of a query as pi-tui 18 splits them; None when nothing is left (all match)."""
    nq = norm_query18(query)
    return nq.split(" ") if nq else None


@lru_cache(maxsize=256)
def query_matcher18(query: str) -> Callable[[str], bool]:
    """``lambda norm: word_match18(query, text).matches`` where ``norm = normalized18(text)``."""
    toks = query_tokens18(query)
    if toks is None:
        return lambda norm: True
    required = "".join(sorted({c for tok in toks for c in tok[:-3]}))
    token_checks = [[_direct_check18(v) for v in (tok, *swaps(tok))] for tok in toks]

    def match(norm: str) -> bool:
        if not norm:
            return False  # no words: NO_MATCH
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
