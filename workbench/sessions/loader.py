"""Reading pi / oh-my-pi session files the way the agents read them, without ever writing them.

The reference loader (docs/flavours.md, "Loading a file") trims the whole file, splits it on ``\\n``, skips blank lines and
silently drops every line ``JSON.parse`` rejects, including a line holding two glued objects. We
reproduce that result exactly and, unlike the agent, report each dropped line as a ``Diagnostic``.
Migrations v1→v2→v3 are applied to copies in memory; the file is opened read-only.

A file that is missing, empty, or whose first record is not a session header is an error for the
command line and the app (``strict=True``, the default: ``SessionFileError`` naming the file, line and
field). ``strict=False`` gives the agent's own answer instead: a session with no entries, plus the
diagnostics saying why.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import stat
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from io import BufferedIOBase
from itertools import islice
from typing import Any

from orjson import loads as _fast_loads

from workbench.errors import Diagnostic, SessionFileError
from workbench.sessions.entries import Entry, EntryLinks, NotLoaded, OnDisk, Session, make_entry, paused_gc
from workbench.sessions.first_pass import FirstPass, PassCache
from workbench.sessions.giving_way import GIVE_WAY_EVERY, give_way
from workbench.sessions.records import LAZY_LINE_BYTES, LineReader, skim_tool_result
from workbench.sessions.structure import (
    CURRENT_VERSION,
    LoadFacts,
    js_number,
    odd_messages,
    structure_diagnostics,
    unknown_types,
)

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\r\n\ufeff\u00a0\u2028\u2029\u000b\u000c"


def _reject_constant(name: str) -> Any:
    # JSON.parse rejects NaN/Infinity; Python's json would accept them.
    raise ValueError(f"invalid JSON constant {name}")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


_STRICT = json.JSONDecoder(parse_constant=_reject_constant)
_SCAN = _STRICT.scan_once  # type: ignore[attr-defined]
_JSON_WS = " \t\n\r"



# orjson turns an integer beyond 64 bits into a float where ``json`` keeps it exact: a file with a
# run of 19+ digits that does not follow a "." (every such integer has one) is left to ``json``. A
# fraction's digits lose nothing: orjson's floats are the standard library's, and real sessions write
# costs with 19+ of them. Digits → "0", "." kept, all else → " ", then substring searches: C passes
# (a regex over 10 MB is 50× slower).
_DIGIT_MAP = bytes(48 if 48 <= b <= 57 else 46 if b == 46 else 32 for b in range(256))
_LONG_RUN = b"0" * 19


def _integer_run(mapped: bytes) -> bool:
    """Whether text mapped by ``_DIGIT_MAP`` holds a run of 19+ digits not right after a "."."""
    at = mapped.find(_LONG_RUN)
    while at >= 0:
        if at == 0 or mapped[at - 1] != 46:
            return True
        # a fraction: on past its whole run (a later start inside it follows a digit, not a ".")
        ends = [e for e in (mapped.find(b" ", at), mapped.find(b".", at)) if e >= 0]
        if not ends:
            return False
        at = mapped.find(_LONG_RUN, min(ends))
    return False


def _loads_fast(text: str) -> Any:
    """``_loads_line`` through orjson, for lines without long digit runs.

    orjson accepts a subset of what ``json`` accepts (it rejects NaN/Infinity like JSON.parse, lone
    surrogate escapes, 1e400, nesting past 1024) and gives the same value for every line it accepts
    that has no 19-digit run outside a fraction; whatever it rejects goes through ``_loads_line``, so values and error
    messages are the standard library's (a differential test pins this).
    """
    try:
        return _fast_loads(text)
    except ValueError:
        return _loads_line(text)


def _line_loader(whole: str | bytes) -> Any:
    """The per-line parser for a file: orjson unless a long digit run could lose an integer's digits.

    One C-speed search over the whole file decides (a digit run never spans a line break).
    """
    data = whole if isinstance(whole, bytes) else whole.encode("utf-8", "surrogatepass")
    # in pieces that overlap by a run's length and the character before it: no copy of a large file
    # as a whole (a piece starting with a run is taken to hold such a run: a wasted check at worst)
    piece, overlap = 8 << 20, len(_LONG_RUN)
    for at in range(0, max(len(data), 1), piece):
        if _integer_run(data[max(at - overlap, 0):at + piece].translate(_DIGIT_MAP)):
            return _loads_line
    return _loads_fast


def _loads_line(text: str) -> Any:
    """``_loads`` with less overhead per line: the decoder's scanner directly, ``_loads`` on any doubt.

    ``json.loads`` builds a decoder per call when given options; on 100k lines that alone costs more
    than the parsing. Whatever the scanner does not accept cleanly (leading whitespace, a BOM, bad
    JSON, trailing data) goes through ``_loads``, which gives the same value or the same error.
    """
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return _loads(text)
    if end != len(text) and text[end:].strip(_JSON_WS):
        return _loads(text)
    return value


def _split_objects(text: str) -> list[Any] | None:
    """Several JSON values glued on one line (``}{``): the values, or None if the line is not that."""
    values: list[Any] = []
    pos = 0
    n = len(text)
    while pos < n:
        while pos < n and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= n:
            break
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except ValueError:
            return None
        values.append(value)
        pos = end
    return values if len(values) >= 2 else None


def is_title_slot(obj: Any) -> bool:
    """The omp17 fixed-width title slot (docs/flavours.md, "Loading a file")."""
    return (
        isinstance(obj, dict)
        and obj.get("type") == "title"
        and obj.get("v") == 1
        and type(obj.get("v")) is int
        and isinstance(obj.get("title"), str)
        and isinstance(obj.get("updatedAt"), str)
        and isinstance(obj.get("pad"), str)
        and obj.get("source", "auto") in ("auto", "user")
    )




def _decode_lines(data: bytes, path: str, diags: list[Diagnostic]) -> list[str]:
    """Physical lines (line ``n`` at ``n - 1``) decoded as UTF-8; bad bytes become U+FFFD like Node's decoder."""
    try:
        # One decode for the whole file: "\n" never occurs inside a multi-byte sequence, so the
        # file is valid UTF-8 exactly when every line is.
        return data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        pass
    lines: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = raw.decode("utf-8", errors="replace")
            diags.append(Diagnostic(path=path, line=number, kind="invalid-utf8", message=f"invalid UTF-8 at byte {exc.start} of the line"))
        lines.append(text)
    return lines


