"""The two fuzzy scorers of the agents' `/tree` search and pickers (docs/flavours.md, "Search"). Lower scores are better.

* ``classic_match``: greedy left-to-right subsequence scan (omp57 coding-agent copy, pi / omp tui copies),
  with the optional retries of pi-mono (letter/digit blocks swapped) and of omp tui 2026-01..06
  (each adjacent letter/digit pair swapped).
* ``word_match``: oh-my-pi's word-local relevance scorer (since 2026-06-12, Unicode since 07-01).

Lengths and offsets count UTF-16 code units like JS; floats are combined in the reference's order so
scores agree to the last bit.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple, TypeVar

T = TypeVar("T")

ClassicVariant = Literal["omp57_utils", "classic_tui", "pimono_tui", "omp_adjswap_2026_05"]


@dataclass(frozen=True, slots=True)
class FuzzyMatch:
    matches: bool
    score: float


NO_MATCH = FuzzyMatch(False, 0)


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def utf16(text: str) -> str:
    """The string as UTF-16 code units (astral characters become two surrogate "characters")."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(lambda m: _pair(m.group()), text)


def _pair(ch: str) -> str:
    code = ord(ch) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


_BOUNDARY_UTILS = "-_./"
_BOUNDARY_TUI = "-_./:"


def _scan(q: str, t: str, boundary: str | None) -> tuple[bool, float, int, int]:
    """The greedy scan; returns (matched, score, first match index, last match index)."""
    qi = 0
    last = -1
    first = -1
    run = 0
    score = 0.0
    for i, ch in enumerate(t):
        if qi >= len(q):
            break
        if ch != q[qi]:
            continue
        if last == i - 1:  # quirk: at i = 0, last = -1 counts as consecutive
            run += 1
            score -= 5 * run
        else:
            run = 0
            if last >= 0:
                score += 2 * (i - last - 1)
        if boundary is not None and (i == 0 or t[i - 1].isspace() or t[i - 1] in boundary):
            score -= 10
        score += i * 0.1
        if first < 0:
            first = i
        last = i
        qi += 1
    return qi == len(q), score, first, last


def _classic_core(query: str, text: str, boundary: str) -> FuzzyMatch:
    q = utf16(query.lower())
    t = utf16(text.lower())
    if not q:
        return FuzzyMatch(True, 0)
    if len(q) > len(t):
        return NO_MATCH
    ok, score, _, _ = _scan(q, t, boundary)
    return FuzzyMatch(True, score) if ok else NO_MATCH


_BLOCKS = (re.compile(r"^([a-z]+)([0-9]+)$"), re.compile(r"^([0-9]+)([a-z]+)$"))


def _is_ascii_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_ascii_digit(c: str) -> bool:
    return "0" <= c <= "9"


def adjacent_swaps(q: str) -> list[str]:
    out: list[str] = []
    for i in range(len(q) - 1):
        a, b = q[i], q[i + 1]
        if (_is_ascii_letter(a) and _is_ascii_digit(b)) or (_is_ascii_digit(a) and _is_ascii_letter(b)):
            swapped = q[:i] + b + a + q[i + 2:]
            if swapped not in out:
                out.append(swapped)
    return out


def classic_match(query: str, text: str, variant: ClassicVariant = "pimono_tui") -> FuzzyMatch:
    """Classic subsequence scorer in one of its reference variants."""
    boundary = _BOUNDARY_UTILS if variant == "omp57_utils" else _BOUNDARY_TUI
    result = _classic_core(query, text, boundary)
    if result.matches or variant in ("omp57_utils", "classic_tui"):
        return result
    q = query.lower()
    if variant == "pimono_tui":
        for pattern in _BLOCKS:
            m = pattern.match(q)
            if m:
                retry = _classic_core(m.group(2) + m.group(1), text, boundary)
                if retry.matches:
                    return FuzzyMatch(True, retry.score + 5)
        return result
    best: float | None = None
    for swapped in adjacent_swaps(q):
        retry = _classic_core(swapped, text, boundary)
        if retry.matches and (best is None or retry.score + 5 < best):
            best = retry.score + 5
    return FuzzyMatch(True, best) if best is not None else result


# ----- word-local scorer ---------------------------------------------------------------------

def _cat(c: str) -> str:
    return unicodedata.category(c)


_ACRONYM = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=4096)
def normalize_cached(text: str) -> str:
    return normalize_words(text)


