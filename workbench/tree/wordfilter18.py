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

from collections.abc import Callable
from functools import lru_cache, partial

from workbench.tree.fuzzy import utf16
from workbench.tree.fuzzy18 import MIN_RESCAN, norm_query18, normalize18
from workbench.tree.wordfilter import direct_check, normalize_many, tokens_matcher

__all__ = ["normalized18", "normalized18_many", "query_matcher18"]


def normalized18(text: str) -> str:
    """What ``fuzzy18.index_text18`` indexes: ``normalize18`` in UTF-16 units."""
    return utf16(normalize18(text))


def normalized18_many(texts: list[str]) -> list[str]:
    """``normalized18`` of every text. On ASCII text ``normalize18`` and omp17's ``normalize_words``
    split, lower and strip identically (the camelCase difference is about non-ASCII letters), so the
    batch path of ``normalize_many`` serves ASCII texts; the others are normalized one by one."""
    return normalize_many(texts, fallback=normalized18)


def query_tokens18(query: str) -> list[str] | None:
    """The normalized tokens of a query as pi-tui 18 splits them; None when nothing is left (all match)."""
    nq = norm_query18(query)
    return nq.split(" ") if nq else None


@lru_cache(maxsize=256)
def query_matcher18(query: str) -> Callable[[str], bool]:
    """``lambda norm: word_match18(query, text).matches`` where ``norm = normalized18(text)``."""
    return tokens_matcher(query_tokens18(query), partial(direct_check, rescan_min=MIN_RESCAN))
