"""Streamed tool-call arguments parsed the way the agent parses them at every delta.

The agent (pi-ai ``parseStreamingJson``) tries, in order: a strict parse; a strict parse of the text
with its string literals repaired (raw control characters escaped, invalid ``\\`` escapes doubled); the
lenient ``partial-json`` parser with everything allowed; the lenient parser on the repaired text. The
lenient parser closes an open string (dropping a half-typed escape), array or object, drops an object
key whose value has not started, completes a partial ``true``/``false``/``null``/``NaN``/``Infinity``
literal to its value and keeps a partial number. This module reproduces those steps; it never raises.

Running the four attempts at every delta is quadratic in Python over a growing text, so the common
case (a clean prefix of a JSON object) goes through ``workbench.ttsr.json_prefix`` instead: one scan
and one strict parse of the completed text, with the same result. ``PartialJsonParser`` keeps that
scan's state across deltas of one tool call, and while only the top-level object is open (the usual
state: a long ``content`` or ``new_string`` streaming in) it also keeps the members decoded before the
open one and the decoded part of an open string value, so a delta costs about what it adds instead
of a strict parse of the whole text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from workbench.rules.jsstring import js_trim
from workbench.ttsr.json_prefix import OBJ_VALUE, JsonPrefix

_JSON_BLANKS = " \n\r\t"
_STRING_BODY = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*')


class _Partial(Exception):
    """Input ended before the value did."""


class _Malformed(Exception):
    """Input that no completion can make valid."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


# One decoder for every strict parse: `json.loads(text, parse_constant=...)` builds a new decoder per
# call, a measurable cost at one call per string literal.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _strict(text: str) -> Any:
    """``JSON.parse``: Python's parser minus its NaN/Infinity extension."""
    if text.startswith("\ufeff"):  # `json.loads` rejects a BOM before decoding; so does JSON.parse
        raise ValueError("Unexpected BOM")
    return _DECODER.decode(text)


def _escape_control(char: str) -> str:
    named = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return named.get(char, f"\\u{ord(char):04x}")


# Runs copied unchanged: outside strings everything up to a quote; inside, ordinary characters and
# valid escapes (`\uXXXX` is `\u` followed by ordinary characters, so it is covered too).
_OUTSIDE_RUN = re.compile(r'[^"]*')
_INSIDE_RUN = re.compile(r'[^"\\\x00-\x1f]*(?:\\["\\/bfnrtu][^"\\\x00-\x1f]*)*')


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings and double backslashes of invalid escapes."""
    out: list[str] = []
    in_string = False
    pos, size = 0, len(text)
    while pos < size:
        run = (_INSIDE_RUN if in_string else _OUTSIDE_RUN).match(text, pos)
        assert run is not None  # both patterns match the empty string
        out.append(run.group())
        pos = run.end()
        if pos >= size:
            break
        char = text[pos]
        pos += 1
        if char == '"':
            out.append(char)
            in_string = not in_string
        elif char == "\\":  # an invalid escape, or a backslash ending the text
            out.append("\\\\")
        else:
            out.append(_escape_control(char))
    return "".join(out)


def _js_substring(text: str, start: int, end: int) -> str:
    """``String.prototype.substring``: negative bounds clamp to 0 and swapped bounds are swapped."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    if start > end:
        start, end = end, start
    return text[start:end]


