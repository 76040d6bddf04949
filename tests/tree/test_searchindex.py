"""The `/tree` search word index is a sound over-approximation: with it, without it and with the
reference scorers run on every row, generated sessions and queries give the same visible rows."""

from __future__ import annotations

import random
import threading

import pytest

from workbench.tree.flattree import FILTER_MODES
from workbench.tree.fuzzy import word_match
from workbench.tree.fuzzy18 import word_match18
from workbench.tree.searchindex import SearchIndex
from workbench.tree.treelist import TreeList
from workbench.tree.wordfilter import swaps
from workbench.tree.wordfilter18 import normalized18, normalized18_many, query_matcher18

# Pieces that exercise every rule: camelCase and acronym runs, digits next to letters (swap
# retries), words that are a query minus two characters, accented letters (omp18 splits camelCase on
# ASCII only), an astral character (UTF-16 units), punctuation and whitespace of several kinds.
PIECES = ["clear", "Timeout", "clearTimeout", "HTMLParser", "getHTTP", "a1b2", "x2y", "module42", "mod",
          "ab", "abcd", "ba", "éB", "caféÉté", "naïve", "img", "reimage", "image", "f1", "1f", "ts", "rd",
          "re", "\U0001f600", "_", ".", "/", "-", " ", "  ", "\t", "\u00a0", "Q", "qq", "q1", "e", "éé",
          "USER", "assist", "toolCall", "0", "9x"]
QUERY_PIECES = ["c", "cl", "cle", "clea", "clear", "t", "ti", "tim", "timeout", "ct", "htm", "hp", "ght",
                "a1", "1a", "b2", "ab", "abc", "abcd", "ba", "mo", "mod", "modul42", "module24", "x", "y2x",
                "é", "éb", "caf", "naive", "img", "imag", "image", "f1", "1f", "ts", "st", "rd", "r", "q",
                "qq", "1q", "us", "usr", "tc", "e", "9", "x9", ".", "-", "\U0001f600", "Éte", "clearti",
                "timeoutx", "imagexy", "abcdef", "module42x", "cleartimeout", "htmlpa"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))


def _records(rng: random.Random, n: int) -> list[dict]:
    recs: list[dict] = []
    ids: list[str] = []
    for i in range(n):
        eid = f"e{i}"
        parent = ids[-1] if ids and rng.random() < 0.85 else (rng.choice(ids) if ids else None)
        ts = f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"
        kind = rng.random()
        if kind < 0.35:
            rec = {"type": "message", "message": {"role": "user", "content": _text(rng)}}
        elif kind < 0.65:
            rec = {"type": "message", "message": {"role": "assistant", "content": [
                {"type": "text", "text": _text(rng)},
                {"type": "toolCall", "id": f"t{i}", "name": "read", "arguments": {"path": _text(rng)}}]}}
        elif kind < 0.8:
            rec = {"type": "message", "message": {"role": "toolResult", "toolCallId": f"t{i - 1}",
                                                  "toolName": "read", "content": [{"type": "text", "text": _text(rng)}]}}
        elif kind < 0.9:
            rec = {"type": "label", "targetId": rng.choice(ids) if ids else eid, "label": _text(rng) or None}
        else:
            rec = {"type": "custom_message", "customType": _text(rng), "content": _text(rng)}
        rec.update(id=eid, parentId=parent, timestamp=ts)
        recs.append(rec)
        ids.append(eid)
    return recs


