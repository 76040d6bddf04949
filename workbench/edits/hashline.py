"""The ``hashline`` grammar (oh-my-pi 18.3.4's default edit mode), as its tool prompt describes it.

The agent's parser is native (``pi-natives``) and not published; this reading follows the prompt
(``src/edit/hashline-compact.md``) and the renderer's streaming preview (pi-tui ``tools/edit.ts``)::

    *** Begin Patch
    [src/a.ts#1A2B]          a file header: path, optional 4-hex snapshot tag
    PUT 3.=4:                replace lines 3-4 with the body; also ``PUT N*:``, ``PUT <N:``, ``PUT >N:``,
    +new line                ``PUT >$:``, ``PUT >N*:``; body rows start with ``+`` (``++x`` is ``+x``)
    CUT 7.=9 @moved          delete/capture (no body); ``PUT <N @name`` pastes (no body)
    REM                      delete the file;  ``MV dest`` moves it
    *** End Patch

A file's digest is its body rows without the leading ``+``, in order (a cut-off last row included, so a
rule sees text as it streams). A header counts once its line is complete (``]`` typed and the line
ended, or the payload finished), so a half-typed path never reaches a path glob.
"""

from __future__ import annotations

import re
from typing import Any

from workbench.edits.model import EMPTY, FileOp, Inspection, field, merge_entries, payload_lines
from workbench.rules import js_trim, js_trim_end

__all__ = ["header_path", "input_text", "inspect_hashline", "looks_like_hashline"]

_TAG = re.compile(r"#[0-9a-fA-F]{4}$")
_OP = re.compile(r"^(?:PUT|CUT)\b")
BEGIN, END = "*** Begin Patch", "*** End Patch"


def input_text(args: Any) -> str | None:
    """``args.input ?? args._input`` (``_input``: providers that still send the legacy key)."""
    value = field(args, "input")
    if value is None:
        value = field(args, "_input")
    return value if isinstance(value, str) else None


def header_path(line: str) -> str | None:
    """The path of a ``[path#TAG]`` header line, tag and matching quotes removed; ``None`` otherwise."""
    trimmed = js_trim_end(line)
    if not trimmed.startswith("[") or not trimmed.endswith("]") or len(trimmed) < 2:
        return None
    body = js_trim(trimmed[1:-1])
    body = _TAG.sub("", body)
    if len(body) >= 2 and body[0] in "\"'" and body[-1] == body[0]:
        body = body[1:-1]
    return body or None


def looks_like_hashline(text: str) -> bool:
    """A ``[path]`` header line or a ``PUT``/``CUT`` op: the marks of a hashline payload."""
    return any(header_path(line) or _OP.match(js_trim(line)) for line in payload_lines(text))


def inspect_hashline(args: Any, *, final: bool = False) -> Inspection:
    """Paths, per-file digests and file operations of a (possibly partial) hashline call."""
    text = input_text(args)
    if not text:
        return EMPTY
    lines = payload_lines(text)
    sections: list[tuple[str, list[str]]] = []
    ops: list[FileOp] = []
    current: list[str] | None = None
    path = ""
    last = len(lines) - 1
    for index, line in enumerate(lines):
        trimmed = js_trim(line)
        if trimmed == BEGIN:
            continue
        if trimmed == END:
            break
        found = header_path(line)
        if found is not None:
            if index == last and not final:
                break  # the header line is still being typed
            path, current = found, []
            sections.append((path, current))
            continue
        if current is None:
            continue
        if line.startswith("+"):
            current.append(line[1:])
        elif trimmed == "REM":
            ops.append(FileOp("delete", path))
        elif trimmed.startswith("MV ") and (index < last or final):
            dest = js_trim(trimmed[3:])
            if dest:
                ops.append(FileOp("move", path, dest))
    entries = merge_entries(sections)
    return Inspection(tuple(e.path for e in entries), entries, tuple(ops))