# From this size on, a file's lines are decoded one at a time (``ByteLines``) instead of all at once:
# the whole decoded text and its split lines are two more copies of the file in memory while it is
# parsed (a 240 MB session peaked at 3.2x its size). Below it, the one C-speed decode is faster.
LINE_BY_LINE_BYTES = 32 << 20
# From this size on, a file holding text beyond ASCII is read line by line too (measured on real pi
# sessions: 0.73-0.98x the whole decode's time from 0.6 MB; 1.15-1.2x at 13-37 KB).
NON_ASCII_BY_LINE_BYTES = 256 << 10


class ByteLines(Sequence[str]):
    """The physical lines of a file's bytes (line ``n`` at ``n - 1``), each decoded when read.

    ``offsets[n - 1]`` is the byte offset of line ``n`` in the file (after a BOM), and
    ``offsets[n] - 1`` where it ends: what ``read_record`` reads an entry back by. A line that is
    not UTF-8 is decoded with U+FFFD, as Node decodes it, and reported once.
    """

    def __init__(self, data: bytes | memoryview, path: str, diags: list[Diagnostic], start: int = 0) -> None:
        self._data = memoryview(data)
        self._path, self._diags = path, diags
        self._reported: set[int] = set()
        self.offsets = _line_offsets(data, start)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        raw = self.raw(index)
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError as exc:
            if index not in self._reported:
                self._reported.add(index)
                self._diags.append(Diagnostic(path=self._path, line=index + 1, kind="invalid-utf8",
                                              message=f"invalid UTF-8 at byte {exc.start} of the line"))
            return str(raw, "utf-8", errors="replace")

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def raw(self, index: int) -> memoryview:
        """Line ``index + 1``'s bytes, not decoded (orjson reads UTF-8 bytes itself)."""
        return self._data[self.offsets[index]:self.offsets[index + 1] - 1]

    @property
    def ends_with_newline(self) -> bool:
        return bool(self._data) and self._data[-1] == 10


# How much of a file ``FileLines`` holds at a time.
WINDOW_BYTES = 64 << 20


class FileLines(ByteLines):
    """The lines of an open file, read a window at a time (``WINDOW_BYTES``) instead of whole.

    Reading a 1 GB file whole put a second copy of it beside the parsed session at the peak, and
    each of its pages was a fresh page fault (docs/large-sessions.md, "Reading the file"). One pass
    over the file finds where the lines start; the parse then reads the lines again, a window at a
    time, into one buffer. The file is only read up to ``size`` (what it held when it was opened: an
    agent may append meanwhile). A line that no longer ends where it did in the first pass means the
    file was rewritten in between: ``SessionFileError``, never a mixed session.

    ``skim`` (with ``least``): called on the first pass with each line of at least ``least`` bytes
    that lies whole in a window; what it gives is in ``heads`` (line index → value). The parse then
    takes a line's head instead of reading the line again, and the reads skip such lines' bytes.
    ``known``: that first pass, made before over the same bytes (``first_pass``): not made again.
    """

    def __init__(self, fh: BufferedIOBase, size: int, path: str, diags: list[Diagnostic], *,
                 window: int = WINDOW_BYTES, skim: Callable[[memoryview], Any] | None = None,
                 least: int = 0, known: FirstPass | None = None) -> None:
        self._fh, self._size, self._path, self._diags = fh, size, path, diags
        self._fd = _fileno(fh) if hasattr(os, "preadv") else None
        self._reported: set[int] = set()
        self._buf = bytearray(max(1, min(window, size)))
        self._view = memoryview(self._buf)
        self._window = len(self._buf)
        self._lo = self._hi = 0  # the file's bytes [lo, hi) are in the buffer
        if known is not None:
            self.offsets, self.heads, self._last = known.offsets, dict(known.heads), known.last
            self._skipped = array("q", sorted(k for k, head in self.heads.items() if head is not None))
            return
        self.heads = {}
        self._skipped = array("q")  # the lines with a head, in order: the reads stop short of them
        self.offsets = array("q", [3 if self._read_at(0, min(3, size)).tobytes() == b"\xef\xbb\xbf" else 0])
        at = 0
        while at < size:
            n = len(self._read_at(at, min(self._window, size - at)))
            first = len(self.offsets) - 1  # the line that starts at the last start found
            _add_line_starts(self._buf, 0, n, at, self.offsets)
            if skim is not None:
                self._skim(first, at, skim, least)
            at += n
        self._last = self._read_at(size - 1, 1).tobytes() if size else b""
        self.offsets.append(size + 1)  # where a line after the last newline would start

    def first_pass(self) -> FirstPass:
        """What the first pass found, before the parse takes the heads (for ``known``)."""
        return FirstPass(self.offsets, dict(self.heads), self._last)

    def _skim(self, first: int, at: int, skim: Callable[[memoryview], Any], least: int) -> None:
        """``skim`` each long line that ends in the window just read and starts in it."""
        offsets, view, heads, skipped = self.offsets, self._view, self.heads, self._skipped
        for k in range(first, len(offsets) - 1):
            start, end = offsets[k], offsets[k + 1] - 1
            if start >= at and end - start >= least:
                head = heads[k] = skim(view[start - at:end - at])
                if head is not None:
                    skipped.append(k)

    @property
    def ends_with_newline(self) -> bool:
        return self._last == b"\n"

    def _read_at(self, at: int, n: int) -> memoryview:
        """The file's bytes [at, at + n) into the buffer (a bigger one for a longer line)."""
        if n > len(self._buf):
            self._buf = bytearray(n)
            self._view = memoryview(self._buf)
        fd = self._fd
        if fd is not None:  # one system call: a buffered read of a short run would read ahead of it
            got = os.preadv(fd, [self._view[:n]], at)
        else:
            self._fh.seek(at)
            got = self._fh.readinto(self._view[:n])
        if got != n:
            raise SessionFileError("the file became shorter while it was read: open it again", path=self._path)
        self._lo, self._hi = at, at + n
        return self._view[:n]

    def raw(self, index: int) -> memoryview:
        at, end = self.offsets[index], self.offsets[index + 1] - 1  # end: the line's newline, or size
        if not (self._lo <= at and min(end + 1, self._size) <= self._hi):
            stop = min(self._size, at + self._window)
            skipped = self._skipped
            if skipped:  # up to the next line the parse takes the head of, at most
                k = bisect_right(skipped, index)
                if k < len(skipped):
                    stop = min(stop, self.offsets[skipped[k]])
            self._read_at(at, max(stop, min(self._size, end + 1)) - at)
        view, lo = self._view, self._lo
        if end < self._size and view[end - lo] != 10:
            raise SessionFileError("the file changed while it was read (a line no longer ends where it did): "
                                   "open it again", path=self._path, line=index + 1)
        return view[at - lo:end - lo]


