"""A resumable scan of a growing JSON object text: the fast path of ``parse_partial_json``.

Streamed tool-call arguments are almost always a clean prefix of valid JSON: strict tokens, strings
without raw control characters or invalid escapes. For such a prefix the agent's four attempts
(``workbench.ttsr.partial_json``) reduce to the lenient parser, whose result is what one strict parse
of a *completion* yields: the text cut back to the last member the lenient parser keeps, plus the
open string closed and the open arrays and objects closed. ``JsonPrefix`` checks cleanliness and
tracks the open containers in one pass, commits only whole tokens (so a later, longer text resumes
where it stopped) and builds that completion. Whatever it cannot vouch for (raw control characters,
``NaN``, trailing text after the object, ``[ ]`` which the lenient parser misreads, deep nesting) makes
it give up, and the caller runs the four attempts instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

_HEX = frozenset("0123456789abcdefABCDEF")
_BLANKS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# Every prefix of a number (including the empty one); used only to tell "still typing" at the end.
_NUMBER_PREFIX = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:(?<=[0-9])[eE][+-]?[0-9]*)?)?")
_LITERALS = ("true", "false", "null")
# A string body up to its closing quote (escapes taken whole). Without one the string is open, and
# ``scanstring`` is not asked: its error would count the lines of the whole text, at every delta.
_CLOSED_BODY = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*"')
# The lenient parser recurses once per level; stay far below Python's recursion limit.
_MAX_DEPTH = 200

# Frame states: what the container expects next.
_OBJ_FIRST, _OBJ_KEY, _OBJ_COLON, _OBJ_VALUE, _OBJ_NEXT = range(5)
OBJ_VALUE = _OBJ_VALUE  # (``partial_json`` asks whether a top-level value is being typed)
_ARR_FIRST, _ARR_ELEM, _ARR_NEXT = range(5, 8)
_VALUE_STATES = (_OBJ_VALUE, _ARR_FIRST, _ARR_ELEM)

Scalar = Callable[[str, int], str | None]


class JsonPrefix:
    """Scan state of one growing text: committed position and the open containers.

    Each frame is ``[closer, state, keep]``: ``keep`` is the index up to which the container's text
    survives if the text ends inside its current member (after the opener or the last whole member).
    """

    __slots__ = ("pos", "frames", "started", "done", "failed", "pending")

    def __init__(self) -> None:
        self.pos = 0
        self.frames: list[list[Any]] = []
        self.started = False
        self.done = False
        self.failed = False
        # Where the scan of an open string may resume (its body is clean up to there), or -1.
        self.pending = -1

    def copy(self) -> JsonPrefix:
        """An independent scan state equal to this one: advancing either leaves the other as it was."""
        twin = JsonPrefix.__new__(JsonPrefix)
        twin.pos, twin.started, twin.done, twin.failed, twin.pending = (
            self.pos, self.started, self.done, self.failed, self.pending)
        twin.frames = [list(frame) for frame in self.frames]
        return twin

    def advance(self, text: str) -> None:
        """Commit every whole token of ``text`` from ``self.pos`` on; sets ``failed`` if unclean."""
        if self.failed:
            return
        frames, pos, size = self.frames, self.pos, len(text)
        while True:
            if self.done:
                if _BLANKS.match(text, pos).end() != size:  # type: ignore[union-attr]
                    self.failed = True  # trailing text: the strict parse fails, the agent's may not
                self.pos = size
                return
            end = _BLANKS.match(text, pos).end()  # type: ignore[union-attr]
            if end >= size:
                if end > pos and frames and frames[-1][1] == _ARR_FIRST:
                    frames[-1][1] = _ARR_ELEM  # `[ ]` must fail later (see module doc)
                self.pos = end
                return
            if end > pos and frames and frames[-1][1] == _ARR_FIRST:
                frames[-1][1] = _ARR_ELEM
            pos = end
            char = text[pos]
            if not self.started:
                if char != "{":
                    self.failed = True
                    return
                self.started = True
                frames.append(["}", _OBJ_FIRST, pos + 1])
                pos += 1
                continue
            frame = frames[-1]
            state = frame[1]
            if state in _VALUE_STATES:
                if char == "{" or char == "[":
                    if len(frames) >= _MAX_DEPTH:
                        self.failed = True
                        return
                    frame[1] = _OBJ_NEXT if state == _OBJ_VALUE else _ARR_NEXT
                    frames.append(["}", _OBJ_FIRST, pos + 1] if char == "{" else ["]", _ARR_FIRST, pos + 1])
                    pos += 1
                    continue
                if char == "]" and state == _ARR_FIRST:
                    pos = self._close(pos)
                    continue
                after = self._scalar_or_string(text, pos)
                if after < 0:  # the value runs to the end of the text (or is unclean)
                    self.pos = pos
                    return
                frame[1] = _OBJ_NEXT if state == _OBJ_VALUE else _ARR_NEXT
                frame[2] = pos = after
                continue
            if state == _OBJ_FIRST or state == _OBJ_KEY:
                if char == "}" and state == _OBJ_FIRST:
                    pos = self._close(pos)
                    continue
                if char != '"':
                    self.failed = True
                    return
                after = self._string(text, pos)
                if after < 0:
                    self.pos = pos
                    return
                frame[1] = _OBJ_COLON
                pos = after
                continue
            if state == _OBJ_COLON:
                if char != ":":
                    self.failed = True
                    return
                frame[1] = _OBJ_VALUE
                pos += 1
                continue
            # _OBJ_NEXT or _ARR_NEXT
            if char == ",":
                frame[1] = _OBJ_KEY if state == _OBJ_NEXT else _ARR_ELEM
                pos += 1
            elif char == frame[0]:
                pos = self._close(pos)
            else:
                self.failed = True
                return

    def _close(self, pos: int) -> int:
        frames = self.frames
        frames.pop()
        if not frames:
            self.done = True
        else:
            frames[-1][2] = pos + 1  # the closed container is a whole member of its parent
        return pos + 1

    def _string(self, text: str, pos: int) -> int:
        """End of the closed clean string at ``pos``; -1 if it is open at the end (or unclean).

        ``json``'s own string scanner (C) does the work: on the text for a closed string, on the
        body closed by hand for an open one (minus a half-typed escape, which the lenient parser
        drops). It resumes from ``pending``, a point between two whole characters of the body.
        """
        start = self.pending if self.pending > pos else pos + 1
        if _CLOSED_BODY.match(text, start) is not None:
            try:
                end: int = scanstring(text, start, True)[1]
            except ValueError:
                pass  # unclean
            else:
                self.pending = -1
                return end
        body_end = _half_escape_start(text, start)
        try:
            scanstring(text[start:body_end] + '"', 0, True)
        except ValueError:
            self.failed = True
            return -1
        self.pending = body_end
        return -1

    def _scalar_or_string(self, text: str, pos: int) -> int:
        char = text[pos]
        if char == '"':
            return self._string(text, pos)
        size = len(text)
        if char == "-" or "0" <= char <= "9":
            prefix = _NUMBER_PREFIX.match(text, pos).end()  # type: ignore[union-attr]
            if prefix == size:
                return -1
            whole = _NUMBER.match(text, pos)
            if whole is None or whole.end() != prefix:
                self.failed = True
                return -1
            return prefix
        for word in _LITERALS:
            if text.startswith(word, pos):
                return pos + len(word)
            if word.startswith(text[pos : pos + len(word)]) and pos + len(word) > size:
                return -1
        self.failed = True
        return -1

    def completion(self, text: str, scalar: Scalar) -> str | None:
        """The text one strict parse turns into the lenient parser's result; None if not vouched for.

        ``scalar(text, pos)`` gives the JSON text of the lenient value of the unfinished scalar at
        ``pos`` (a number or literal still being typed), or None if the lenient parser drops it.
        """
        if self.failed or not self.started:
            return None
        if self.done:
            return text
        frame = self.frames[-1]
        state, pos = frame[1], self.pos
        cut, extra = frame[2], ""
        if pos < len(text):
            if state in _VALUE_STATES:
                if text[pos] == '"':
                    # An open value string is kept, minus a half-typed escape.
                    cut, extra = self.pending, '"'
                else:
                    value = scalar(text, pos)
                    if value is not None:
                        cut, extra = pos, value
        elif state in (_OBJ_FIRST, _OBJ_NEXT, _ARR_FIRST, _ARR_NEXT):
            cut = pos  # nothing pending: keep the trailing blanks, harmless
        closers = "".join(f[0] for f in reversed(self.frames))
        return text[:cut] + extra + closers


def _half_escape_start(text: str, lo: int) -> int:
    """Where a half-typed escape (``\\`` or ``\\u`` with under four hex digits) ends ``text``, else its length."""
    size = len(text)
    slash = text.rfind("\\", max(lo, size - 5))
    if slash < 0:
        return size
    rest = text[slash + 1 :]
    if rest and not (rest[0] == "u" and len(rest) <= 4 and all(c in _HEX for c in rest[1:])):
        return size
    run = slash
    while run > lo and text[run - 1] == "\\":
        run -= 1
    return slash if (slash - run) % 2 == 0 else size
