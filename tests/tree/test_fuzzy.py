from __future__ import annotations

import pytest

from workbench.tree.fuzzy import (
    classic_match,
    fuzzy_filter,
    normalize_words,
    word_match,
)


def test_classic_first_char_counts_as_consecutive():
    # quirk: at i = 0 the previous match index -1 equals i - 1
    assert classic_match("a", "a", "classic_tui").score == pytest.approx(-15)


def test_classic_boundary_sets_differ():
    assert classic_match("b", "a:b", "omp57_utils").score == pytest.approx(0.2)
    assert classic_match("b", "a:b", "classic_tui").score == pytest.approx(-9.8)


def test_swaps():
    assert not classic_match("codex52", "gpt-5.2-codex", "classic_tui").matches
    assert classic_match("codex52", "gpt-5.2-codex", "pimono_tui").matches
    assert classic_match("4ogpt", "gpt-4o", "omp_adjswap_2026_05").matches is False
    assert classic_match("tgp4o", "gpt-4o", "omp_adjswap_2026_05").matches is False


def test_normalize_words():
    assert normalize_words("HTMLParser camelCase v2Beta") == "html parser camel case v2 beta"
    assert normalize_words("文件搜索/ÉtéFoo") == "文件搜索 été foo"


def test_word_match_prefers_exact_words():
    exact = word_match("auth", "the auth module")
    inside = word_match("auth", "oauthish")
    assert exact.matches and inside.matches and exact.score < inside.score
    assert not word_match("xyz", "abc").matches
    assert word_match("", "anything").score == 0


def test_filter_ranks_and_keeps_all_for_blank_query():
    items = ["a_p_p", "app", "application"]
    assert fuzzy_filter(items, "  ", lambda s: s) == items
    assert fuzzy_filter(items, "app", lambda s: s)[0] == "app"


def test_token_may_run_two_characters_past_a_word():
    # rule 3 of the word scorer: the quick character pre-check must not reject this
    assert word_match("module42", "user question about module4").matches
    assert word_match("module42", "about module").matches
    assert not word_match("modxle42", "about module4").matches


def test_prefilter_never_rejects_a_match():
    import random

    from workbench.tree.fuzzy import word_prefilter

    rng = random.Random(7)
    vocab = ["module42", "module4", "Auth", "authModule", "gpt-4o", "codex52", "HTMLParser", "x", "ab", "léa",
             "文件搜索", "clearTimeout", "time", "out", "o4"]
    queries = ["module42", "modul", "gpt4o", "4ogpt", "ab", "abcd", "codex25", "html parser", "hp", "cleartime",
               "timeout", "mdl", "léa", "搜索", "o4", "xx yy"]
    for _ in range(600):
        text = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 4)))
        for q in queries:
            pattern = word_prefilter(q)
            if word_match(q, text).matches and pattern is not None:
                assert pattern.search(text.lower()), (q, text)
