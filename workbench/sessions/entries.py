"""Typed, frozen views of session file records: the header, entries, diagnostics and the session.

The raw JSON object of every record is kept verbatim (``raw``); ``data`` is the object as the agent
sees it after its in-memory migrations (v1 ids, v2 ``hookMessage`` → ``custom``). The two are the
same object when no migration touched the record. A big tool result of a big session may be left in
the file (``OnDisk``) and read back when ``raw`` is asked for.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Literal, Protocol

from workbench.errors import Diagnostic

# The ``kind`` of a session file's ``Diagnostic``.
DiagnosticKind = Literal[
    "malformed",  # a line that is not JSON (skipped, as the agent skips it)
    "two-objects",  # one line holding several JSON objects glued together (`}{`)
    "truncated",  # the last line is cut short (no closing newline, not JSON)
    "invalid-utf8",  # bytes that are not UTF-8 (decoded with U+FFFD like Node does)
    "not-object",  # valid JSON that is not an object (array, number, string)
    "missing-id",  # an entry without a string id (one is minted in memory)
    "duplicate-id",  # a later entry reuses an id (the later one wins in lookups)
    "missing-parent",  # parentId names no entry: the entry becomes a root (orphan)
    "cycle",  # a parent chain that loops: broken at the first entry in file order
    "title-slot",  # an omp title-slot first line that is not valid
    "missing-file",  # no such file: the agent starts with no entries (non-strict loads only)
    "empty-file",  # nothing but blank lines (non-strict loads only)
    "no-header",  # the first record is not a session header: the agent loads no entries (non-strict)
    "unknown-type",  # an entry type no known agent version writes (kept and shown)
    "newer-version",  # the header declares a version newer than the agents this workbench follows
    "message-not-object",  # a message entry whose `message` is a string (or other non-object)
]


# Kinds that describe the file rather than a fault in it (the agent loads such files normally).


class RecordReader(Protocol):
    """Reads back a record the loader left in the file (``OnDisk``)."""

    def read(self, line: int, head: Mapping[str, Any]) -> dict[str, Any]: ...


class OnDisk:
    """A record left in its file by the loader: a big tool result of a big session
    (docs/large-sessions.md, "Records left in the file"). ``head`` holds what the tree reads of it:
    the record's scalar fields, and under ``"message"`` its message's; the rest is read back from
    line ``line`` when asked for (``read``, through ``Entry.raw``)."""

    __slots__ = ("head", "line", "reader")

    def __init__(self, head: dict[str, Any], line: int, reader: RecordReader) -> None:
        self.head, self.line, self.reader = head, line, reader

    def read(self) -> dict[str, Any]:
        return self.reader.read(self.line, self.head)

    def __repr__(self) -> str:
        return f"OnDisk(line={self.line})"


@dataclass(frozen=True, slots=True)
class Entry:
    """One non-header record of a session file."""

    id: str
    parent_id: str | None
    type: str
    timestamp: Any
    record: Mapping[str, Any] | OnDisk  # the JSON object, or where it was left in the file
    line: int  # 1-based physical line of the file
    index: int = 0  # position among the loaded entries, file order
    data: Mapping[str, Any] | None = None  # migrated view; None = same as raw

    @property
    def raw(self) -> Mapping[str, Any]:
        """The record as the file holds it (read back from the file when it was left there)."""
        record = self.record
        return record.read() if type(record) is OnDisk else record  # type: ignore[return-value]

    @property
    def obj(self) -> Mapping[str, Any]:
        """The record as the agent sees it (migrations applied)."""
        return self.data if self.data is not None else self.raw

    @property
    def head(self) -> Mapping[str, Any]:
        """What the tree reads of the record, without reading back one left in the file: ``obj``,
        or an ``OnDisk`` record's scalars and its message's (no content)."""
        if self.data is not None:
            return self.data
        record = self.record
        return record.head if type(record) is OnDisk else record  # type: ignore[return-value]

    def get(self, key: str, default: Any = None) -> Any:
        record = self.record
        if type(record) is OnDisk and key != "message" and key in record.head:  # no read for a scalar
            return record.head[key]
        return self.obj.get(key, default)

    @property
    def message(self) -> Mapping[str, Any] | None:
        msg = self.obj.get("message") if self.type == "message" else None
        return msg if type(msg) is dict or isinstance(msg, Mapping) else None

    @property
    def role(self) -> str | None:
        msg = self.head.get("message") if self.type == "message" else None  # the role is in the head
        role = msg.get("role") if type(msg) is dict or isinstance(msg, Mapping) else None
        return role if isinstance(role, str) else None

    @property
    def label(self) -> str | None:
        """For a ``label`` entry: the label text (None when absent)."""
        value = self.obj.get("label") if self.type == "label" else None
        return value if isinstance(value, str) else None

    @property
    def target_id(self) -> str | None:
        value = self.obj.get("targetId") if self.type == "label" else None
        return value if isinstance(value, str) else None

    @property
    def timestamp_ms(self) -> float | None:
        return parse_timestamp_ms(self.timestamp)


def _entry_factory() -> Callable[[str, str | None, str, Any, Mapping[str, Any] | OnDisk, int, int, Mapping[str, Any] | None],
                                 Entry]:
    """``Entry(...)`` with positional fields, about twice as cheap: the loader makes one per record.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` looked up anew
    each time; this sets the slots through their descriptors, bound once. Same object (a test holds
    the two equal field by field).
    """
    new = object.__new__
    set_id, set_parent, set_type, set_ts, set_record, set_line, set_index, set_data = (
        getattr(Entry, f.name).__set__ for f in fields(Entry))

    def make(id: str, parent_id: str | None, type: str, timestamp: Any, record: Mapping[str, Any] | OnDisk, line: int,
             index: int, data: Mapping[str, Any] | None) -> Entry:
        entry = new(Entry)
        set_id(entry, id)
        set_parent(entry, parent_id)
        set_type(entry, type)
        set_ts(entry, timestamp)
        set_record(entry, record)
        set_line(entry, line)
        set_index(entry, index)
        set_data(entry, data)
        return entry

    return make


make_entry = _entry_factory()


@dataclass(frozen=True, slots=True)
class EntryLinks:
    """Where the loader found each entry and its parent, so the tree is built with no id lookups of its own.

    ``position``: id → position of the entry it names (a later duplicate wins). ``parents[i]``: entry
    ``i``'s parent position (-1: none), when ids are unique and every parent comes before its child
    (else None).
    """

    position: Mapping[str, int]
    parents: Sequence[int] | None


@dataclass(frozen=True, slots=True)
class NotLoaded:
    """A JSON object present in the file that the agent did not load (e.g. glued to another on one line)."""

    line: int
    raw: Any
    reason: str


@dataclass(frozen=True, slots=True)
class Session:
    """A loaded session file: header, entries in file order, and what went wrong while reading it."""

    path: str
    header: Mapping[str, Any]
    entries: tuple[Entry, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    not_loaded: tuple[NotLoaded, ...] = ()
    title_slot: Mapping[str, Any] | None = None
    original_version: int = 3
    by_id: Mapping[str, Entry] = field(default_factory=dict, compare=False, repr=False)
    links: EntryLinks | None = field(default=None, compare=False, repr=False)  # from the loader: see EntryLinks
    # Where each physical line starts in the file (``line_offsets[n - 1]`` for line ``n``, one more
    # entry past the end) and the file's (size, mtime in ns) when it was read: ``read_record`` reads an
    # entry's record back by them. None for a session parsed from text.
    line_offsets: Sequence[int] | None = field(default=None, compare=False, repr=False)
    file_stamp: tuple[int, int] | None = field(default=None, compare=False, repr=False)

    @property
    def id(self) -> str:
        return str(self.header.get("id"))

    @property
    def cwd(self) -> str | None:
        cwd = self.header.get("cwd")
        return cwd if isinstance(cwd, str) else None

    @property
    def version(self) -> int:
        """The version the file declares (absent = 1); entries are migrated to 3 in memory."""
        return self.original_version

    @property
    def timestamp(self) -> Any:
        return self.header.get("timestamp")

    @property
    def title(self) -> str | None:
        """omp title: the header's, overridden by the title slot (an empty slot title deletes it)."""
        if self.title_slot is not None:
            title = self.title_slot.get("title")
            return title or None
        title = self.header.get("title")
        return title if isinstance(title, str) and title else None

    @property
    def name(self) -> str | None:
        """pi session name: the last ``session_info`` entry (file order) with a truthy name."""
        for entry in reversed(self.entries):
            if entry.type == "session_info":
                name = entry.get("name")
                if name:
                    return str(name)
        return None

    @property
    def leaf_id(self) -> str | None:
        """The leaf on load: the id of the last loaded entry, whatever its type."""
        return self.entries[-1].id if self.entries else None

    def get(self, entry_id: str) -> Entry | None:
        return self.by_id.get(entry_id)


def parse_timestamp_ms(value: Any) -> float | None:
    """``Date.parse`` for the ISO strings sessions hold; None where JS would give NaN."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    try:
        if len(text) == 10 and text[4] == "-" and text[7] == "-":  # date only: UTC in JS
            dt = datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
        else:
            if text.endswith(("Z", "z")):
                text = text[:-1] + "+00:00"
            dt = datetime.fromisoformat(text)
            if dt.tzinfo is None:
                # JS reads a zone-less date-time as local time; sessions always write UTC ("Z").
                dt = dt.replace(tzinfo=timezone.utc)
    except (ValueError, IndexError):
        return None
    return dt.timestamp() * 1000.0


def js_ms(value: Any) -> int | float | None:
    """Milliseconds as JS prints them: an integer when whole."""
    ms = parse_timestamp_ms(value)
    if ms is None:
        return None
    rounded = round(ms)
    return int(rounded) if abs(ms - rounded) < 1e-6 else ms


_pause_lock = threading.Lock()
_pauses = 0  # paused_gc blocks running now, in any thread
_resume = False  # whether the collector was on when the first of them began
# Held across every change of the collector's freeze state (``gc.freeze`` / ``gc.unfreeze``) and what
# depends on it: a time-bound child is forked with everything frozen, so that its collector never
# finalizes the parent's garbage, and the served app freezes big loads and unfreezes them for its own
# passes (``workbench.ui.collector``). Without it an unfreeze could fall between a freeze and a fork.
gc_freeze_lock = threading.RLock()


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic GC while building large acyclic structures.

    Loading 100k entries allocates millions of containers; with the collector on, its full passes make
    the load super-linear. Nothing built here forms reference cycles, so pausing is safe.

    Threads share the collector's switch, so the pauses are counted: the collector comes back on when
    the last one ends (a search index built beside a keystroke's search used to switch it on under the
    search, whose next allocations then met a full pass over millions of containers).
    """
    global _pauses, _resume
    with _pause_lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()
