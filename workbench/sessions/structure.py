"""Checks over a loaded file's records: missing parents, parent cycles, unknown types, JS version numbers.

Each finding is a ``Diagnostic``; nothing here changes an entry. The known types are the ones omp
18.3.4 (``session-entries.ts``) and pi 0.73 write; the newest session version either writes is 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from workbench.errors import Diagnostic
from workbench.sessions.entries import Entry

# Entry types omp 18.3.4 writes (session-entries.ts); other types are kept and shown as "[type]"
# rows in its `/tree`, but flagged as unknown when a file is loaded.
KNOWN_TYPES18 = frozenset({
    "message", "model_usage", "thinking_level_change", "model_change", "service_tier_change", "compaction",
    "branch_summary", "custom", "custom_message", "label", "title_change", "ttsr_injection", "session_init",
    "mode_change", "credential_pin", "reset_boundary",
})
# Entry types some agent this workbench follows writes: omp 18.3's set plus pi's session name.
KNOWN_ENTRY_TYPES = KNOWN_TYPES18 | {"session_info"}
CURRENT_VERSION = 3  # CURRENT_SESSION_VERSION of omp 18.3.4 and pi 0.73
# What ``Number()`` trims: JS white space and line terminators.
_JS_SPACE = (" \t\n\r\u000b\u000c\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
             "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_TYPE_OF = attrgetter("type")


def js_number(value: Any) -> float:
    """``Number(value)`` of a JSON value: null and "" are 0, booleans 1 / 0, a numeric string (``0x``,
    ``0o``, ``0b`` too) its number, anything else NaN (a header's version, a `/tree` row's read range)."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip(_JS_SPACE)
        if not text:
            return 0.0
        try:
            return float(int(text, 0)) if text.lower().startswith(("0x", "0o", "0b")) else float(text)
        except ValueError:
            return float("nan")
    return float("nan")


@dataclass(frozen=True, slots=True)
class LoadFacts:
    """What the loader notes about each entry while making it, so the checks below need no pass over
    the entries of their own (100k entries: a pass costs ~10 ms, mostly fetching the entries).

    ``types``: every entry type. ``suspects``: the message entries whose ``message`` is not a plain
    dict (the only ones ``odd_messages`` can report). ``parents[i]``: the position of entry ``i``'s
    parent among the entries before it, as looked up then (-1: none); ``late``: the entries with a
    parent id that named no entry before them (missing, their own, or a later one). ``position``:
    id → position of the last entry holding it.
    """

    types: set[str]
    suspects: list[int]
    parents: list[int]
    late: list[int]
    position: dict[str, int]

    def settled(self, entries: list[Entry], by_id: Mapping[str, Entry]) -> bool:
        """Ids are unique and no parent comes after its child: then ``parents`` is every entry's
        parent as the whole file looks it up (-1: none, missing or itself), and no chain loops."""
        if len(by_id) != len(entries):
            return False
        for i in self.late:
            pid = entries[i].parent_id
            if pid != entries[i].id and pid in by_id:
                return False
        return True


def unknown_types(path: str, entries: list[Entry], facts: LoadFacts | None = None) -> list[Diagnostic]:
    """Entry types no followed agent writes: one diagnostic per type, at its first line."""
    types = facts.types if facts is not None else set(map(_TYPE_OF, entries))  # the set, in C
    if types <= KNOWN_ENTRY_TYPES:  # the usual answer
        return []
    seen: set[str] = set()
    out: list[Diagnostic] = []
    for entry in entries:
        etype = entry.type
        if etype in KNOWN_ENTRY_TYPES or etype in seen:
            continue
        seen.add(etype)
        count = sum(1 for e in entries if e.type == etype)
        shown = repr(etype) if etype else "missing"
        out.append(Diagnostic(path=path, line=entry.line, kind="unknown-type",
                              message=f"entry type {shown} is not one omp 18.3 or pi writes ({count} "
                              f"entr{'y' if count == 1 else 'ies'}); kept, its row {_unknown_row(etype)}"))
    return out


