"""The ``apply_patch`` grammar (the Codex envelope; the edit tool's ``apply_patch`` mode, wire name
``apply_patch``), as the tool's example and the renderer's streaming preview show it::

    *** Begin Patch
    *** Add File: hello.txt          every following ``+`` row is the new file's content
    +Hello world
    *** Update File: src/app.py
    *** Move to: src/main.py         optional rename
    @@ def greet():                  hunks: `` `` context, ``-`` removed, ``+`` added rows
    -print("Hi")
    +print("Hello, world!")
    *** End of File                  optional
    *** Delete File: obsolete.txt
    *** End Patch

The agent's parser is native and not published (pi-natives 18.3.4). A file's digest is the text the
call introduces: an added file's content, an updated file's ``+`` rows. Streaming: a missing
``*** End Patch`` is tolerated and a header counts once its line is complete. A heredoc wrapper
(``<<'EOF'`` … ``EOF``) around the envelope is dropped, as Codex payloads sometimes carry one.
"""

from __future__ import annotations

from typing import Any

from workbench.edits.model import EMPTY, FileOp, Inspection, field, merge_entries, payload_lines
from workbench.rules import js_trim

__all__ = ["FILE_HEADERS", "inspect_apply_patch", "looks_like_envelope"]

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, UPDATE, DELETE, MOVE = "*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"
FILE_HEADERS = (ADD, UPDATE, DELETE)
_HEREDOC = ("<<EOF", "<<'EOF'", '<<"EOF"')


def looks_like_envelope(text: str) -> bool:
    """An ``*** Add/Update/Delete File:`` header: the mark of an apply_patch payload."""
    return any(js_trim(line).startswith(FILE_HEADERS) for line in payload_lines(text))


def inspect_apply_patch(args: Any, *, final: bool = False) -> Inspection:
    """Paths, per-file digests and file operations of a (possibly partial) apply_patch call."""
    text = field(args, "input")
    if not isinstance(text, str) or not text:
        return EMPTY
    lines = payload_lines(text)
    if lines and js_trim(lines[0]) in _HEREDOC:
        lines = lines[1:-1] if len(lines) > 1 and js_trim(lines[-1]) == "EOF" else lines[1:]
    start = next((i for i, line in enumerate(lines) if js_trim(line)), None)
    if start is None or js_trim(lines[start]) != BEGIN:
        return EMPTY
    sections: list[tuple[str, list[str]]] = []
    ops: list[FileOp] = []
    current: list[str] | None = None
    path = ""
    last = len(lines) - 1
    for index in range(start + 1, len(lines)):
        line = lines[index]
        trimmed = js_trim(line)
        if trimmed == END:
            break
        header = next((h for h in FILE_HEADERS if trimmed.startswith(h)), None)
        if header is not None:
            if index == last and not final:
                break  # the header line is still being typed
            path = js_trim(trimmed[len(header):])
            current = None
            if not path:
                continue
            current = []
            sections.append((path, current))
            if header == DELETE:
                ops.append(FileOp("delete", path))
                current = None  # a deleted file has no body
            continue
        if current is None:
            continue
        if trimmed.startswith(MOVE):
            dest = js_trim(trimmed[len(MOVE):])
            if dest and (index < last or final):
                ops.append(FileOp("move", path, dest))
        elif line.startswith("+"):
            current.append(line[1:])
    entries = merge_entries(sections)
    return Inspection(tuple(e.path for e in entries), entries, tuple(ops))