def _query(rng: random.Random) -> str:
    parts = [rng.choice(QUERY_PIECES) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
        parts = [p.upper() if rng.random() < 0.5 else p for p in parts]
    return " ".join(parts)


def _oracle(tl: TreeList, mode: str, query: str) -> list[str]:
    """Every row through the reference scorer (no index, no yes/no shortcut)."""
    b = tl._b
    tokens = [t for t in query.lower().split() if t]
    out = []
    for n in b.mode_rows(mode):
        text = b.search(n)
        if tl.flavor == "omp18":
            ok = all(word_match18(t, text).matches for t in tokens)
        elif tl.flavor == "omp":
            ok = all(word_match(t, text).matches for t in tokens)
        else:
            ok = all(t in text.lower() for t in tokens)
        if ok:
            out.append(b.ids[n])
    return out


@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi", "omp57"])
@pytest.mark.parametrize("seed", range(6))
def test_index_gives_the_unindexed_answer(flavor, seed):
    rng = random.Random(f"{flavor}-{seed}")
    recs = _records(rng, rng.randint(20, 160))
    indexed = TreeList(recs, flavor=flavor, search_index="now")
    plain = TreeList(recs, flavor=flavor, search_index="off")
    assert indexed._b.finder.index is not None and plain._b.finder.index is None
    nonempty = 0
    for _ in range(60):
        query = _query(rng)
        mode = rng.choice(FILTER_MODES)
        a = indexed.set_filter(mode).set_search(query)
        b = plain.set_filter(mode).set_search(query)
        expected = _oracle(plain, mode, query)
        assert a.visible_ids == b.visible_ids == expected, (flavor, mode, query)
        assert a.selected_id == b.selected_id
        nonempty += bool(expected)
    assert nonempty >= 5  # the generated queries do find rows, so the comparison is not vacuous


def test_background_index_is_used_once_built():
    rng = random.Random("bg")
    recs = _records(rng, 300)
    tl = TreeList(recs, flavor="omp", search_index="background")
    first = tl.set_search("clear")  # waits for the background build
    assert tl._b.finder.index is not None
    assert first.visible_ids == _oracle(tl, "default", "clear")


@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi", "omp57"])
@pytest.mark.parametrize("seed", range(3))
def test_a_later_index_in_small_batches_gives_the_unindexed_answer(flavor, seed, monkeypatch):
    """``later``: no thread until ``start_index`` (the count says indexing meanwhile); a search before it
    builds the index itself. Texts mapped a few at a time (``FILL_CHARS``) give the same answers, and
    the index keeps no raw search text (only what the search reads)."""
    from workbench.tree import flattree, treesearch

    monkeypatch.setattr(treesearch, "INDEX_MIN_ROWS", 10)
    monkeypatch.setattr(flattree, "FILL_CHARS", 40)
    rng = random.Random(f"later-{flavor}-{seed}")
    recs = _records(rng, rng.randint(40, 160))
    plain = TreeList(recs, flavor=flavor, search_index="off")
    started = TreeList(recs, flavor=flavor, search_index="later")
    finder = started._b.finder
    assert finder._thread is None and finder.index is None and started.indexing
    started.start_index()
    assert started.wait_index(30) and finder.index is not None and not started.indexing
    assert all(text is None for text in started._b._search)
    started.start_index()  # built: nothing more to start
    searched = TreeList(recs, flavor=flavor, search_index="later")
    for k in range(30):
        query = _query(rng)
        mode = rng.choice(FILTER_MODES)
        expected = _oracle(plain, mode, query)
        for tl in (started, searched):  # ``searched``: its first search builds the index, no thread
            assert tl.set_filter(mode).set_search(query).visible_ids == expected, (flavor, mode, query)
        if k == 0:
            assert searched._b.finder._thread is None and searched._b.finder.index is not None
            assert not searched.indexing


def test_candidates_cover_every_matching_word():
    # Per word: any word the scorer can match for a token is among the index's candidates.
    rng = random.Random("words")
    words = sorted({normalized18(_text(rng)).split(" ")[0] for _ in range(400)} - {""})
    index = SearchIndex(words, fuzzy=True)
    for tok in QUERY_PIECES:
        for q in {normalized18(tok)} - {""}:
            cand = index.candidates((q, *swaps(q)))  # the token and its swap retries
            for n, w in enumerate(words):
                if word_match18(q, w).matches and " " not in q:
                    assert n in cand, (q, w)


def test_matcher18_agrees_with_the_scorer_on_generated_texts():
    rng = random.Random("m18")
    for _ in range(3000):
        text = _text(rng)
        query = _query(rng)
        assert query_matcher18(query)(normalized18(text)) is word_match18(query, text).matches, (query, text)


def test_normalized18_many_is_normalized18():
    rng = random.Random("n18")
    texts = [_text(rng) for _ in range(500)] + ["", " ", "ABCd", "aB", "x\x00y"]
    assert normalized18_many(texts) == [normalized18(t) for t in texts]


def test_unknown_index_mode_is_refused():
    from workbench.errors import UsageError

    with pytest.raises(UsageError, match="search_index"):
        TreeList([], search_index="sometimes")


def _walk_nearest(tl: TreeList, start: str | None) -> str | None:
    """The selection rule written plainly: ``start`` or its nearest visible entry ancestor, else the last row."""
    visible = tl.visible_ids
    if not visible:
        return None
    shown = set(visible)
    by_id = {e.id: e for e in tl._b.entries}
    seen: set[str] = set()
    cur = start
    while cur is not None and cur not in seen:
        if cur in shown:
            return cur
        seen.add(cur)
        entry = by_id.get(cur)
        if entry is None:
            break
        cur = entry.parent_id
    return visible[-1]


@pytest.mark.parametrize("seed", range(8))
def test_selection_after_a_search_is_the_nearest_visible_ancestor(seed):
    rng = random.Random(f"sel-{seed}")
    recs = _records(rng, rng.randint(30, 120))
    for rec in rng.sample(recs, 4):  # orphans and parent cycles too
        rec["parentId"] = rng.choice(["missing", recs[rng.randrange(len(recs))]["id"]])
    flavor = rng.choice(["omp", "omp18", "pi"])
    tl = TreeList(recs, flavor=flavor, search_index="now")
    for _ in range(40):
        start = tl._remembered
        after = tl.set_filter(rng.choice(FILTER_MODES)).set_search(_query(rng) if rng.random() < 0.7 else "")
        state = tl.set_filter(after.filter_mode)
        assert after.selected_id == _walk_nearest(after, state._remembered), (flavor, start)
        if after.visible_ids and rng.random() < 0.5:
            tl = after.select(rng.choice(after.visible_ids))


def test_ancestor_chains_borrowed_from_a_longer_one_equal_a_full_walk():
    # A root chain a <- b <- c, and a parent loop y -> z -> v -> y entered from x (at y) and w (at v):
    # the loop's chain from x is the longest, but it ends where it loops and must lend no tail.
    links = [("a", None), ("b", "a"), ("c", "b"), ("y", "v"), ("z", "y"), ("v", "z"), ("x", "z"), ("w", "v")]
    recs = [{"type": "message", "id": i, "parentId": p, "timestamp": f"2026-01-01T00:00:0{k}Z",
             "message": {"role": "user", "content": i}} for k, (i, p) in enumerate(links)]
    b = TreeList(recs, flavor="omp", search_index="off")._b

    def full(n):
        out, seen, cur = [], set(), n
        while cur is not None and cur not in seen:
            seen.add(cur)
            out.append(cur)
            pid = b.entries[cur].parent_id
            cur = b.index_of.get(pid) if pid is not None else None
        return out

    order = [b.index_of[i] for i in ("x", "w", "c", "b", "y", "z", "v", "a")]
    for n in order + order:
        assert b.ancestor_chain(n) == full(n), b.ids[n]


def test_a_search_waits_for_the_index_not_for_the_build_threads_collection(monkeypatch):
    """The build thread's full garbage collection (after the index, ``COLLECT_AFTER`` later) holds the
    GIL for up to a second on 100k entries: a search typed during the build answers once the index is
    there, while the thread is still before its collection (held here until the test ends)."""
    import types

    from workbench.tree import treesearch

    release = threading.Event()
    monkeypatch.setattr(treesearch, "time", types.SimpleNamespace(sleep=lambda seconds: release.wait(60)))
    monkeypatch.setattr(treesearch, "INDEX_MIN_ROWS", 10)
    rng = random.Random("collect")
    recs = _records(rng, 200)
    try:
        tl = TreeList(recs, flavor="omp", search_index="background")
        found = tl.set_search("clear")
        assert tl._b.finder.index is not None and not tl.indexing
        assert tl._b.finder._thread is not None and tl._b.finder._thread.is_alive()  # not collected yet
        assert found.visible_ids == _oracle(tl, "default", "clear")
        assert tl.wait_index(30)
    finally:
        release.set()
