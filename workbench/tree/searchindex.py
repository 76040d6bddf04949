"""A word index over a `/tree`'s search texts: which rows can match a search token (a superset).

Every row's haystack is split into words (omp / omp18: the normalized text, whose words are runs of
letters, marks and numbers; pi / omp57: the lowered search text split on whitespace). The index maps
each distinct word to the rows holding it. A token's candidate rows are the rows of the words that
pass a per-word test that every real match implies, found with one C-speed regex over the vocabulary
joined by newlines, so a keystroke costs the vocabulary scan plus the candidates, not 100k Python
calls. The caller then runs the exact scorer on the candidates only, which keeps the answers identical.

Why the word tests are sound (a row that matches has a word passing them):

* pi / omp57 (substring): a token holds no whitespace, so an occurrence lies inside one word. Exact.
* omp17 / omp18 (word-local scorer, ``wordfilter`` / ``wordfilter18``), for the token or one of its
  letter/digit swaps ``v``: the token inside one word or as an in-word subsequence → ``v`` is a
  subsequence of a word; a word equal to ``v`` minus one or two characters → a word is a prefix of
  ``v``; the compact-text hit at a word start → that word is a prefix of ``v`` or starts with ``v``
  (so holds it as a subsequence); the acronym rule (2–4 characters) → ``v`` is a subsequence of
  the row's word initials (the greedy walk picks words starting with ``v[0]``, ``v[1]``, … in order).
  The initials of every row are one more newline-joined string, scanned the same way.

Property tests compare filtering with and without the index over generated sessions and queries.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable

__all__ = ["SearchIndex"]

# Everything but a word's first character and the row ends: the rest of each word, and the spaces
# (an empty replacement keeps the substitution in C).
_NOT_INITIAL = re.compile("(?<=[^ \n])[^ \n]+| ")
_NEWLINE = re.compile("\n")


class SearchIndex:
    """Distinct words of the haystacks, their rows, and the vocabulary as one string for regex scans."""

    __slots__ = ("fuzzy", "_words", "_rows", "_id", "_joined", "_starts", "_initials", "_row_starts")

    def __init__(self, haystacks: Iterable[str], *, fuzzy: bool) -> None:
        """``haystacks[n]`` is row ``n``'s text; ``fuzzy``: word-local scorer words, else substring chunks."""
        self.fuzzy = fuzzy
        rows_of: defaultdict[str, list[int]] = defaultdict(list)
        texts = haystacks if isinstance(haystacks, list) else list(haystacks)
        for n, text in enumerate(texts):
            # A word twice in a row lists the row twice: harmless for the set unions below, and
            # cheaper than deduplicating 100k rows.
            for word in (text.split(" ") if fuzzy else text.split()):
                rows_of[word].append(n)
        rows_of.pop("", None)
        self._words = list(rows_of)
        self._rows = list(rows_of.values())
        self._id = {w: i for i, w in enumerate(self._words)}
        starts: list[int] = []
        pos = 0
        for w in self._words:
            starts.append(pos)
            pos += len(w) + 1
        self._starts = starts
        # Words never hold "\n" (fuzzy words are letters and digits; chunks have no whitespace).
        self._joined = "\n".join(self._words)
        self._initials = ""
        self._row_starts: list[int] = []
        if fuzzy:
            # Each row's words → their first characters, rows one per line: one regex pass in C.
            self._initials = _NOT_INITIAL.sub("", "\n".join(texts))
            starts = [0]
            starts += [m.end() for m in _NEWLINE.finditer(self._initials)]
            self._row_starts = starts

    @property
    def vocabulary_size(self) -> int:
        return len(self._words)

    def _scan(self, pattern: str, text: str | None = None, starts: list[int] | None = None) -> set[int]:
        """Lines of ``text`` (default: words of the vocabulary) in which ``pattern`` matches; the
        pattern then eats the rest of the line, so each line is reported once."""
        text = self._joined if text is None else text
        starts = self._starts if starts is None else starts
        return {bisect_right(starts, m.start()) - 1 for m in re.finditer(pattern + "[^\n]*", text)}

    def _word_ids(self, variant: str) -> set[int]:
        esc = [re.escape(c) for c in variant]
        if not self.fuzzy:
            return self._scan("".join(esc))
        # ``variant`` as a subsequence of a word, or a word that is a prefix of it.
        ids = self._scan(_subsequence(esc))
        get = self._id.get
        for j in range(1, len(variant)):
            i = get(variant[:j])  # a word that is a prefix of the variant
            if i is not None:
                ids.add(i)
        return ids

    def sure_and_candidates(self, variants: Iterable[str], word_rule: Callable[[str, str], bool]) -> tuple[set[int], set[int]]:
        """(rows where a word passes ``word_rule`` for a variant, rows that can match at all).

        ``word_rule(v, word)`` is the scorer's own per-word test (it sees one word, nothing else; a
        word that contains ``v`` passes it, so that case skips the call): a
        row holding such a word matches by it, with no need to run the scorer on the row (the caller
        still applies the row-level gates). The other candidates (a word that is a prefix of the
        variant, for a compact hit across words; the acronym rule) need the scorer.
        """
        words = self._words
        sure_ids: set[int] = set()
        maybe_ids: set[int] = set()
        rows: set[int] = set()
        for v in variants:
            if not v:
                continue
            for i in self._word_ids(v):
                w = words[i]
                if v in w or word_rule(v, w):  # a word holding the variant passes every scorer's rules
                    sure_ids.add(i)
                else:
                    maybe_ids.add(i)
            if self.fuzzy and 2 <= len(v) <= 4:
                rows |= self._scan(_subsequence([re.escape(c) for c in v]), self._initials, self._row_starts)
        all_rows = self._rows
        sure: set[int] = set()
        for i in sure_ids:
            sure.update(all_rows[i])
        for i in maybe_ids - sure_ids:
            rows.update(all_rows[i])
        rows |= sure
        return sure, rows

    def candidates(self, variants: Iterable[str]) -> set[int]:
        """Rows with a word that can match one of ``variants`` (a token and its swap retries)."""
        ids: set[int] = set()
        rows: set[int] = set()
        for v in variants:
            if v:
                ids |= self._word_ids(v)
                if self.fuzzy and 2 <= len(v) <= 4:  # the acronym rule: rows straight from the initials
                    rows |= self._scan(_subsequence([re.escape(c) for c in v]), self._initials, self._row_starts)
        all_rows = self._rows
        for i in ids:
            rows.update(all_rows[i])
        return rows


def _subsequence(esc: list[str]) -> str:
    """The characters in order within one line: each next one is the first after the previous (the
    classes exclude it, so the scan is linear, no backtracking blow-up)."""
    return esc[0] + "".join(f"[^\n{e}]*{e}" for e in esc[1:])