class _LenientParser:
    """The ``partial-json`` algorithm (all partial kinds allowed), kept step for step."""

    _LITERALS = (("null", None), ("true", True), ("false", False), ("Infinity", math.inf), ("NaN", math.nan))

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0

    def char(self, offset: int = 0) -> str:
        at = self.index + offset
        return self.text[at] if 0 <= at < len(self.text) else ""

    def skip_blank(self) -> None:
        while self.index < len(self.text) and self.text[self.index] in _JSON_BLANKS:
            self.index += 1

    def parse_any(self) -> Any:
        self.skip_blank()
        if self.index >= len(self.text):
            raise _Partial("Unexpected end of input")
        head = self.text[self.index]
        if head == '"':
            return self.parse_string()
        if head == "{":
            return self.parse_object()
        if head == "[":
            return self.parse_array()
        rest = self.text[self.index :]
        for word, value in self._LITERALS:
            if rest.startswith(word) or (len(rest) < len(word) and word.startswith(rest)):
                self.index += len(word)
                return value
        if rest.startswith("-Infinity") or (1 < len(rest) < 9 and "-Infinity".startswith(rest)):
            self.index += 9
            return -math.inf
        return self.parse_number()

    def parse_string(self) -> str:
        text, start = self.text, self.index
        # The reference walks to the first quote not preceded by an odd run of backslashes; `escape`
        # ends up true only when the text stops on such an odd run.
        self.index = _STRING_BODY.match(text, start + 1).end()  # type: ignore[union-attr]
        escape = False
        if self.index < len(text) and text[self.index] == "\\":  # a lone backslash at the very end
            self.index, escape = len(text), True
        if self.char() == '"':
            self.index += 1
            try:
                closed: str = _strict(text[start : self.index - int(escape)])
                return closed
            except ValueError as exc:
                raise _Malformed(str(exc)) from exc
        try:
            opened: str = _strict(text[start : self.index - int(escape)] + '"')
            return opened
        except ValueError:
            # A half-typed escape (`\u00`): cut at the last backslash and retry (may fail again).
            cut: str = _strict(_js_substring(text, start, text.rfind("\\")) + '"')
            return cut

    def parse_object(self) -> dict[str, Any]:
        self.index += 1
        self.skip_blank()
        result: dict[str, Any] = {}

        def member() -> bool:
            self.skip_blank()
            if self.index >= len(self.text):
                return False
            key = _js_string(self.parse_string())
            self.skip_blank()
            self.index += 1  # the colon, taken on trust as the reference does
            try:
                result[key] = self.parse_any()
            except Exception:
                return False
            return True

        self._members("}", member)
        return result

    def parse_array(self) -> list[Any]:
        self.index += 1
        result: list[Any] = []

        def member() -> bool:
            result.append(self.parse_any())
            return True

        self._members("]", member)
        return result

    def _members(self, close: str, member: Callable[[], bool]) -> None:
        """The walk an object and an array share: members up to ``close``, each followed by an optional
        comma. The container ends as far as it got (``close`` not consumed) when a member fails or
        ``member`` says the input ran out, as the reference's parser does."""
        try:
            while self.char() != close:
                if not member():
                    return
                self.skip_blank()
                if self.char() == ",":
                    self.index += 1
        except Exception:
            return
        self.index += 1

    def parse_number(self) -> Any:
        text = self.text
        if self.index == 0:
            if text == "-":
                raise _Malformed("Not sure what '-' is")
            try:
                return _strict(text)
            except ValueError:
                try:
                    return _strict(_js_substring(text, 0, text.rfind("e")))
                except ValueError as exc:
                    raise _Malformed(str(exc)) from exc
        start = self.index
        if self.char() == "-":
            self.index += 1
        while self.index < len(text) and text[self.index] not in ",]}":
            self.index += 1
        try:
            return _strict(text[start : self.index])
        except ValueError:
            if text[start : self.index] == "-":
                raise _Partial("Not sure what '-' is") from None
            try:
                return _strict(_js_substring(text, start, text.rfind("e")))
            except ValueError as exc:
                raise _Malformed(str(exc)) from exc


