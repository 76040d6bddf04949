"""The `/tree` selector of the agents as pure state: list, layout, keys, footer, search and each version's selector.

A ``TreeList`` is built over a ``sessions.SessionTree`` (this package reads sessions, ``workbench.sessions``
never reads this one). What differs between the agents' selectors is one ``TreeFlavour`` object per
followed version (modules ``omp17``, ``omp18``, ``pi``, ``omp57``), which also carries that version's
file rules (``sessions.flavors.SessionFlavour``); docs/flavours.md says which quirk each reproduces.

Public API (other packages code against these names):

* ``TreeList`` / ``TreeRow``: the `/tree` selector as pure state (filters, search, selection, rows);
  ``rows(start, stop)`` renders only a slice (the UI's window); states of one family share caches.
  ``FILTER_MODES`` / ``FILTER_TAGS``: filter mode names and their footer tags.
* ``REGISTRY`` / ``flavour(name)`` / ``TreeFlavour``: one selector object per followed version, in the
  order of ``sessions.FLAVOURS``; ``flavour`` gives the object of a name or alias (``omp17`` → ``omp``).
* ``classic_match`` / ``word_match`` / ``word_match18`` / ``fuzzy_filter``: the fuzzy scorers (classic,
  omp17's word-local one, and pi-tui 18.2.9's).
* ``word_matches(query, norm)`` / ``query_matcher(query)`` / ``normalized_text`` / ``normalize_many``:
  the word scorer's yes/no answer on pre-normalized text, fast enough for every row of a big tree.
* ``time_tree(n)``: the tree-speed figure for ``benchmarks/``.
"""

from __future__ import annotations

from workbench.tree.flavors import REGISTRY, TreeFlavour, flavour
from workbench.tree.fuzzy import FuzzyMatch, classic_match, fuzzy_filter, word_match
from workbench.tree.fuzzy18 import word_match18
from workbench.tree.speed import time_tree
from workbench.tree.treelist import FILTER_MODES, FILTER_TAGS, TreeList, TreeRow
from workbench.tree.wordfilter import (
    normalize_many,
    normalized_text,
    query_matcher,
    word_matches,
)

__all__ = [
    "FILTER_MODES",
    "FILTER_TAGS",
    "REGISTRY",
    "FuzzyMatch",
    "TreeFlavour",
    "TreeList",
    "TreeRow",
    "classic_match",
    "flavour",
    "fuzzy_filter",
    "normalize_many",
    "normalized_text",
    "query_matcher",
    "time_tree",
    "word_match",
    "word_match18",
    "word_matches",
]
