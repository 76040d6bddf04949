"""The edit modes whose arguments are JSON fields, not a text payload (``replace``, ``patch``), and the
``write`` tool, as their schemas in oh-my-pi 18.3.4 define them (``src/edit/schemas.ts``,
``src/tools/write.ts``).

- ``replace``: ``{path, old_string, new_string, replace_all?}``; the digest is ``new_string``. The
  Cursor bridge's internal batch form ``{path, edits: [{old_string, new_string}]}`` joins the
  ``new_string`` of every edit.
- ``patch``: ``{path, edits: [{op?, rename?, diff?}]}``; the digest is the ``+`` rows of each diff
  (a ``create`` diff is the new file itself and counts whole), ``delete`` deletes and ``rename`` moves.
- ``write``: ``{path, content}``; its only hook is the digest, ``content`` (its path comes from the
  argument scan, as for any tool without ``matcherPaths``).

The edit tool's native inspector (pi-natives, not published) computes these; the reading follows the
schemas and the tool's examples.
"""

from __future__ import annotations

from typing import Any

from workbench.edits.model import EMPTY, FileOp, Inspection, field, merge_entries

__all__ = ["added_rows", "inspect_patch", "inspect_replace", "write_digest"]


def added_rows(diff: str) -> list[str]:
    """The ``+`` rows of a unified diff without their ``+`` (``+++ `` file headers excluded)."""
    return [line[1:] for line in diff.split("\n") if line.startswith("+") and not line.startswith("+++ ")]


def _path(args: Any) -> str | None:
    path = field(args, "path")
    return path if isinstance(path, str) and path else None


def inspect_replace(args: Any, *, final: bool = False) -> Inspection:
    path = _path(args)
    if path is None:
        return EMPTY
    edits = field(args, "edits")
    if isinstance(edits, list):
        rows = [text for edit in edits if isinstance(text := field(edit, "new_string"), str)]
    else:
        new = field(args, "new_string")
        rows = [new] if isinstance(new, str) else []
    entries = merge_entries([(path, rows)])
    return Inspection((path,), entries, ())


def inspect_patch(args: Any, *, final: bool = False) -> Inspection:
    path = _path(args)
    if path is None:
        return EMPTY
    rows: list[str] = []
    ops: list[FileOp] = []
    edits = field(args, "edits")
    for edit in edits if isinstance(edits, list) else []:
        op = field(edit, "op")
        diff = field(edit, "diff")
        if op == "delete":
            ops.append(FileOp("delete", path))
        rename = field(edit, "rename")
        if isinstance(rename, str) and rename:
            ops.append(FileOp("move", path, rename))
        if isinstance(diff, str):
            rows.extend(diff.split("\n") if op == "create" else added_rows(diff))
    entries = merge_entries([(path, rows)])
    return Inspection((path,), entries, tuple(ops))


def write_digest(args: Any) -> str | None:
    content = field(args, "content")
    return content if isinstance(content, str) else None