def _unknown_row(etype: str) -> str:
    # The row text differs by flavour (see rowtext.py): omp 17 and pi draw an unknown type as an empty
    # row, omp 18 as its type in words; the notice is made before a flavour is chosen, so it says both.
    return f"is empty (omp 17, pi) or reads [{etype.replace('_', ' ')}] (omp 18)"


def odd_messages(path: str, entries: list[Entry], facts: LoadFacts | None = None) -> list[Diagnostic]:
    """Message entries whose ``message`` is not an object (a plain string, say): the agent keeps them
    and its /tree shows them as ``[undefined]`` (the role of a string is undefined in JavaScript), so
    the row reads like that here too and this diagnostic says what the file really holds."""
    out: list[Diagnostic] = []
    for entry in (entries if facts is None else [entries[i] for i in facts.suspects]):
        if entry.type != "message":
            continue
        value = entry.raw.get("message", None)
        if type(value) is not dict and not isinstance(value, Mapping):  # the ABC check only off the usual case
            shown = f"the string {value[:60]!r}" if isinstance(value, str) else f"a JSON {type(value).__name__}"
            out.append(Diagnostic(path=path, line=entry.line, kind="message-not-object",
                                  message=f"the message is {shown}, not an object; the agent's /tree shows "
                                  "this entry as [undefined]"))
    return out


def _rootless(entry_id: str, parent_id: str | None) -> str:
    # Names the entry itself: its parent is, by definition, in no list (issue 27 read the old wording,
    # which named only the parent, as pointing at an entry that is not there).
    return f"entry {entry_id!r} is shown as a root: its parent {parent_id!r} is not in the file"


def structure_diagnostics(path: str, entries: list[Entry], by_id: Mapping[str, Entry],
                          facts: LoadFacts | None = None) -> list[Diagnostic]:
    """Missing parents and parent cycles, found in one linear pass (each entry is resolved once)."""
    if facts is not None and facts.settled(entries, by_id):
        # No cycle; the missing parents are among the late entries (not their own parent: an id
        # always names its own entry).
        return [Diagnostic(path=path, line=entries[i].line, kind="missing-parent",
                           message=_rootless(entries[i].id, entries[i].parent_id))
                for i in facts.late if entries[i].parent_id not in by_id]
    out: list[Diagnostic] = []
    # Fast path: when every parent (as looked up) comes earlier in file order, each chain strictly
    # goes back in the file, so no cycle exists; only missing parents need reporting.
    acyclic = True
    for entry in entries:
        pid = entry.parent_id
        if pid is not None:
            parent = by_id.get(pid)
            if parent is None:
                if pid != entry.id:
                    out.append(Diagnostic(path=path, line=entry.line, kind="missing-parent",
                                          message=_rootless(entry.id, pid)))
            elif parent.index >= entry.index and pid != entry.id:
                acyclic = False
                break
    if acyclic:
        return out
    out = []
    state: dict[str, int] = {}  # 1 = on the current walk, 2 = resolved
    for entry in entries:
        if entry.parent_id is not None and entry.parent_id != entry.id and entry.parent_id not in by_id:
            out.append(Diagnostic(path=path, line=entry.line, kind="missing-parent",
                                  message=_rootless(entry.id, entry.parent_id)))
        walk: list[str] = []
        cur: Entry | None = entry
        while cur is not None and state.get(cur.id) is None:
            state[cur.id] = 1
            walk.append(cur.id)
            pid = cur.parent_id
            cur = by_id.get(pid) if pid is not None and pid != cur.id else None
        if cur is not None and state.get(cur.id) == 1:
            out.append(Diagnostic(path=path, line=cur.line, kind="cycle",
                                  message=f"parent chain of {cur.id!r} loops back to itself; broken there for display"))
        for eid in walk:
            state[eid] = 2
    return out
