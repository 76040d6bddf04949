from __future__ import annotations

import random

import pytest

from workbench.tree.fuzzy import word_match
from workbench.tree.wordfilter import (
    normalize_many,
    normalized_text,
    query_matcher,
    word_matches,
)

# Texts covering each rule of the word-local scorer: camelCase and acronym splits, digits, a word
# that is the query minus two characters, in-word subsequences, acronyms and non-ASCII letters.
TEXTS = [
    "if (t) clearTimeout(t);",
    "HTMLParser getHTTPResponse",
    "user: question 12 about module42",
    "assistant: [read: /proj/src/f3.ts]",
    "naïve café ÉtéCafé",
    "x2y a1b2 foo_bar",
    "",
    "   ",
    "AD1 zA aBCd",
    "clear time out",
]
QUERIES = ["c", "cl", "cle", "clear", "cleartimeout", "ct", "htmlp", "hp", "gethttp", "ghr", "modul42",
           "module24", "x2y", "yx2", "a1", "ab", "abcd", "caf", "été", "naive", "usr", "clear tim", "", "  ",
           "timeoutx", "rd", "ts"]


@pytest.mark.parametrize("query", QUERIES)
def test_word_matches_agrees_with_the_scorer(query):
    for text in TEXTS:
        expected = word_match(query, text).matches
        assert word_matches(query, normalized_text(text)) is expected, (query, text)
        assert query_matcher(query)(normalized_text(text)) is expected, (query, text)


def test_word_matches_agrees_with_the_scorer_on_random_text():
    rng = random.Random(3)
    words = ["clearTimeout", "HTMLParser", "x2y", "a1b2", "foo_bar", "module42", "ÉtéCafé", "b", "ab"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 6))) for _ in range(300)]
    texts += ["".join(rng.choice("abAB12 _.é") for _ in range(rng.randrange(0, 20))) for _ in range(300)]
    norms = normalize_many(texts)
    queries = ["".join(rng.choice("ab12xyz") for _ in range(rng.randrange(1, 6))) for _ in range(60)]
    for query in queries + QUERIES:
        match = query_matcher(query)
        for text, norm in zip(texts, norms):
            assert match(norm) is word_match(query, text).matches, (query, text)


def test_normalize_many_equals_one_at_a_time():
    rng = random.Random(5)
    alphabet = [chr(c) for c in range(1, 128)] + ["é", "Σ", "😀", "ß"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30))) for _ in range(2000)]
    texts += TEXTS + ["with\x00nul", "ABCdef GHi jKL9Mno"]
    assert normalize_many(texts) == [normalized_text(t) for t in texts]
    assert normalize_many([]) == []
