"""What an edit or write call did to each file: removed and added lines, per file, from the call alone.

A session file holds the call's arguments, not the files, so a diff shows only what a payload carries:

- ``replace`` carries the old and the new text (``old_string``/``new_string``; pi's edit tool names them
  ``oldText``/``newText``): a line diff of the two.
- ``patch`` and ``apply_patch`` carry unified-diff rows (`` `` context, ``-`` removed, ``+`` added) under
  ``@@`` hunk headers; an added or created file is all added lines; a delete or a move is said.
- ``sloppy`` carries the ``*** Find`` text (the old lines) and its ``*** Replace`` (a line diff of the
  two) or ``*** Insert Before/After`` lines (added next to the found lines, shown as context).
- ``hashline`` names old lines by number (``PUT 3.=4:``, ``CUT 7.=9``), never by text: the diff shows
  each anchor in words and the new lines, and says that the old lines are not in the call.
- ``write`` carries the new content whole: all added lines, and a note that the old content (if the
  file existed) is not in the call.

Pure and total like the readers (docs/edit-modes.md): odd or partial arguments give what is there.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workbench.edits.choose import choose_mode
from workbench.edits.envelope import ADD, BEGIN, DELETE, END, MOVE, UPDATE
from workbench.edits.hashline import header_path, input_text
from workbench.edits.model import AUTO, field, payload_lines
from workbench.edits.sloppy import EDIT_FILE
from workbench.rules import js_trim

__all__ = ["DiffLine", "EditDiff", "FileDiff", "WRITE_TOOL", "edit_diff", "line_diff"]

_SIGNS = {"context": " ", "removed": "-", "added": "+"}

LineKind = Literal["context", "removed", "added", "hunk"]
FileChange = Literal["edit", "add", "delete", "move", "write"]
WRITE_TOOL = "write"

NO_OLD_HASHLINE = "hashline names the old lines by number only: their text is not in the call"
NO_OLD_WRITE = "write replaces the whole file: its old content, if any, is not in the call"


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One row of a file's diff: a ``context`` line, a ``removed`` or ``added`` line, or a ``hunk``
    header (a unified diff's ``@@`` line, or a hashline anchor put in words)."""

    kind: LineKind
    text: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


@dataclass(frozen=True, slots=True)
class FileDiff:
    """What the call did to one file: ``change`` (edit, add, delete, move, write), the rows, and a
    ``note`` when the payload does not carry the old text (``old_known`` is then False)."""

    path: str
    change: FileChange
    lines: tuple[DiffLine, ...] = ()
    to: str | None = None  # the destination of a move
    old_known: bool = True
    note: str | None = None

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind == "added")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind == "removed")

    def text(self) -> str:
        """The rows as unified-diff text (``-``/``+``/`` `` signs; a hunk row starts ``@@``), for Markdown."""
        return "\n".join(line.text if line.kind == "hunk" and line.text.startswith("@@") else
                         f"@@ {line.text}" if line.kind == "hunk" else _SIGNS[line.kind] + line.text
                         for line in self.lines)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "change": self.change, "to": self.to, "oldKnown": self.old_known,
                "note": self.note, "added": self.added, "removed": self.removed,
                "lines": [line.to_json() for line in self.lines]}


@dataclass(frozen=True, slots=True)
class EditDiff:
    """The diff of one edit or write call: its tool, the mode it was read with, and one part per file."""

    tool: str
    mode: str | None
    files: tuple[FileDiff, ...]

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "mode": self.mode, "files": [f.to_json() for f in self.files]}


def _lines(text: str) -> list[str]:
    """The lines of a text; a final newline ends the last line rather than starting an empty one."""
    rows = payload_lines(text)
    return rows[:-1] if len(rows) > 1 and rows[-1] == "" else ([] if rows == [""] else rows)


def line_diff(old: str, new: str) -> tuple[DiffLine, ...]:
    """The rows turning ``old`` into ``new``, by lines (difflib), unchanged lines kept as context."""
    a, b = _lines(old), _lines(new)
    out: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(DiffLine("context", line) for line in a[i1:i2])
            continue
        out.extend(DiffLine("removed", line) for line in a[i1:i2])
        out.extend(DiffLine("added", line) for line in b[j1:j2])
    return tuple(out)


def _unified_rows(rows: Iterable[str]) -> list[DiffLine]:
    """Rows of a unified diff body: ``@@`` headers, `` `` context, ``-`` removed, ``+`` added (``---``/
    ``+++`` file headers and ``\\ No newline`` markers left out)."""
    out: list[DiffLine] = []
    for row in rows:
        if row.startswith(("--- ", "+++ ", "\\")):
            continue
        if row.startswith("@@"):
            out.append(DiffLine("hunk", row))
        elif row.startswith("-"):
            out.append(DiffLine("removed", row[1:]))
        elif row.startswith("+"):
            out.append(DiffLine("added", row[1:]))
        elif row.startswith(" "):
            out.append(DiffLine("context", row[1:]))
        elif row:
            out.append(DiffLine("context", row))  # a context row whose leading space was lost
    return out


