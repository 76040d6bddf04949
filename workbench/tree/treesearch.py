"""The search side of ``FlatTree``: the word index, its background build, and filtering with it.

A ``FlatTree`` holds one ``TreeSearch`` (``tree.finder``) and hands it the functions that read its
per-row caches (normalized and lowered texts, ancestor chains); the search keeps its own state (the
index, the build thread) and ``FlatTree.filtered`` asks ``word_filter`` / ``candidates`` for each search
token. The index (``searchindex.SearchIndex``) only narrows the rows the exact scorer sees, so answers
never change.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Literal

from workbench.sessions.entries import paused_gc
from workbench.tree.flavour import TreeFlavour
from workbench.tree.fuzzy import Word, word_score
from workbench.tree.searchindex import SearchIndex
from workbench.tree.wordfilter import swaps

__all__ = ["INDEX_MIN_ROWS", "IndexMode", "TreeSearch"]

# Below this many rows a search scans every row (a few ms): no index, no thread.
INDEX_MIN_ROWS = 2000
# Seconds the build thread waits, once the index is there, before its full collection (see
# ``_build_in_background``): the search typed while the index was built is answered first.
COLLECT_AFTER = 2.0
IndexMode = Literal["auto", "later", "background", "now", "off"]


def _word_rule(tok: str, word: str) -> bool:
    """The scorer's per-word rules (``fuzzy.word_score``, shared by omp17 and omp18) for one word."""
    return word_score(tok, Word(word, 0, 0)) is not None