def _has_float(value: Any) -> bool:
    """Whether ``value`` holds a float anywhere (orjson gives an integer beyond 64 bits as one)."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            push(item.values())
        elif kind is list:
            push(item)
        elif kind is float:
            return True
    return False


_UNTRIED = object()  # a line the first pass did not skim

# Up to this many bytes a line is scanned for a long digit run before its value is walked for floats.
_SCAN_FIRST = 4096


def _long_digit_run(raw: bytes | memoryview) -> bool:
    """Whether ``raw`` holds a run of 19 or more digits not right after a "." (see ``_DIGIT_MAP``)."""
    return _integer_run(bytes(raw).translate(_DIGIT_MAP))


_REFUSED = object()  # what ``_orjson_value`` gives for a line the standard library must parse


def _orjson_value(line: bytes | memoryview) -> Any:
    """``line``'s value through orjson, or ``_REFUSED`` when orjson refuses it or may have lost an
    integer's digits (a float in the value and a long digit run in the line).

    The two tests run cheaper first: a short line's bytes are scanned in C faster than its value is
    walked in Python, a long line's value is walked faster than its bytes are copied."""
    try:
        value = _fast_loads(line)
    except ValueError:
        return _REFUSED
    lost = ((_long_digit_run(line) and _has_float(value)) if len(line) < _SCAN_FIRST
            else (_has_float(value) and _long_digit_run(line)))
    return _REFUSED if lost else value

def _loads_bytes_lines(lines: ByteLines) -> Any:
    """The per-line parser of a file read line by line: a marker, ``_values`` reads each line's bytes.

    Each line's bytes go to orjson as they are (no decoding to text first); a line orjson refuses is
    decoded (reporting bad UTF-8 as before) and parsed by the standard library, whose value or error
    the file's text has (orjson gives the same value for every line it accepts that has no 19-digit
    run). Instead of one scan of the whole file for long digit runs (two C passes over each byte:
    2.4 s of a 1 GB file's 9.4 s), only a line whose value holds a float is scanned, since that is the
    only way orjson can have lost an integer's digits (docs/large-sessions.md). Same values, same
    diagnostics: the differential test runs both roads.
    """
    return lines


_NEWLINE_BYTES = re.compile(b"\n")


def parse_session_bytes(data: bytes, *, path: str = "<memory>", strict: bool = True,
                        stamp: tuple[int, int] | None = None) -> Session:
    """Parse the bytes of a session file; see ``load_session`` for ``strict``. ``stamp``: the file's
    (size, mtime in ns) when ``data`` was read from it, which ``read_record`` checks."""
    whole = len(data) < LINE_BY_LINE_BYTES and (len(data) < NON_ASCII_BY_LINE_BYTES or data.isascii())
    loads_line = _line_loader(data) if whole else None
    if loads_line is _loads_fast:
        return _parse_whole_file(data, loads_line, path=path, strict=strict, stamp=stamp)
    # A big file; one of some size with text beyond ASCII, whose whole decode is slow and whose lines
    # orjson reads slower as text than as bytes; or one holding a long digit run, which would give
    # every line of the whole-file road to the standard library: the line-by-line road reads each
    # line's bytes, and decides per line (``_orjson_value``). Real pi sessions parse 1.2-1.4x faster so
    # (docs/large-sessions.md).
    diags: list[Diagnostic] = []
    with paused_gc():
        return _parse_by_line(ByteLines(data, path, diags, _bom_bytes(data)), path=path, diags=diags, strict=strict,
                              stamp=stamp)


def _bom_bytes(data: bytes) -> int:
    """How many bytes a UTF-8 byte order mark takes at the start of ``data`` (0 or 3)."""
    return 3 if data.startswith(b"\xef\xbb\xbf") else 0