def _path(args: Any) -> str:
    path = field(args, "path")
    return path if isinstance(path, str) else ""


# -- the JSON modes ------------------------------------------------------------------------------------

def _either(args: Any, key: str, pi_key: str) -> Any:
    """``key`` of omp's replace schema, else the same text under pi's name for it (pi's edit tool is
    ``{path, oldText, newText}``; every edit of a pi session is one)."""
    value = field(args, key)
    return field(args, pi_key) if value is None else value


def _replace(args: Any) -> tuple[FileDiff, ...]:
    edits = field(args, "edits")
    pairs = edits if isinstance(edits, list) else [args]
    rows: list[DiffLine] = []
    for i, edit in enumerate(pairs):
        old, new = _either(edit, "old_string", "oldText"), _either(edit, "new_string", "newText")
        if not isinstance(old, str) and not isinstance(new, str):
            continue
        if len(pairs) > 1 or field(edit, "replace_all") is True:
            every = " (every occurrence)" if field(edit, "replace_all") is True else ""
            rows.append(DiffLine("hunk", f"replacement {i + 1}{every}"))
        rows.extend(line_diff(old if isinstance(old, str) else "", new if isinstance(new, str) else ""))
    return (FileDiff(_path(args), "edit", tuple(rows)),)


def _patch(args: Any) -> tuple[FileDiff, ...]:
    path = _path(args)
    edits = field(args, "edits")
    rows: list[DiffLine] = []
    change: FileChange = "edit"
    to: str | None = None
    for edit in edits if isinstance(edits, list) else ():
        op, diff, rename = field(edit, "op"), field(edit, "diff"), field(edit, "rename")
        if op == "delete":
            change = "delete"
        if isinstance(rename, str) and rename:
            change, to = ("move" if change == "edit" else change), rename
        if not isinstance(diff, str):
            continue
        if op == "create":
            change = "add"
            rows.extend(DiffLine("added", line) for line in _lines(diff))
        else:
            rows.extend(_unified_rows(payload_lines(diff)))
    return (FileDiff(path, change, tuple(rows), to),)


# -- the text payloads ---------------------------------------------------------------------------------