class TreeSearch:
    """The word index of one tree's rows and the filters that use it."""

    def __init__(self, flavour: TreeFlavour, count: int, *, normalized: Callable[[list[int]], list[str]],
                 lowered: Callable[[list[int]], list[str]], ancestor_chain: Callable[[int], list[int]],
                 index: IndexMode) -> None:
        self.flavour = flavour
        self.normalized = normalized
        self.lowered = lowered
        self._ancestor_chain = ancestor_chain
        self._count = count
        self.chain_hints: list[int] = []  # nodes whose ancestor chains the background build prepares
        self.index: SearchIndex | None = None
        self._thread: threading.Thread | None = None
        self._built = threading.Event()  # the background build has ended (the index is there, or it failed)
        self._building = threading.Lock()
        self._mode: IndexMode = index
        # ``later``: as ``auto``, but the background build waits for ``start_search_index`` (the app
        # starts it once the first rows are on screen: a build beside them held the GIL for seconds
        # on a 1 GB session; docs/large-sessions.md). A search before that builds it at once.
        self._due = index == "later" and count >= INDEX_MIN_ROWS
        if index == "now":
            self.build_search_index()
        elif index == "background" or (index == "auto" and count >= INDEX_MIN_ROWS):
            self.start_search_index()

    def haystacks(self) -> list[str]:
        """Every node's text as the flavour's search compares it (filled once, then cached)."""
        rows = list(range(self._count))
        return self.normalized(rows) if self.flavour.word_search else self.lowered(rows)

    def build_search_index(self) -> SearchIndex:
        """Build the word index now (or wait for the background build); idempotent."""
        if self.index is None:
            thread = self._thread
            if thread is not None and thread is not threading.current_thread():
                self._built.wait()  # the index, not the thread's end: the thread collects garbage after it
            with self._building:  # a search's build (``later``) and a thread started meanwhile: one build
                if self.index is None:
                    self.index = SearchIndex(self.haystacks(), fuzzy=self.flavour.word_search)
        return self.index

    def start_search_index(self) -> None:
        """Build the index in a daemon thread; a search meanwhile waits for it (the work is shared)."""
        if self.index is None and self._thread is None:
            self._thread = threading.Thread(target=self._build_in_background, name="tree-search-index",
                                                  daemon=True)
            self._thread.start()

    @property
    def index_building(self) -> bool:
        """A background build has started, or is due to (``later``), and the index is not there yet."""
        thread = self._thread
        if thread is None:
            return self.index is None and self._due
        return self.index is None and thread.is_alive()

    def wait_index(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` seconds) until the index is built; True once no build is running."""
        if self._due:
            self.start_search_index()
        thread = self._thread
        if self.index is None and thread is not None and thread is not threading.current_thread():
            self._built.wait(timeout)
        return not self.index_building

    def _build_in_background(self) -> None:
        try:
            with paused_gc():  # ~1M new objects: no collector passes while they are made
                self.build_search_index()
        finally:
            self._built.set()
        with paused_gc():
            # The selection's chain of ancestors, which a keystroke that hides it walks (100k steps
            # on a long chain): ready before the first such keystroke.
            for n in list(self.chain_hints):
                self._ancestor_chain(n)
        # Loading paused the collector over millions of new containers; its first passes after that
        # walk all of them (0.3-0.5 s each) and would land on the first keystrokes. One full pass,
        # while the user is still looking at the opened tree, makes them old: later keystrokes meet
        # only young-generation passes. (It frees nothing of ours: these structures are acyclic.)
        # It holds the GIL throughout (0.5-1.3 s on 100,000 entries), so it waits: a search typed
        # while the index was built, and the count's "indexing…", waited for it before
        # (docs/large-sessions.md).
        time.sleep(COLLECT_AFTER)
        gc.collect()

    def _search_index(self) -> SearchIndex | None:
        if self.index is not None:
            return self.index
        if self._thread is not None or self._mode == "now" or self._due:
            return self.build_search_index()
        return None

    def word_filter(self, rows: list[int], subtokens: list[str], match: Callable[[str], bool]) -> list[int]:
        """omp17 / omp18: ``rows`` whose normalized text ``match`` accepts, asking ``match`` only where
        the index cannot answer by itself.

        A row holding, for every subtoken, a word that passes the scorer's per-word rules (in the word,
        a prefix of it, the token minus its last one or two characters, a short subsequence) matches
        once the scorer's row-level gates pass: a non-empty text (it has words) and the characters
        check (all but each token's last three characters occur in the text).
        """
        index = self._search_index()
        norm = None
        if index is not None and all(subtokens) and all(len(tok) == 1 and not swaps(tok) for tok in subtokens):
            # One-character tokens: the index would give the rows with a word holding each (no
            # swap, prefix or acronym rule applies to one character), all sure; a substring test
            # per row finds the same rows without the candidates (a digit is in half the
            # vocabulary: 20 ms of them).
            norm = self.normalized(rows)
            for tok in subtokens:
                rows = [n for n in rows if tok in norm[n]]
            return rows
        if index is not None and all(subtokens):
            sure: set[int] | None = None
            cand: set[int] | None = None
            for tok in subtokens:
                s, c = index.sure_and_candidates((tok, *swaps(tok)), _word_rule)
                sure = s if sure is None else sure & s
                cand = c if cand is None else cand & c
            assert sure is not None and cand is not None
            rows = [n for n in rows if n in cand]
            norm = self.normalized(rows)
            required = sorted({ch for tok in subtokens for ch in tok[:-3]})
            if not required:  # tokens of three characters or fewer: no characters check
                return [n for n in rows if n in sure or match(norm[n])]
            # The sure rows holding every required character, one character per pass (a plain ``in``
            # test per row: a generator per row cost 0.5 µs, 30 ms on 60k rows).
            ready = [n for n in rows if n in sure]
            for ch in required:
                ready = [n for n in ready if ch in norm[n]]
            passing = set(ready)
            return [n for n in rows if n in passing or match(norm[n])]
        norm = self.normalized(rows)
        return [n for n in rows if match(norm[n])]

    def candidates(self, subtokens: list[str]) -> set[int] | None:
        """Rows that can match every normalized subtoken (None: no index, every row is a candidate)."""
        index = self._search_index()
        if index is None or not all(subtokens):
            return None
        found: set[int] | None = None
        for tok in subtokens:
            rows = index.candidates((tok, *swaps(tok)) if index.fuzzy else (tok,))
            found = rows if found is None else found & rows
            if not found:
                break
        return found