def _parse_whole_file(data: bytes, loads_line: Any, *, path: str, strict: bool,
                      stamp: tuple[int, int] | None = None) -> Session:
    """``parse_session_bytes`` by one decode of the whole file, each line parsed by ``loads_line``
    (``_line_loader``): the same session as the line-by-line road (``tests/sessions``)."""
    diags: list[Diagnostic] = []
    start = _bom_bytes(data)
    with paused_gc():
        lines = _decode_lines(data[start:] if start else data, path, diags)
        session = _parse_lines(lines, path=path, diags=diags, ends_with_newline=data.endswith(b"\n"), strict=strict,
                               loads_line=loads_line)
    return dataclasses.replace(session, line_offsets=_line_offsets(data, start), file_stamp=stamp)


def parse_session_file(fh: BufferedIOBase, size: int, *, path: str, strict: bool = True,
                       stamp: tuple[int, int] | None = None, leave_from: int | None = None,
                       passes: PassCache | None = None) -> Session:
    """Parse the first ``size`` bytes of an open session file, as ``parse_session_bytes`` parses them.

    From ``LINE_BY_LINE_BYTES`` on, the file is read a window at a time (``FileLines``), never whole.
    ``leave_from``: leave each tool result whose line has at least that many bytes in the file
    (``OnDisk``: read back through ``Entry.raw``; ``workbench.sessions.records``). Such a file is
    read a window at a time whatever its size; the records are the same either way. ``passes``: where
    the first pass of a file read a window at a time is kept for the next open, and looked up
    (``workbench.sessions.first_pass``); the session is the same either way.
    """
    if size < LINE_BY_LINE_BYTES and leave_from is None:
        fh.seek(0)
        return parse_session_bytes(fh.read(size), path=path, strict=strict, stamp=stamp)
    diags: list[Diagnostic] = []
    with paused_gc():
        lines = _file_lines(fh, size, path, diags, leave_from, passes)[0]
        leave = None if leave_from is None else (leave_from, LineReader(path, lines.offsets, size, _record_of_line,
                                                                        _fileno(fh)))
        return _parse_by_line(lines, path=path, diags=diags, strict=strict, stamp=stamp, leave=leave)


def _file_lines(fh: BufferedIOBase, size: int, path: str, diags: list[Diagnostic], leave_from: int | None,
                passes: PassCache | None) -> tuple[FileLines, bool]:
    """The file's ``FileLines`` with its first pass read from ``passes``, or made and kept there when
    the file is settled and was not written to meanwhile; and whether a pass is kept there now."""
    fd, least = _fileno(fh), leave_from or 0
    key = passes.key(fd, size, WINDOW_BYTES, least) if passes is not None and fd is not None else None
    known = passes.load(key) if passes is not None and key is not None else None
    lines = FileLines(fh, size, path, diags, window=WINDOW_BYTES, known=known,
                      skim=None if leave_from is None else skim_tool_result, least=least)
    if passes is None or fd is None or key is None or known is not None:
        return lines, known is not None
    if passes.key(fd, size, WINDOW_BYTES, least) != key or not passes.settled(fd, size):
        return lines, False
    return lines, passes.save(key, lines.first_pass())


def keep_first_pass(path: str | os.PathLike[str], passes: PassCache) -> bool:
    """Make and keep the first pass the app's load of the file at ``path`` would make (its whole
    lines, big tool results skimmed), unless one is kept already; nothing is parsed. True when a pass
    for the file as it is now is kept. A file not read a window at a time has no pass to keep."""
    name = os.fspath(path)
    with open(name, "rb") as fh:
        size = whole_lines_end(fh, os.fstat(fh.fileno()).st_size)
        least = results_left_from(size)
        if least is None or not passes.settled(fh.fileno(), size):
            return False
        if passes.has(passes.key(fh.fileno(), size, WINDOW_BYTES, least)):
            return True  # (a damaged one is made again by the open that cannot read it)
        with paused_gc():
            return _file_lines(fh, size, name, [], least, passes)[1]


def _fileno(fh: BufferedIOBase) -> int | None:
    try:
        return fh.fileno()
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError
        return None


def results_left_from(size: int) -> int | None:
    """The ``leave_from`` the app gives ``parse_session_file`` for a file of ``size`` bytes: big
    files (the ones read a window at a time) leave their tool results of 16 kB or more in the file."""
    return LAZY_LINE_BYTES if size >= LINE_BY_LINE_BYTES else None


def _record_of_line(raw: bytes) -> Any:
    """A line's value as the window-at-a-time road gives it (for a record read back from its file)."""
    value = _orjson_value(raw)
    return _loads_line(raw.decode("utf-8", errors="replace")) if value is _REFUSED else value


def whole_lines_end(fh: BufferedIOBase, size: int) -> int:
    """Where the last whole line of an open file's first ``size`` bytes ends: just after its last
    newline (0: no newline). Read from the end backwards, in growing steps."""
    end, step = size, 1 << 16
    while end > 0:
        at = max(0, end - step)
        fh.seek(at)
        hit = fh.read(end - at).rfind(b"\n")
        if hit >= 0:
            return at + hit + 1
        end, step = at, step * 2
    return 0


def _parse_by_line(lines: ByteLines, *, path: str, diags: list[Diagnostic], strict: bool,
                   stamp: tuple[int, int] | None, leave: tuple[int, LineReader] | None = None) -> Session:
    session = _parse_lines(lines, path=path, diags=diags, ends_with_newline=lines.ends_with_newline, strict=strict,
                           loads_line=_loads_bytes_lines, leave=leave)
    return dataclasses.replace(session, line_offsets=lines.offsets, file_stamp=stamp)


def _line_offsets(data: bytes | memoryview, start: int) -> array[int]:
    offsets = array("q", [start])
    if isinstance(data, bytes):
        _add_line_starts(data, start, len(data), 0, offsets)
    else:
        offsets.extend(m.end() for m in _NEWLINE_BYTES.finditer(data, start))
    offsets.append(len(data) + 1)  # where a line after the last newline would start
    return offsets


