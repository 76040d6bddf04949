r"""Stream buffers and incremental condition tests that give the reference's answers.

The reference re-runs every regex over the whole accumulated buffer at every delta (quadratic in the
stream length). The answer only depends on the buffer, so the work can be cut where that is provably
exact:

* A buffer remembers, per condition, the longest prefix known to have **no** match (``clean``). A
  match of the grown buffer that is not a match of that prefix must read some position at or past
  ``clean`` (an attempt that reads only earlier positions behaves exactly as it did there). So new
  match starts lie at or after a *cut*, the largest of:
  - ``clean - reach + 1`` when the pattern's forward reach is bounded (``pattern_shape``);
  - the unit after the last ``\n`` before ``clean`` when the pattern can never consume ``\n``;
  - the *barrier*: an attempt must consume every unit of ``[start, clean)``, and units outside the
    classes of its unbounded atoms (the free class) can only be taken by bounded atoms, of which
    there are ``barrier_count``; so ``start`` lies after the ``barrier_count``-th such unit
    counting back from ``clean``.
  Only ``[cut, end)`` is searched, with ``back`` units of context in front and a lookbehind gate
  (``CompiledCondition.gated``) so that starts inside the context are not reported.
* A match is latched when appending cannot undo it: always for *monotonic* patterns (no ``$``,
  ``\b``, ``\B`` or negative lookaround), and for bounded-reach patterns once everything the
  matching attempt could read is inside the buffer.
* A snapshot that extends the previous buffer is treated as the appended difference.
* ``^?(?=[\s\S]*A)(?=[\s\S]*B)`` conditions are split into their parts (``conditions``).
* Prefilter: a match contains one of its condition's required literals (``literals``) at or after
  its start, so if no occurrence of one starts at or after the cut, there is no match at all and the
  regex is not run. The buffer keeps the start of the last occurrence of every literal, found by one
  scan of each appended window for all conditions' literals at once (``LiteralIndex``).

Everything else (unbounded lookbehind, a pattern the scanner could not analyse) is a full search, as
in the reference. Offsets here are engine units (``engine_text``), not Python characters.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import Any

from workbench.ttsr.code_units import engine_text
from workbench.ttsr.conditions import CompiledCondition
from workbench.ttsr.literals import Key, literal_index
from workbench.ttsr.pattern_shape import INF


class StreamBuffer:
    """One accumulated stream (text and engine form), kept as chunks and joined on demand."""

    __slots__ = ("_chunks", "_text", "_echunks", "_etext", "length", "newlines", "states",
                 "lit_keys", "lit_scanned", "lit_last", "lit_seen", "lit_alive")

    def __init__(self, text: str = "") -> None:
        self._chunks: list[str] = [text] if text else []
        self._text: str | None = text
        etext = engine_text(text)
        self._echunks: list[str] = [etext] if etext else []
        self._etext: str | None = etext
        self.length = len(etext)  # engine units
        self.newlines: list[int] = _newline_positions(etext, 0)
        # condition id -> [clean_length (-1 = unknown), latched_match]
        self.states: dict[int | tuple[Any, ...], list[Any]] = {}
        # Literal prefilter: the keys indexed so far, how far they are scanned, last starts.
        self.lit_keys: frozenset[Key] = frozenset()
        self.lit_scanned = 0
        self.lit_last: dict[Key, int] = {}
        self.lit_seen = 0  # keys with an occurrence (bumps invalidate `alive`)
        self.lit_alive: tuple[Any, ...] | None = None

    def append(self, delta: str) -> None:
        if not delta:
            return
        e = engine_text(delta)
        self._chunks.append(delta)
        self._echunks.append(e)
        self._text = None
        self._etext = None
        if "\n" in e:
            self.newlines.extend(_newline_positions(e, self.length))
        self.length += len(e)

    @property
    def text(self) -> str:
        """The buffer as received (what the reference holds)."""
        if self._text is None:
            self._text = _join(self._chunks)
        return self._text

    @property
    def etext(self) -> str:
        if self._etext is None:
            self._etext = _join(self._echunks)
        return self._etext

    def etail(self, start: int) -> str:
        """``etext[start:]`` without joining the whole buffer."""
        if self._etext is not None:
            return self._etext[start:]
        need = self.length - start
        last = self._echunks[-1] if self._echunks else ""
        if len(last) >= need:
            return last[len(last) - need :] if need else ""
        parts: list[str] = []
        got = 0
        for chunk in reversed(self._echunks):
            parts.append(chunk)
            got += len(chunk)
            if got >= need:
                break
        joined = "".join(reversed(parts))
        return joined[len(joined) - need :] if need < len(joined) else joined

    def last_newline_before(self, pos: int) -> int:
        """Index of the last ``\\n`` strictly before ``pos`` (engine units), or -1."""
        k = bisect_left(self.newlines, pos)
        return self.newlines[k - 1] if k else -1

    def copy(self) -> StreamBuffer:
        other = StreamBuffer.__new__(StreamBuffer)
        other._chunks = [self.text] if self.text else []
        other._text = self.text
        other._echunks = [self.etext] if self.etext else []
        other._etext = self.etext
        other.length = self.length
        other.newlines = list(self.newlines)
        other.states = {k: list(v) for k, v in self.states.items()}
        other.lit_keys = self.lit_keys
        other.lit_scanned = self.lit_scanned
        other.lit_last = dict(self.lit_last)
        other.lit_seen = self.lit_seen
        other.lit_alive = None
        return other

    def newest_literal(self, keys: frozenset[Key]) -> int:
        """Start of the last occurrence of any of ``keys`` in the buffer (-1: none)."""
        if self.lit_scanned != self.length:
            self._sync_literals()
        last = self.lit_last
        newest = -1
        for k in keys:
            v = last.get(k)
            if v is None:
                return self._add_literals(keys)
            if v > newest:
                newest = v
        return newest

    def _add_literals(self, keys: frozenset[Key]) -> int:
        # Keys first asked for now: one scan of the whole buffer for them alone.
        new = keys - self.lit_keys
        last = self.lit_last
        for k in new:
            last[k] = -1
        for key, pos in literal_index(new).scan(self.etext, 0):
            if last[key] < 0:
                self.lit_seen += 1
            last[key] = pos
        self.lit_keys = self.lit_keys | new
        return max(last[k] for k in keys)

    def _sync_literals(self) -> None:
        if self.lit_keys:
            index = literal_index(self.lit_keys)
            start = max(0, self.lit_scanned - index.longest + 1)
            last = self.lit_last
            for key, pos in index.scan(self.etail(start), start):
                if last[key] < 0:
                    self.lit_seen += 1
                last[key] = pos
        self.lit_scanned = self.length

    def alive(self, entries: tuple[Any, ...]) -> tuple[Any, ...]:
        """The rule entries (objects with ``conditions``) that can match this buffer now.

        An entry whose every condition requires literals none of which occurs in the buffer
        cannot match; it is left out without touching its memo (a memo that lags behind stays
        exact: ``clean`` is still a prefix without a match). Cached until a literal is first seen.
        """
        if not _PREFILTER:
            return entries
        if self.lit_scanned != self.length:
            self._sync_literals()
        hit = self.lit_alive
        if hit is not None and hit[0] is entries and hit[1] == self.lit_seen:
            cached: tuple[Any, ...] = hit[2]
            return cached
        for entry in entries:
            for cond in entry.conditions:
                if cond.literals is not None and not cond.literals <= self.lit_keys:
                    self._add_literals(cond.literals)
        last = self.lit_last
        kept = tuple(
            e for e in entries
            if any(c.literals is None or any(last[k] >= 0 for k in c.literals) for c in e.conditions)
        )
        self.lit_alive = (entries, self.lit_seen, kept)
        return kept


def _join(chunks: list[str]) -> str:
    """The chunks as one string; the list is left holding just that string, so the next join after
    more deltas joins two pieces instead of every delta again."""
    joined = "".join(chunks)
    chunks[:] = [joined] if joined else []
    return joined


def _newline_positions(text: str, offset: int) -> list[int]:
    out: list[int] = []
    i = text.find("\n")
    while i != -1:
        out.append(offset + i)
        i = text.find("\n", i + 1)
    return out


# Private switch for the benchmark (the implementation before the prefilter, in the same run).
_PREFILTER = True


def condition_matches(cond: CompiledCondition, cid: int | tuple[Any, ...], buf: StreamBuffer) -> bool:
    """``cond`` tested on the whole buffer, using (and updating) the buffer's memo for ``cid``."""
    if cond.parts is not None:
        return all(condition_matches(part, (cid, k), buf) for k, part in enumerate(cond.parts))
    state = buf.states.get(cid)
    if state is None:
        state = buf.states[cid] = [-1, False]
    if state[1]:
        return True
    n = buf.length
    clean = state[0]
    if clean == n:
        return False
    newest = buf.newest_literal(cond.literals) if cond.literals is not None and _PREFILTER else n
    if newest < 0:
        state[0] = n  # no required literal anywhere: no match
        return False
    shape = cond.shape
    start = 0
    if clean >= 0:
        if shape.reach != INF:
            start = clean - int(shape.reach) + 1
        if not shape.crosses_newline:
            lo = max(0, start)
            k = bisect_left(buf.newlines, clean)
            if k and buf.newlines[k - 1] >= lo:
                start = max(start, buf.newlines[k - 1] + 1)
        if newest < start:
            state[0] = n  # every match starts at or after `start` and holds a literal from there
            return False
        if shape.reach == INF and shape.nonfree_class and shape.barrier_count != INF:
            start = max(
                start, _barrier_cut(buf, cid, clean, max(0, start), shape.nonfree_class, int(shape.barrier_count))
            )
            if newest < start:
                state[0] = n
                return False
    if start <= 0 or shape.back == INF:
        offset, window, rx = 0, buf.etext, cond.regex
    elif cond.context == 0:
        offset, window, rx = start, buf.etail(start), cond.regex
    elif start >= cond.context and cond.gated is not None:
        offset, window, rx = start - cond.context, buf.etail(start - cond.context), cond.gated
    else:
        offset, window, rx = 0, buf.etext, cond.regex
    m = rx.find(window)
    if m is None:
        state[0] = n
        return False
    if shape.monotonic:
        state[1] = True
    elif shape.reach != INF:
        # Every read of the path that matched lies in [start - back, start + reach): once that
        # is inside the buffer, appending cannot undo this match.
        at = m.range().start
        if not window.isascii():
            at = len(window.encode("utf-8", "surrogatepass")[:at].decode("utf-8", "surrogatepass"))
        if offset + at + shape.reach <= n:
            state[1] = True
    return True


