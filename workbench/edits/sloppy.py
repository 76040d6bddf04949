"""The ``sloppy`` grammar of oh-my-pi 18.3.x: find-and-replace blocks under ``*** Edit File:`` headers.

18.3.0 changed the syntax to ``*** Edit File:`` / ``*** Find`` / ``*** Replace`` headers (from the
``SM:`` ones) and added ``*** Insert Before`` / ``*** Insert After`` (CHANGELOG 18.3.0). The parser and
the tool's prompt are native and not published (pi-natives 18.3.4), so this reading follows the
changelog::

    *** Edit File: src/a.ts
    *** Find
    old lines (the anchor; verbatim)
    *** Replace
    new lines (verbatim)
    *** Find
    anchor
    *** Insert After             (or *** Insert Before) lines added next to the anchor
    added lines

A file's digest is the rows of its ``Replace`` and ``Insert`` blocks, verbatim (no ``+`` markers in
this grammar). Any other ``*** `` line (``*** End Patch``, an end marker) closes the open block; a
``*** Begin Patch`` envelope around the sections is allowed. A header counts once its line is complete.
"""

from __future__ import annotations

from typing import Any

from workbench.edits.model import EMPTY, Inspection, field, merge_entries, payload_lines
from workbench.rules import js_trim

__all__ = ["inspect_sloppy", "looks_like_sloppy"]

EDIT_FILE = "*** Edit File:"
_ADDING = ("*** Replace", "*** Insert Before", "*** Insert After")
_FIND = "*** Find"


def looks_like_sloppy(text: str) -> bool:
    """An ``*** Edit File:`` or ``*** Find`` line: the marks of an 18.3 sloppy payload."""
    return any(js_trim(line).startswith((EDIT_FILE, _FIND)) for line in payload_lines(text))


def inspect_sloppy(args: Any, *, final: bool = False) -> Inspection:
    """Paths and per-file digests of a (possibly partial) sloppy call (it has no file operations)."""
    text = field(args, "input")
    if not isinstance(text, str) or not text:
        return EMPTY
    lines = payload_lines(text)
    sections: list[tuple[str, list[str]]] = []
    current: list[str] | None = None  # the open file's added rows
    adding = False
    last = len(lines) - 1
    for index, line in enumerate(lines):
        trimmed = js_trim(line)
        if trimmed.startswith(EDIT_FILE):
            if index == last and not final:
                break  # the header line is still being typed
            path = js_trim(trimmed[len(EDIT_FILE):])
            current, adding = None, False
            if path:
                current = []
                sections.append((path, current))
            continue
        if trimmed.startswith("*** "):
            adding = trimmed in _ADDING
            continue
        if index == last and (line == "" or (not final and "*** ".startswith(trimmed))):
            continue  # the newline ending the payload, or a marker still being typed, is no row
        if adding and current is not None:
            current.append(line)
    entries = merge_entries(sections)
    return Inspection(tuple(e.path for e in entries), entries, ())