def normalize_words(text: str) -> str:
    """Split camelCase / acronym runs, lowercase, keep only letters, marks and numbers, one space apart."""
    if text.isascii():
        # Same rules with ASCII classes: the common case, done with regexes for speed.
        spaced = _CAMEL.sub(" ", _ACRONYM.sub(" ", text)).lower()
        return _NON_ALNUM.sub(" ", spaced).strip()
    chars = list(text)
    out: list[str] = []
    n = len(chars)
    for j, c in enumerate(chars):
        if j > 0:
            prev = chars[j - 1]
            cat, pcat = _cat(c), _cat(prev)
            if cat == "Lu" and pcat == "Lu" and j + 1 < n and _cat(chars[j + 1]) == "Ll":
                out.append(" ")  # HTMLParser → HTML Parser
            elif cat == "Lu" and (pcat == "Ll" or pcat.startswith("N")):
                out.append(" ")  # camelCase → camel Case
        out.append(c)
    lowered = "".join(out).lower()
    cleaned: list[str] = []
    for c in lowered:
        keep = _cat(c)[0] in "LMN"
        if keep:
            cleaned.append(c)
        elif not cleaned or cleaned[-1] != " ":
            cleaned.append(" ")
    return "".join(cleaned).strip()


class Word(NamedTuple):
    text: str
    start: int
    ordinal: int


@dataclass(frozen=True, slots=True)
class WordIndex:
    norm: str
    words: tuple[Word, ...]
    compact: str
    starts: frozenset[int]
    chars: frozenset[str] = frozenset()


def index_text(text: str, normalize: Callable[[str], str] = normalize_words) -> WordIndex:
    """The words of ``text`` as ``normalize`` splits them (pi-tui 18 splits camelCase otherwise: ``fuzzy18``)."""
    norm = utf16(normalize(text))
    words: list[Word] = []
    starts: set[int] = set()
    offset = 0
    compact_pos = 0
    if norm:
        for ordinal, word in enumerate(norm.split(" ")):
            words.append(Word(word, offset, ordinal))
            starts.add(compact_pos)
            offset += len(word) + 1
            compact_pos += len(word)
    compact = norm.replace(" ", "")
    return WordIndex(norm, tuple(words), compact, frozenset(starts), frozenset(compact))


def _char_score(tok: str, word: str) -> tuple[bool, float, int]:
    if len(tok) > len(word):
        return False, 0.0, 0
    ok, score, first, last = _scan(tok, word, None)
    return ok, score, (last - first + 1) if ok else 0


def word_score(tok: str, w: Word) -> float | None:
    pos = 0.01 * w.start
    word = w.text
    if word == tok:
        return -200 + pos
    if word.startswith(tok):
        return -170 + 0.5 * (len(word) - len(tok)) + pos
    if tok.startswith(word) and len(tok) - len(word) <= 2:
        return -150 + (len(tok) - len(word)) + pos
    k = word.find(tok)
    if k >= 0:
        return -20 + k + pos
    ok, score, span = _char_score(tok, word)
    if ok and span <= max(len(tok) + 2, math.ceil(1.8 * len(tok))):
        return -40 + score + pos
    return None


def acronym_score(tok: str, index: WordIndex) -> float | None:
    if not 2 <= len(tok) <= 4:
        return None
    ti = 0
    first: Word | None = None
    last: Word | None = None
    for word in index.words:
        if ti >= len(tok):
            break
        if word.text and word.text[0] == tok[ti]:
            if first is None:
                first = word
            last = word
            ti += 1
    if ti < len(tok) or first is None or last is None:
        return None
    span = last.ordinal - first.ordinal + 1
    if span > len(tok) + 2:
        return None
    return -30 + 4 * span - 2 * len(tok) + 0.01 * first.start


CompactAt = Callable[[WordIndex, str], int]  # where a needle's compact-text hit counts, or -1


def first_compact_at(index: WordIndex, needle: str) -> int:
    """omp 17's compact-text hit: only the first occurrence counts, and only where it starts a word."""
    c = index.compact.find(needle)
    return c if c >= 0 and c in index.starts else -1


def direct_score(tok: str, index: WordIndex, compact_at: CompactAt = first_compact_at) -> float | None:
    """A token's best score against one text's words (compact hit, per-word rules, acronym); the
    flavours differ only in ``compact_at`` (pi-tui 18 rescans for a later hit: ``fuzzy18``)."""
    if not tok:
        return 0
    best: float | None = None
    c = compact_at(index, tok)
    if c >= 0:
        best = -140 + 0.01 * c
    for word in index.words:
        s = word_score(tok, word)
        if s is not None and (best is None or s < best):
            best = s
    acr = acronym_score(tok, index)
    if acr is not None and (best is None or acr < best):
        best = acr
    return best