def _js_string(value: Any) -> str:
    """``String(value)`` for the odd non-string a key position can yield."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def _lenient(text: str) -> Any:
    return _LenientParser(text).parse_any()


def parse_partial_json(text: str | None) -> dict[str, Any] | None:
    """Arguments recovered from (possibly truncated) JSON text.

    ``{}`` for blank text (the agent's "no arguments yet"); the object when one is recoverable; ``None``
    when the text holds no object (another JSON value, or nothing parseable). Never raises.
    """
    if not text or not js_trim(text):
        return {}
    if text.endswith("}"):
        # Looks whole (a finished call's arguments): the agent's own first attempt, one C-speed
        # parse instead of the scan; where it fails, the scan and the later attempts as before.
        try:
            value = _strict(text)
        except (ValueError, RecursionError):
            pass
        else:
            return value if isinstance(value, dict) else None
    scan = JsonPrefix()
    scan.advance(text)
    return _finish(scan, text)


class PartialJsonParser:
    """``parse_partial_json`` of one growing text (a tool call's arguments), fed delta by delta.

    ``feed(delta)`` returns exactly ``parse_partial_json(text so far)``; the scan resumes where the
    previous delta left it, so a call costs one strict parse of the text instead of a rescan.
    """

    __slots__ = ("_scan", "_text", "_keep", "_members", "_key_at", "_key", "_open_at", "_commit", "_decoded")

    def __init__(self) -> None:
        self._scan = JsonPrefix()
        self._text = ""
        # The top-level members before ``_keep`` decoded (``_keep`` -1: none yet); the key of the member
        # after them, found at ``_key_at``; the open string value at ``_open_at``, decoded up to ``_commit``.
        self._keep = -1
        self._members: dict[str, Any] = {}
        self._key_at = -1
        self._key = ""
        self._open_at = -1
        self._commit = -1
        self._decoded = ""

    @property
    def text(self) -> str:
        """The accumulated text."""
        return self._text

    def copy(self) -> PartialJsonParser:
        """A parser in this one's state, fed on independently: feeding it ``x`` answers what feeding
        this one ``x`` would (the backtest's join probes a few later prefixes this way)."""
        twin = PartialJsonParser.__new__(PartialJsonParser)
        twin._scan = self._scan.copy()
        twin._text, twin._keep, twin._members = self._text, self._keep, self._members  # (replaced, never changed)
        twin._key_at, twin._key, twin._open_at = self._key_at, self._key, self._open_at
        twin._commit, twin._decoded = self._commit, self._decoded
        return twin

    def feed(self, delta: str) -> dict[str, Any] | None:
        """Append ``delta`` and parse the whole text so far."""
        self._text += delta
        text = self._text
        # Once the scan has seen the opening brace the text cannot be blank.
        if not self._scan.started and not js_trim(text):
            return {}
        scan = self._scan
        scan.advance(text)
        if not scan.failed and len(scan.frames) == 1:
            found = self._top_level(scan, text)
            if found is not None:
                return found
        return _finish(scan, text)

    def _top_level(self, scan: JsonPrefix, text: str) -> dict[str, Any] | None:
        """``_finish``'s answer while only the top-level object is open, from the members decoded at
        earlier deltas; ``None`` where it has to be computed whole (a number being typed, a value
        that will not decode).

        The completion ``_finish`` parses is the text up to the last whole member plus ``}``, with the
        open string value (minus a half-typed escape) and its key when one is streaming: the members
        up to ``keep`` decode to the same dict whatever follows them, the key repeats a key's
        first place as ``dict`` does, and a string decodes piece by piece when no piece starts
        between a ``\\uD8xx`` escape and its low half."""
        frame = scan.frames[0]
        keep, pos = frame[2], scan.pos
        if keep != self._keep:
            try:
                members = _strict(text[:keep] + "}")
            except (ValueError, RecursionError):
                return None
            self._keep, self._members = keep, members
        if pos >= len(text) or frame[1] != OBJ_VALUE:
            return dict(self._members)
        if text[pos] != '"':
            return None  # a number or literal being typed: the lenient value of its prefix
        try:
            if self._key_at != keep:
                self._key, self._key_at = _member_key(text, keep), keep
            if self._open_at != pos:
                self._open_at, self._commit, self._decoded = pos, pos + 1, ""
            end = scan.pending
            split = _split_point(text, self._commit, end)
            if split > self._commit:
                self._decoded += scanstring(text[self._commit : split] + '"', 0, True)[0]
                self._commit = split
            value = self._decoded + scanstring(text[split:end] + '"', 0, True)[0] if split < end else self._decoded
        except ValueError:
            self._open_at = -1
            return None
        out = dict(self._members)
        out[self._key] = value
        return out


_BLANK_RUN = re.compile(r"[ \t\n\r]*")
_HIGH_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")


def _member_key(text: str, keep: int) -> str:
    """The key of the member after ``keep`` (after the opening brace or a whole member)."""
    at = _BLANK_RUN.match(text, keep).end()  # type: ignore[union-attr]
    if text[at] == ",":
        at = _BLANK_RUN.match(text, at + 1).end()  # type: ignore[union-attr]
    key: str = scanstring(text, at + 1, True)[0]
    return key


def _split_point(text: str, lo: int, end: int) -> int:
    """``end`` (a boundary between whole characters of a string body starting at ``lo``), or 6 before
    it when the body ends there with a ``\\uD800``-``\\uDBFF`` escape, which decodes together with a
    low-half escape after it."""
    at = end - 6
    if at < lo or _HIGH_SURROGATE_ESCAPE.match(text, at) is None:
        return end
    run = at
    while run > lo and text[run - 1] == "\\":
        run -= 1
    return at if (at - run) % 2 == 0 else end


def _finish(scan: JsonPrefix, text: str) -> dict[str, Any] | None:
    completion = scan.completion(text, _tail_scalar)
    if completion is not None:
        try:
            value = _strict(completion)
        except (ValueError, RecursionError):
            pass  # not vouched for after all: take the agent's steps
        else:
            return value if isinstance(value, dict) else None
    return _agent_attempts(text)


def _agent_attempts(text: str) -> dict[str, Any] | None:
    for attempt in (_strict, _strict_repaired, _lenient, _lenient_repaired):
        try:
            value = attempt(text)
        except (ValueError, _Partial, _Malformed, RecursionError, IndexError):
            continue
        return value if isinstance(value, dict) else None
    return None


def _tail_scalar(text: str, pos: int) -> str | None:
    """JSON text of the lenient value of the number or literal still being typed at ``pos``."""
    parser = _LenientParser(text)
    parser.index = pos
    try:
        value = parser.parse_any()
        return json.dumps(value)  # round-trips ints, floats (repr) and literals exactly
    except Exception:  # noqa: BLE001 - the lenient parser drops the member on any error
        return None


def _strict_repaired(text: str) -> Any:
    repaired = repair_json(text)
    if repaired == text:  # the reference rethrows the first error instead of parsing twice
        raise ValueError("repair changed nothing")
    return _strict(repaired)


def _lenient_repaired(text: str) -> Any:
    return _lenient(repair_json(text))
