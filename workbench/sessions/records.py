"""Big tool results left in their session file, and read back by their line's offset when asked for.

On a big session the tool results are most of the bytes, and the tree reads only their ids, role and
tool names (docs/large-sessions.md, "Records left in the file"). The loader checks such a line with
simdjson, a validating parser that builds Python objects only for the values read, keeps the record's
scalar fields and its message's (``head``), and leaves the rest in the file (``OnDisk``).
``LineReader.read`` parses the line again, as the loader would have, when ``Entry.raw`` is asked for.

A line is only left in the file when the full parse would give the same record: simdjson refuses
every line JSON.parse could read differently from it (bad UTF-8, a lone surrogate escape, an integer
beyond 64 bits, a number out of range, glued objects), and the skim refuses floats and repeated keys
in what it keeps, message fields the tree reads that are not short scalars, content that is not a
string or typed blocks, and details that name subagents. Those lines take the loader's usual road.
"""

from __future__ import annotations

import os
import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import simdjson

from workbench.errors import SessionFileError

# A tool result's line from this size on is left in the file (in a file the loader reads a window at a
# time); smaller ones cost less to parse than to read back.
LAZY_LINE_BYTES = 16 << 10
# A string the head would keep from this length on is left in the file with the rest.
_HEAD_STRING_CHARS = 1024
# Records read back and kept for the next ask (an entry's detail asks several times).
_KEPT = 32
# A thread keeps its parser for lines up to this size; a longer one gets a parser of its own, dropped
# after it (a parser keeps buffers as big as the longest document it parsed).
_REUSE_BYTES = 1 << 20

_local = threading.local()
_Object, _Array = simdjson.Object, simdjson.Array
_MISSING = object()


def _parser() -> simdjson.Parser:
    # A parser is one thread's: it reuses its buffers, and refuses a new document while values of the
    # last one are still referenced.
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = simdjson.Parser()
    return parser


def skim_tool_result(line: bytes | bytearray | memoryview) -> dict[str, Any] | None:
    """The head of a tool result's line (see the module's text), or None when the line is anything
    else, or anything simdjson or the skim refuses: the loader then parses it whole."""
    try:
        doc = (_parser() if len(line) <= _REUSE_BYTES else simdjson.Parser()).parse(line)
    except Exception:  # noqa: BLE001 - any refusal (ValueError, RuntimeError, UnicodeDecodeError): the usual road
        return None
    head = _head(doc, _leaves_record)
    if head is None or head.get("type") != "message":
        return None
    message = head.get("message")
    if type(message) is not dict or message.get("role") != "toolResult":
        return None
    return head


def _leaves_record(key: str, value: Any) -> bool | None:
    """What the head does with a record's field that is not a short scalar: True leaves it in the file
    (the tree reads none of a message entry's other fields), None refuses the line."""
    if key == "message":
        return None if type(value) is not _Object else False
    return True


def _leaves_message(key: str, value: Any) -> bool | None:
    # The tree reads every field of a tool result's message but its content and details: those are
    # left in the file, and a line whose other fields are not scalars is parsed whole. Content left
    # in the file is a string or a list of typed blocks (objects with a string "type"), so that the
    # Stepper's lazy stream can count such a result without reading it (replay/derive.py); details
    # left there hold no "results", which name subagents (sessions/subagents.py reads the head).
    if key == "content" and (type(value) is str or _typed_blocks(value)):
        return True
    if key == "details" and not (type(value) is _Object and "results" in value.keys()):
        return True
    return None


def _typed_blocks(value: Any) -> bool:
    if type(value) is not _Array:
        return False
    for block in value:
        if type(block) is not _Object or type(block.get("type")) is not str:
            return False
    return True