def _add_line_starts(buf: bytes | bytearray, start: int, end: int, base: int, offsets: array[int]) -> None:
    """Append ``base + i + 1`` for each newline ``i`` in ``buf[start:end]``: where the next line starts.

    ``find`` of one byte is memchr: a third of the time of a regex's matches on a 1 GB file."""
    find, add = buf.find, offsets.append
    hit = find(b"\n", start, end)
    while hit >= 0:
        add(base + hit + 1)
        hit = find(b"\n", hit + 1, end)


def read_record(session: Session, entry: Entry) -> dict[str, Any]:
    """``entry``'s record as its line in the file holds it, read by the line's byte offset (the
    record as written: a v1/v2 file's in-memory migrations are not applied).

    The file is opened read-only. A file that changed on disk since the session was read (another
    size or modification time, or the line no longer holds this entry's record) raises
    ``SessionFileError`` saying to reopen it: the offsets would point into other records.
    """
    offsets, where = session.line_offsets, session.path
    if offsets is None or session.file_stamp is None or not 0 < entry.line < len(offsets):
        raise SessionFileError("the session was not read from a file: no record to read back", path=where)
    try:
        with open(where, "rb") as fh:
            st = os.fstat(fh.fileno())
            if (st.st_size, st.st_mtime_ns) != session.file_stamp:
                raise SessionFileError("the file changed on disk since it was opened: open it again to see it as it is now",
                                       path=where, line=entry.line)
            fh.seek(offsets[entry.line - 1])
            raw = fh.read(offsets[entry.line] - 1 - offsets[entry.line - 1])
    except OSError as exc:
        raise SessionFileError(f"cannot read: {exc.strerror or exc}", path=where, line=entry.line) from None
    try:
        value = _loads_line(raw.decode("utf-8", errors="replace"))
    except ValueError:
        value = None
    if not isinstance(value, dict) or (value.get("id") != entry.raw.get("id")):
        raise SessionFileError("the file changed on disk since it was opened (the line no longer holds this entry): "
                               "open it again", path=where, line=entry.line)
    return value


def parse_session_text(text: str, *, path: str = "<memory>", strict: bool = True) -> Session:
    """Parse the text of a session file. Raises ``SessionFileError`` when it is not a session (strict)."""
    with paused_gc():
        return _parse_lines(text.split("\n"), path=path, diags=[], ends_with_newline=text.endswith("\n"), strict=strict,
                            loads_line=_line_loader(text))