def token_score(tok: str, index: WordIndex, compact_at: CompactAt = first_compact_at) -> float | None:
    """``direct_score``, else the best of the token's adjacent swaps with a 5-point penalty."""
    direct = direct_score(tok, index, compact_at)
    if direct is not None:
        return direct
    best: float | None = None
    for swapped in adjacent_swaps(tok):
        s = direct_score(swapped, index, compact_at)
        if s is not None and (best is None or s + 5 < best):
            best = s + 5
    return best


@lru_cache(maxsize=1024)
def word_prefilter(query: str) -> re.Pattern[str] | None:
    """A regex every text the word scorer can match for ``query`` satisfies (None = no constraint).

    For each normalized token, the token or one of its swap variants, minus its last 2 characters,
    is a subsequence of the text's letters and digits (a word may stop up to 2 characters short of
    the token; every other rule matches the whole token in order). Searching lowercased raw text with
    this pattern rejects most non-matches without building a word index.
    """
    nq = normalize_words(query)
    if not nq:
        return None
    parts: list[str] = []
    for tok in nq.split(" "):
        variants = [tok, *adjacent_swaps(tok)]
        # "[^c]*c" steps keep the subsequence test linear (".*?c" would backtrack polynomially).
        alts = sorted({"".join(f"[^{re.escape(c)}]*{re.escape(c)}" for c in v[:-2]) for v in variants if len(v) > 2})
        if alts and all(alts):
            parts.append("(?=(?:" + "|".join(alts) + "))")
    return re.compile("^" + "".join(parts)) if parts else None


def word_match(query: str, text: str | WordIndex) -> FuzzyMatch:
    """oh-my-pi's word-local scorer (docs/flavours.md, "Search")."""
    nq = utf16(normalize_cached(query))
    if not nq:
        return FuzzyMatch(True, 0)
    index = text if isinstance(text, WordIndex) else index_text(text)
    if not index.words:
        return NO_MATCH
    # Cheap rejection: every way a token matches uses characters of the text, except that a token may
    # run up to 2 characters past a word (rule 3), and a swap retry can pull one of those a place
    # earlier. So all but a token's last 3 characters must occur in the text.
    for tok in nq.split(" "):
        if not index.chars.issuperset(tok[:-3]):
            return NO_MATCH
    total = 0.0
    p = index.norm.find(nq)
    if p >= 0:
        end = p + len(nq)
        if (p == 0 or index.norm[p - 1] == " ") and (end == len(index.norm) or index.norm[end] == " "):
            total += -1000 + 0.01 * p
    c = index.compact.find(nq.replace(" ", ""))
    if c >= 0 and c in index.starts:
        total += -1200 + 0.01 * c
    for tok in nq.split(" "):
        s = token_score(tok, index)
        if s is None:
            return NO_MATCH
        total += s
    return FuzzyMatch(True, total)


Scorer = Callable[[str, str], FuzzyMatch]


def scorer_for(algorithm: str) -> Scorer:
    """A scorer by the case-file names: omp57_utils, classic_tui, pimono_tui, omp_adjswap_2026_05, omp17_wordlocal."""
    if algorithm == "omp17_wordlocal":
        return word_match
    if algorithm in ("omp57_utils", "classic_tui", "pimono_tui", "omp_adjswap_2026_05"):
        return lambda q, t: classic_match(q, t, algorithm)  # type: ignore[arg-type]
    raise ValueError(f"unknown fuzzy algorithm {algorithm!r}")


def fuzzy_filter(items: Sequence[T], query: str, get_text: Callable[[T], str], scorer: Scorer = word_match) -> list[T]:
    """Keep items matching every whitespace token; rank ascending by summed score (stable)."""
    if not query.strip():
        return list(items)
    if scorer is word_match:
        scored_w: list[tuple[float, int, T]] = []
        for i, item in enumerate(items):
            m = word_match(query, get_text(item))
            if m.matches:
                scored_w.append((m.score, i, item))
        scored_w.sort(key=lambda x: (x[0], x[1]))
        return [x[2] for x in scored_w]
    tokens = query.strip().split()
    scored: list[tuple[float, int, T]] = []
    for i, item in enumerate(items):
        text = get_text(item)
        total = 0.0
        for tok in tokens:
            m = scorer(tok, text)
            if not m.matches:
                break
            total += m.score
        else:
            scored.append((total, i, item))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [x[2] for x in scored]