def _head(value: Any, leaves: Callable[[str, Any], bool | None]) -> dict[str, Any] | None:
    """An object's short strings, integers, booleans and nulls, and under ``"message"`` its message's
    head; ``leaves`` says what becomes of each other field. None: the line is parsed whole."""
    if type(value) is not _Object:
        return None
    keys = list(value.keys())
    if len(set(keys)) != len(keys):  # JSON.parse keeps a repeated key's last value, simdjson its first
        return None
    out: dict[str, Any] = {}
    for key in keys:
        item: Any = value[key]  # ``items()`` would build whole dicts of the objects inside
        kind = type(item)
        if (kind is str and len(item) < _HEAD_STRING_CHARS) or kind is int or kind is bool or item is None:
            out[key] = item
            continue
        if kind is float:
            return None  # floats are left to the usual road's exact rules
        left = leaves(key, item)
        if left is None:
            return None
        if not left:
            inner = _head(item, _leaves_message)
            if inner is None:
                return None
            out[key] = inner
    return out


class LineReader:
    """Reads records back from the lines of one session file, checking they are still what was read.

    It reads through its own descriptor of the file that was parsed (``fd``, a duplicate of the
    loader's; else the path is opened at the first read): a file replaced since (written anew and
    renamed over) is still read as it was. The file may have grown (an agent appends to it): a line
    that still ends where it did and holds a record whose head is the one loaded is taken. A file
    that became shorter, or a line that no longer agrees, raises ``SessionFileError`` saying to open
    the session again.
    """

    def __init__(self, path: str, offsets: Sequence[int] | array[int], size: int,
                 parse: Callable[[bytes], Any], fd: int | None = None) -> None:
        self._path, self._offsets, self._size, self._parse = path, offsets, size, parse
        self._lock = threading.Lock()
        self._kept: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._fd: int | None = None
        if fd is not None:
            self._own(os.dup(fd))
        _readers.add(self)

    def _own(self, fd: int) -> None:
        self._fd = fd
        weakref.finalize(self, os.close, fd)  # closed with the reader (the session's last entry)

    def _file(self) -> int:
        with self._lock:
            if self._fd is None:
                self._own(os.open(self._path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)))
            return self._fd  # type: ignore[return-value]  # set just above

    def read(self, line: int, head: Mapping[str, Any]) -> dict[str, Any]:
        with self._lock:
            value = self._kept.get(line)
            if value is not None:
                self._kept.move_to_end(line)
                return value
        value = self._read(line, head)
        with self._lock:
            self._kept[line] = value
            while len(self._kept) > _KEPT:
                self._kept.popitem(last=False)
        return value

    def _read(self, line: int, head: Mapping[str, Any]) -> dict[str, Any]:
        at, end = self._offsets[line - 1], self._offsets[line] - 1  # end: the line's newline, or the end
        whole = end < self._size  # a last line without its newline ends at the end of what was read
        try:
            fd = self._file()
            if os.fstat(fd).st_size < self._size:
                raise SessionFileError("the file became shorter since it was opened: open it again",
                                       path=self._path, line=line)
            raw = os.pread(fd, end + 1 - at if whole else end - at, at)
        except OSError as exc:
            raise SessionFileError(f"cannot read: {exc.strerror or exc}", path=self._path, line=line) from None
        value = None
        if not whole or raw.endswith(b"\n"):
            try:
                value = self._parse(raw[:-1] if whole else raw)
            except ValueError:
                pass
        if not _agrees(value, head):
            raise SessionFileError("the file changed on disk since it was opened (the line no longer holds the "
                                   "record read there): open it again", path=self._path, line=line)
        return value  # type: ignore[return-value]


_readers: weakref.WeakSet[LineReader] = weakref.WeakSet()


def _unlock_in_child() -> None:
    # A time-bound check forks the served app, maybe while another thread holds a reader's lock: the
    # child, which reads records through the same readers, starts with every lock free.
    for reader in list(_readers):
        reader._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_unlock_in_child)


def _agrees(value: Any, head: Mapping[str, Any]) -> bool:
    """Whether ``value`` holds every field of ``head``, with the same type and value."""
    if type(value) is not dict:
        return False
    for key, kept in head.items():
        got = value.get(key, _MISSING)
        if type(kept) is dict:
            if not _agrees(got, kept):
                return False
        elif type(got) is not type(kept) or got != kept:
            return False
    return True