def empty_session(path: str, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> Session:
    """What the agent loads from an unusable file: no header, no entries; the diagnostics say why."""
    return Session(path=path, header={}, entries=(), diagnostics=tuple(sorted(diagnostics, key=lambda d: d.line)))


def load_session(path: str | os.PathLike[str], *, strict: bool = True, leave_big_results: bool = False) -> Session:
    """Load a session file (read-only).

    ``strict=True`` (the CLI and the app): ``SessionFileError`` naming the file when it is missing,
    empty or not a session. ``strict=False`` (the agent's answer): such a file loads as a session
    with no entries and a diagnostic (``missing-file``, ``empty-file``, ``no-header``). A directory
    or an unreadable file raises either way, as it does in the agent. ``leave_big_results``: a big
    file's large tool results stay in it, and its first pass is kept for the next open
    (``PassCache.default()``), as the app reads it (``results_left_from``).
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):  # a pipe (``<(…)``) has no size to read up to: all of it
                return parse_session_bytes(fh.read(), path=name, strict=strict)
            return parse_session_file(fh, st.st_size, path=name, strict=strict, stamp=(st.st_size, st.st_mtime_ns),
                                      leave_from=results_left_from(st.st_size) if leave_big_results else None,
                                      passes=PassCache.default() if leave_big_results else None)
    except IsADirectoryError:
        raise SessionFileError("is a directory, not a session file", path=name) from None
    except FileNotFoundError:
        if not strict:
            return empty_session(name, [Diagnostic(path=name, line=0, kind="missing-file", message="file not found: no entries")])
        raise SessionFileError("file not found", path=name) from None
    except OSError as exc:
        raise SessionFileError(f"cannot read: {exc.strerror or exc}", path=name) from None


def _is_blank(text: str) -> bool:
    # ``text.strip(...)`` copies the line; a first character that is not blank already says "keep".
    return not text or (text[0] in _WHITESPACE and not text.strip(_WHITESPACE))


def _parse_lines(
    lines: Sequence[str], *, path: str, diags: list[Diagnostic], ends_with_newline: bool, strict: bool = True,
    loads_line: Any = _loads_line, leave: tuple[int, LineReader] | None = None,
) -> Session:
    """``lines[n - 1]`` is physical line ``n``; blank lines are skipped, as the agent skips them.

    The records are made into entries as they are parsed (``_values`` is a generator): a record's
    fields are read while it is still in the cache, and each entry lands in memory next to its
    record, which the passes after loading (the tree, the rows) read together: ``tree --json`` of
    100k entries ran 10-15% faster than when all lines were parsed first.
    """
    not_loaded: list[NotLoaded] = []
    last_line = len(lines)  # the last line that is not blank (0: none), for "truncated"
    while last_line and _is_blank(lines[last_line - 1]):
        last_line -= 1
    title_slot, slot_line = _title_slot(lines[0] if lines else "", path, diags)
    values = _values(lines, 1 if slot_line else 0, path=path, diags=diags, not_loaded=not_loaded,
                     truncated_at=0 if ends_with_newline else last_line, loads_line=loads_line,
                     last_line=last_line, leave=leave)
    first = next(values, None)
    if first is None:
        if not strict:
            if last_line:
                diags.append(Diagnostic(path=path, line=last_line or 1, kind="no-header", message="no JSON record loads: no entries"))
            else:
                diags.append(Diagnostic(path=path, line=0, kind="empty-file", message="the file is empty: no entries"))
            return empty_session(path, diags)
        raise SessionFileError("not a session: no JSON records", path=path)
    first_line, first_value = first
    if not (isinstance(first_value, dict) and first_value.get("type") == "session" and isinstance(first_value.get("id"), str)):
        if not strict:
            for _ in values:  # every bad line is still reported
                pass
            # The agent checks only the first record: without a header nothing after it loads either.
            diags.append(Diagnostic(path=path, line=first_line, kind="no-header",
                                    message="the first record is not a session header (type \"session\" with a string "
                                    "id): the agent loads no entries"))
            return empty_session(path, diags)
        raise SessionFileError(
            "not a session: the first record is not a session header", path=path, line=first_line, field="type"
        )
    return _build(path, first, values, diags, not_loaded, title_slot)


def _title_slot(text: str, path: str, diags: list[Diagnostic]) -> tuple[dict[str, Any] | None, bool]:
    """The omp17 title slot on the first line: (the slot or None, whether the line is taken by it)."""
    if _is_blank(text) or '"title"' not in text:
        return None, False
    try:
        slot = _loads(text)
    except ValueError:
        return None, False
    if is_title_slot(slot):
        return slot, True
    if isinstance(slot, dict) and slot.get("type") == "title":
        # An invalid slot: the reference would choke on it as a header; we skip and report it.
        diags.append(Diagnostic(path=path, line=1, kind="title-slot", message="invalid title slot on the first line ignored"))
        return None, True
    return None, False


def _values(lines: Sequence[str], start: int, *, path: str, diags: list[Diagnostic], not_loaded: list[NotLoaded],
            truncated_at: int, loads_line: Any, last_line: int = 0,
            leave: tuple[int, LineReader] | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each line from ``lines[start]`` on that is one JSON value, as it is
    parsed; blank lines are skipped and the others reported (``truncated_at``: the last line, when
    the file does not end with a newline). ``leave``: see ``_byte_line_values``."""
    if loads_line is _loads_bytes_lines and isinstance(lines, ByteLines):
        yield from _byte_line_values(lines, start, path=path, diags=diags, not_loaded=not_loaded,
                                     truncated_at=truncated_at, last_line=last_line, leave=leave)
        return
    fast = _fast_loads if loads_line is _loads_fast else loads_line
    for number, text in enumerate(islice(lines, start, None), start + 1):
        if not number & GIVE_WAY_EVERY:
            give_way()
        try:
            try:
                value = fast(text)  # orjson straight away: no Python frame per line
            except ValueError:
                if _is_blank(text):  # no parser takes a blank line: asked only once one refuses it
                    continue
                if fast is loads_line:
                    raise
                value = _loads_line(text)  # the standard library's value or error (see _loads_fast)
        except ValueError as exc:
            _refused(text, number, exc, path=path, diags=diags, not_loaded=not_loaded, truncated_at=truncated_at,
                     last_line=last_line)
            continue
        yield number, value


def _refused(text: str, number: int, exc: ValueError, *, path: str, diags: list[Diagnostic],
             not_loaded: list[NotLoaded], truncated_at: int, last_line: int) -> None:
    """Report line ``number``, which no parser takes: glued objects, a cut-off last line, or bad JSON."""
    glued = _split_objects(text)
    if glued is not None:
        diags.append(
            Diagnostic(path=path, line=number, kind="two-objects", message=f"{len(glued)} JSON objects on one line; the agent skips the whole line")
        )
        not_loaded.extend(NotLoaded(number, v, "glued to another object on the same line") for v in glued)
    elif number == truncated_at:
        diags.append(Diagnostic(path=path, line=number, kind="truncated",
                                message=f"last line is cut short at {_where(number, exc)}: "
                                f"{_what(exc)}; the file may still be being written"))
    else:
        still = "; it is the last line: the file may still be being written" if number == last_line else ""
        diags.append(Diagnostic(path=path, line=number, kind="malformed",
                                message=f"not valid JSON at {_where(number, exc)}, skipped: {_what(exc)}{still}"))


def _byte_line_values(lines: ByteLines, start: int, *, path: str, diags: list[Diagnostic], not_loaded: list[NotLoaded],
                      truncated_at: int, last_line: int,
                      leave: tuple[int, LineReader] | None = None) -> Iterator[tuple[int, Any]]:
    """``_values`` for a file read line by line (``_loads_bytes_lines``): orjson on each line's bytes; a
    line it refuses, or whose value holds a float while the line holds a long digit run, goes the
    standard library's way, decoded as ``lines[n]`` decodes it. ``leave`` = (bytes, reader): a tool
    result's line of at least that many bytes that the skim takes is left in the file (``OnDisk``)."""
    raw, fast = lines.raw, _orjson_value
    least, reader = leave if leave is not None else (-1, None)
    skimmed = lines.heads if isinstance(lines, FileLines) and least >= 0 else {}
    for index in range(start, len(lines)):
        if not index & GIVE_WAY_EVERY:
            give_way()
        head = skimmed.pop(index, _UNTRIED) if skimmed else _UNTRIED  # skimmed on the first pass
        if head is not _UNTRIED and head is not None:
            yield index + 1, OnDisk(head, index + 1, reader)  # type: ignore[arg-type]
            continue
        line = raw(index)  # valid until the next line is read (a window's buffer is reused)
        if head is _UNTRIED and 0 <= least <= len(line):
            head = skim_tool_result(line)
            if head is not None:
                yield index + 1, OnDisk(head, index + 1, reader)  # type: ignore[arg-type]
                continue
        value = fast(line)
        if value is not _REFUSED:
            yield index + 1, value
            continue
        text = lines[index]  # decoded (bad UTF-8 reported) only on this road
        if _is_blank(text):
            continue
        try:
            value = _loads_line(text)
        except ValueError as exc:
            _refused(text, index + 1, exc, path=path, diags=diags, not_loaded=not_loaded, truncated_at=truncated_at,
                     last_line=last_line)
            continue
        yield index + 1, value


def _where(number: int, exc: ValueError) -> str:
    """Where on the file's line ``number`` the parser stopped: the parser counts within the one line
    it was given, so its "line 1" is dropped and only the file's line and the column are told."""
    col = getattr(exc, "colno", None)
    return f"line {number}, column {col}" if isinstance(col, int) else f"line {number}"


def _what(exc: ValueError) -> str:
    msg = getattr(exc, "msg", None)
    return msg if isinstance(msg, str) else str(exc)


def _mint_id(seed: str, used: set[str]) -> str:
    # Deterministic (same file → same ids across reloads) where the agent would draw random ones.
    counter = 0
    while True:
        candidate = hashlib.sha1(f"{seed}:{counter}".encode()).hexdigest()[:8]
        if candidate not in used:
            used.add(candidate)
            return candidate
        counter += 1


def _build(
    path: str,
    header_rec: tuple[int, Any],
    records: Iterator[tuple[int, Any]],
    diags: list[Diagnostic],
    not_loaded: list[NotLoaded],
    title_slot: dict[str, Any] | None,
) -> Session:
    header: dict[str, Any] = header_rec[1]
    raw_version = header.get("version")
    # ``header.version ?? 1`` compared as JS compares: "2" is 2, a non-number string is NaN, and NaN
    # passes neither ``< 2`` nor ``< 3``, so such a file is not migrated at all.
    version = js_number(1 if raw_version is None else raw_version)
    if version > CURRENT_VERSION:
        diags.append(Diagnostic(path=path, line=header_rec[0], kind="newer-version",
                                message=f"version {raw_version!r} is newer than {CURRENT_VERSION}, the newest this workbench "
                                "follows (omp 18.3.4, pi 0.73): read as version 3"))
    if not version < 3:  # no migration (NaN compares false too): one pass from records to entries
        entries, by_id, facts = _make_entries(path, header, records, diags)
        return _session(path, header, version, entries, by_id, diags, not_loaded, title_slot, facts)
    objects: list[tuple[int, dict[str, Any]]] = []
    for rec_line, rec_value in records:  # all of them first: migrations look across records
        if type(rec_value) is OnDisk:
            rec_value = rec_value.read()  # migrations copy records: none is left in the file
        if isinstance(rec_value, dict):
            objects.append((rec_line, rec_value))
        else:
            diags.append(Diagnostic(path=path, line=rec_line, kind="not-object", message=f"a JSON {type(rec_value).__name__}, not an object"))

    # The ids in use, for minting (v1 files, entries without id).
    used = _ids_in_use(objects)
    migrated: list[dict[str, Any] | None] = [None] * len(objects)
    if version < 2:
        # v1 → v2: one linear chain in file order; firstKeptEntryIndex indexes the parsed list with the
        # header at 0, and ids are minted in the same pass (a forward index finds no id yet).
        prev: str | None = None
        for i, (line, obj) in enumerate(objects):
            if obj.get("type") == "session":  # a second header: left out of the chain, as the agent does
                continue
            new = dict(obj)
            new["id"] = _mint_id(f"{header.get('id')}:{line}", used)
            new["parentId"] = prev
            prev = new["id"]
            if new.get("type") == "compaction" and "firstKeptEntryIndex" in new:
                idx = new.pop("firstKeptEntryIndex")
                if isinstance(idx, (int, float)) and not isinstance(idx, bool) and float(idx).is_integer():
                    k = int(idx) - 1  # list index → objects index
                    if 0 <= k <= i and objects[k][1].get("type") != "session":
                        new["firstKeptEntryId"] = (migrated[k] or {}).get("id") if k < i else new["id"]
            migrated[i] = new
    if version < 3:
        for i, (_line, obj) in enumerate(objects):
            cur = migrated[i] or obj
            msg = cur.get("message")
            if cur.get("type") == "message" and isinstance(msg, dict) and msg.get("role") == "hookMessage":
                cur = dict(cur)
                cur["message"] = {**msg, "role": "custom"}
                migrated[i] = cur

    entries, by_id, facts = _make_entries(path, header, objects, diags, migrated, used)
    return _session(path, header, version, entries, by_id, diags, not_loaded, title_slot, facts)


def _make_entries(
    path: str, header: dict[str, Any], records: Iterable[tuple[int, Any]], diags: list[Diagnostic],
    migrated: list[dict[str, Any] | None] | None = None, used: set[str] | None = None,
) -> tuple[list[Entry], dict[str, Entry], LoadFacts]:
    """The entries of the records (each object after the header), by id, and the facts the checks
    and the tree need (``LoadFacts``), noted on the way, in one loop.

    ``records`` may still be being parsed (a generator). ``migrated[k]``: record ``k`` as the agent
    sees it after migrations (None: as it is; then every record is an object), which is what the
    fields are read from; ``used`` is then given: the ids in use (minted ones included), for minting
    ids of entries that have none. Diagnostics are sorted by line later, and one line holds one
    record, so appending them in one loop changes no order.
    """
    facts = LoadFacts(set(), [], [], [], {})
    add_type, add_parent, suspects, late = facts.types.add, facts.parents.append, facts.suspects, facts.late
    position = facts.position
    entries: list[Entry] = []
    by_id: dict[str, Entry] = {}
    append = entries.append
    make = make_entry
    pending: Iterable[tuple[int, Any]] | None = records
    start = 0
    while pending is not None:  # twice at most: the rest of the records is read at once to mint an id
        source, pending = iter(pending), None
        for k, (line, obj) in enumerate(source, start):
            data = migrated[k] if migrated is not None else None
            if type(obj) is dict:
                view = obj if data is None else data
            elif type(obj) is OnDisk:  # never migrated (see _build)
                view = obj.head
            elif isinstance(obj, dict):
                view = obj if data is None else data
            else:
                diags.append(Diagnostic(path=path, line=line, kind="not-object", message=f"a JSON {type(obj).__name__}, not an object"))
                continue
            if view.get("type") == "session":
                # pi and omp drop every header line from the entries (a reused file holds two)
                diags.append(Diagnostic(path=path, line=line, kind="second-header",
                                        message=f"the file holds a second session header at line {line}; "
                                        "dropped from the entries, as the agents drop it"))
                continue
            index = len(entries)
            entry_id = view.get("id")
            if type(entry_id) is not str and not isinstance(entry_id, str):
                if used is None:
                    # A minted id avoids every id of the file, and the records after this one are not
                    # parsed yet: read them all now; they are made into entries from that list.
                    pending = list(source)
                    start = k + 1
                    used = _ids_in_use([(e.line, e.record) for e in entries], pending)
                entry_id = _mint_id(f"{header.get('id')}:{line}:missing", used)
                data = view = {**view, "id": entry_id}
                diags.append(Diagnostic(path=path, line=line, kind="missing-id", message=f"entry has no string id; shown as {entry_id}"))
            # The type tests run only on the rare value that is not a plain str (or None).
            parent = view.get("parentId")
            if parent is None:
                add_parent(-1)
            else:
                if type(parent) is not str:
                    parent = parent if isinstance(parent, str) else None
                earlier = position.get(parent) if parent is not None else None
                if earlier is None:
                    add_parent(-1)
                    if parent is not None:
                        late.append(index)
                else:
                    add_parent(earlier)
            etype = view.get("type")
            if type(etype) is not str:
                etype = etype if isinstance(etype, str) else ""
            add_type(etype)
            if etype == "message" and type(view.get("message")) is not dict:
                suspects.append(index)
            entry = make(entry_id, parent, etype, view.get("timestamp"), obj, line, index, data)
            by_id[entry_id] = entry
            position[entry_id] = index
            append(entry)
    if len(by_id) != len(entries):
        diags.extend(_duplicate_ids(path, entries))
    return entries, by_id, facts


def _ids_in_use(*records: Iterable[tuple[int, Any]]) -> set[str]:
    """The string ids of the records (what a minted id must avoid)."""
    heads = ((o.head if type(o) is OnDisk else o) for part in records for _, o in part)
    return {o["id"] for o in heads if isinstance(o, dict) and isinstance(o.get("id"), str)}


def _duplicate_ids(path: str, entries: list[Entry]) -> list[Diagnostic]:
    """One diagnostic per entry whose id an earlier entry holds (naming the nearest such line)."""
    out: list[Diagnostic] = []
    last: dict[str, Entry] = {}
    for entry in entries:
        earlier = last.get(entry.id)
        if earlier is not None:
            out.append(Diagnostic(path=path, line=entry.line, kind="duplicate-id",
                                  message=f"id {entry.id!r} already used on line {earlier.line}; this one wins"))
        last[entry.id] = entry
    return out


def _session(
    path: str, header: dict[str, Any], version: float, entries: list[Entry], by_id: dict[str, Entry],
    diags: list[Diagnostic], not_loaded: list[NotLoaded], title_slot: dict[str, Any] | None,
    facts: LoadFacts,
) -> Session:
    links = EntryLinks(facts.position, facts.parents if facts.settled(entries, by_id) else None)
    diags.extend(structure_diagnostics(path, entries, by_id, facts))
    diags.extend(unknown_types(path, entries, facts))
    diags.extend(odd_messages(path, entries, facts))
    if version < 3:
        header = {**header, "version": 3}
    diags.sort(key=lambda d: d.line)  # type: ignore[arg-type, return-value]
    declared = int(version) if math.isfinite(version) and version.is_integer() else CURRENT_VERSION
    return Session(
        path=path,
        header=header,
        entries=tuple(entries),
        diagnostics=tuple(diags),
        not_loaded=tuple(not_loaded),
        title_slot=title_slot,
        original_version=declared,
        by_id=by_id,
        links=links,
    )


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Header-level metadata, read from the first lines only."""

    path: str
    id: str
    cwd: str | None
    title: str | None
    title_source: str | None
    version: int
    timestamp: Any
    parent_session: str | None


def session_info(path: str | os.PathLike[str]) -> SessionInfo:
    """Cheap metadata of a session file (title slot + header); raises ``SessionFileError``."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            head = fh.read(1 << 20)
    except OSError as exc:
        raise SessionFileError(f"cannot read: {exc.strerror or exc}", path=name) from None
    slot: dict[str, Any] | None = None
    header: dict[str, Any] | None = None
    for number, raw in enumerate(head.split(b"\n")[:-1] or head.split(b"\n"), start=1):
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        try:
            value = _loads(text)
        except ValueError:
            if number == 1 or header is None:
                continue
            break
        if number == 1 and is_title_slot(value):
            slot = value
            continue
        if isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str):
            header = value
        break
    if header is None:
        raise SessionFileError("not a session: the first record is not a session header", path=name)
    title = header.get("title") if isinstance(header.get("title"), str) else None
    source = header.get("titleSource") if isinstance(header.get("titleSource"), str) else None
    if slot is not None:
        title = slot.get("title") or None
        source = slot.get("source", source)
    version = header.get("version")
    parent = header.get("parentSession")
    return SessionInfo(
        path=name,
        id=header["id"],
        cwd=header.get("cwd") if isinstance(header.get("cwd"), str) else None,
        title=title or None,
        title_source=source,
        version=version if isinstance(version, int) else 1,
        timestamp=header.get("timestamp"),
        parent_session=parent if isinstance(parent, str) else None,
    )