class _Files:
    """Per-file parts in first-seen order; a repeated file's rows join the first part."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.rows: dict[str, list[DiffLine]] = {}
        self.change: dict[str, FileChange] = {}
        self.to: dict[str, str] = {}

    def open(self, path: str, change: FileChange = "edit") -> list[DiffLine]:
        if path not in self.rows:
            self.order.append(path)
            self.rows[path] = []
            self.change[path] = change
        elif change != "edit":
            self.change[path] = change
        return self.rows[path]

    def parts(self, *, old_known: bool = True, note: str | None = None) -> tuple[FileDiff, ...]:
        return tuple(FileDiff(p, self.change[p], tuple(self.rows[p]), self.to.get(p), old_known, note)
                     for p in self.order)


def _apply_patch(args: Any) -> tuple[FileDiff, ...]:
    text = field(args, "input")
    files = _Files()
    current: list[DiffLine] | None = None
    path = ""
    adding = False
    for line in payload_lines(text) if isinstance(text, str) else ():
        trimmed = js_trim(line)
        if trimmed in (BEGIN, END, "*** End of File") or trimmed.startswith("<<") or trimmed == "EOF":
            continue
        header = next((h for h in (ADD, UPDATE, DELETE) if trimmed.startswith(h)), None)
        if header is not None:
            path = js_trim(trimmed[len(header):])
            adding = header == ADD
            change: FileChange = "add" if adding else "delete" if header == DELETE else "edit"
            current = files.open(path, change) if path else None
            if header == DELETE:
                current = None
            continue
        if current is None:
            continue
        if trimmed.startswith(MOVE):
            dest = js_trim(trimmed[len(MOVE):])
            if dest:
                files.to[path] = dest
                if files.change[path] == "edit":
                    files.change[path] = "move"
        elif adding:
            if line.startswith("+"):
                current.append(DiffLine("added", line[1:]))
        else:
            current.extend(_unified_rows([line]))
    return files.parts()


_RANGE = r"(\d+|\$)(?:\.=(\d+|\$))?(\*)?"
_PUT = re.compile(rf"^PUT\s+([<>])?{_RANGE}\s*(?:@(\S+))?\s*:?\s*$")
_CUT = re.compile(rf"^CUT\s+{_RANGE}\s*(?:@(\S+))?\s*$")


def _where(start: str, end: str | None, block: str | None) -> str:
    if block:
        return f"the block at line {start}"
    if end is not None and end != start:
        return f"lines {start}–{end}"
    return "the end" if start == "$" else f"line {start}"


def _hashline_op(trimmed: str) -> str | None:
    """A hashline op put in words (``None``: not an op)."""
    put = _PUT.match(trimmed)
    if put:
        side, start, end, block, register = put.groups()
        where = _where(start, end, block)
        if register:
            verb = {"<": "pastes @{r} before", ">": "pastes @{r} after"}.get(side or "", "pastes @{r} over")
            return f"{trimmed}  ({verb.format(r=register)} {where})"
        if side == ">" and start == "$":
            return f"{trimmed}  (appends at the end of the file:)"
        verb = {"<": "inserts before", ">": "inserts after"}.get(side or "", "replaces")
        return f"{trimmed}  ({verb} {where}{' with' if not side else ''}:)"
    cut = _CUT.match(trimmed)
    if cut:
        start, end, block, register = cut.groups()
        saved = f", kept as @{register}" if register else ""
        return f"{trimmed}  (deletes {_where(start, end, block)}{saved})"
    return None


def _hashline(args: Any) -> tuple[FileDiff, ...]:
    text = input_text(args)
    files = _Files()
    current: list[DiffLine] | None = None
    path = ""
    for line in payload_lines(text) if isinstance(text, str) else ():
        trimmed = js_trim(line)
        if trimmed in (BEGIN, END):
            continue
        found = header_path(line)
        if found is not None:
            path, current = found, files.open(found)
            continue
        if current is None:
            continue
        if line.startswith("+"):
            current.append(DiffLine("added", line[1:]))
        elif trimmed == "REM":
            files.change[path] = "delete"
        elif trimmed.startswith("MV "):
            dest = js_trim(trimmed[3:])
            if dest:
                files.to[path] = dest
                if files.change[path] == "edit":
                    files.change[path] = "move"
        elif (words := _hashline_op(trimmed)) is not None:
            current.append(DiffLine("hunk", words))
        elif trimmed:
            current.append(DiffLine("hunk", trimmed))
    return files.parts(old_known=False, note=NO_OLD_HASHLINE)


def _sloppy(args: Any) -> tuple[FileDiff, ...]:
    text = field(args, "input")
    files = _Files()
    current: list[DiffLine] | None = None
    find: list[str] = []
    block: list[str] = []
    kind = ""  # the open block: "find", "replace", "before", "after" or ""

    def close() -> None:
        nonlocal find, block
        if current is None:
            find, block = [], []
            return
        if kind == "replace":
            current.extend(line_diff("\n".join(find), "\n".join(block)))
            find, block = [], []
        elif kind in ("before", "after"):
            added = [DiffLine("added", line) for line in block]
            anchor = [DiffLine("context", line) for line in find]
            current.extend([*added, *anchor] if kind == "before" else [*anchor, *added])
            find, block = [], []

    rows = payload_lines(text) if isinstance(text, str) else []
    if rows and rows[-1] == "":
        rows.pop()  # the newline that ends the payload is no row of a block
    for line in rows:
        trimmed = js_trim(line)
        if trimmed.startswith(EDIT_FILE):
            close()
            if kind == "find" and current is not None and find:
                current.extend(DiffLine("context", f) for f in find)  # a Find with nothing after it
            find, block, kind = [], [], ""
            path = js_trim(trimmed[len(EDIT_FILE):])
            current = files.open(path) if path else None
            continue
        if trimmed.startswith("*** "):
            close()
            marker = trimmed[4:].lower()
            if marker == "find":
                find, kind = [], "find"
            elif marker == "replace":
                kind, block = "replace", []
            elif marker in ("insert before", "insert after"):
                kind, block = marker.split()[1], []
            else:
                kind = ""
            continue
        if kind == "find":
            find.append(line)
        elif kind:
            block.append(line)
    close()
    return files.parts()


def _write(args: Any) -> tuple[FileDiff, ...]:
    content = field(args, "content")
    rows = tuple(DiffLine("added", line) for line in _lines(content)) if isinstance(content, str) else ()
    return (FileDiff(_path(args), "write", rows, old_known=False, note=NO_OLD_WRITE),)


_READERS = {"replace": _replace, "patch": _patch, "apply_patch": _apply_patch, "hashline": _hashline,
            "sloppy": _sloppy}


def edit_diff(tool_name: str | None, args: Any, *, edit_mode: str = AUTO) -> EditDiff | None:
    """The diff of a call to ``tool_name`` with ``args`` (``None``: not an edit or write call, or
    arguments that are not an object). The mode is read as the replay reads it (``choose_mode``)."""
    if not isinstance(args, Mapping):
        return None
    if tool_name == WRITE_TOOL:
        return EditDiff(WRITE_TOOL, None, _write(args))
    choice = choose_mode(tool_name, args, edit_mode)
    if choice.mode is None:
        return None
    files = tuple(f for f in _READERS[choice.mode](args) if f.path)
    return EditDiff(str(tool_name), choice.mode, files)