@lru_cache(maxsize=1024)
def _barrier_regex(nonfree: str, count: int) -> re.Pattern[str]:
    # On the reversed text: the shortest run holding `count` units outside the free class.
    free = "[^" + nonfree[1:] if not nonfree.startswith("[^") else "[" + nonfree[2:]
    return re.compile(f"(?:{free}*+{nonfree}){{{count}}}")


@lru_cache(maxsize=1024)
def _nonfree_regex(nonfree: str) -> re.Pattern[str]:
    return re.compile(nonfree)


def _barrier_cut(buf: StreamBuffer, cid: object, clean: int, lower: int, nonfree: str, count: int) -> int:
    """First start a new match can have: an attempt from an earlier start would have to consume
    ``count`` or more units that only bounded atoms can take (see ``Shape.barrier_count``)."""
    span = clean - lower
    size = min(span, 64 + 8 * count)
    if size > 0:
        # Dense case (most text is outside the free class): a short reversed tail settles it.
        m = _barrier_regex(nonfree, count).match(buf.etail(clean - size)[:size][::-1])
        if m is not None:
            return clean - m.end() + 1
        if size >= span:
            return lower
    # Sparse case: the positions of the last `count` units outside the free class, kept per
    # buffer and extended over text not scanned yet (each unit is scanned once).
    key = ("barrier", cid)
    state = buf.states.get(key)
    if state is None or state[0] > clean:
        state = buf.states[key] = [0, []]
    if state[0] < clean:
        region = buf.etail(state[0])[: clean - state[0]]
        found = [state[0] + m.start() for m in _nonfree_regex(nonfree).finditer(region)]
        state[1] = (state[1] + found)[-count:]
        state[0] = clean
    positions: list[int] = state[1]
    if len(positions) >= count:
        return max(lower, positions[-count] + 1)
    return lower


def memo_answer(cond: CompiledCondition, cid: int | tuple[Any, ...], buf: StreamBuffer) -> bool | None:
    """What the memo already says about ``cond`` on the whole buffer (None: unknown). Pure."""
    if cond.parts is not None:
        answers = [memo_answer(part, (cid, k), buf) for k, part in enumerate(cond.parts)]
        if False in answers:
            return False
        return True if all(a is True for a in answers) else None
    state = buf.states.get(cid)
    if state is None:
        return None
    if state[1]:
        return True
    return False if state[0] == buf.length else None


def naive_matches(cond: CompiledCondition, text: str) -> bool:
    """The reference's full re-test (for property tests and the benchmark baseline)."""
    return cond.test(text)
