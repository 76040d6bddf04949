"""The values every edit grammar reads into: touched files, the text added to each, file operations.

``Inspection`` is what the agent's edit tool reports to TTSR about one (possibly partial) call: the
paths it names, one ``FileEntry`` per touched file with the *digest* (the lines the call introduces,
without the grammar around them) and the whole-file operations (delete, move). The readers never
raise: a payload that is cut off or malformed yields whatever is recoverable so far, since TTSR asks
on every streamed delta (docs/edit-modes.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "AUTO",
    "EDIT_MODES",
    "EMPTY",
    "FileEntry",
    "FileOp",
    "Inspection",
    "field",
    "merge_entries",
    "payload_lines",
]

#: The edit tool's variants in oh-my-pi 18.3.4 (``edit.mode``; its default is ``hashline``).
EDIT_MODES: tuple[str, ...] = ("hashline", "apply_patch", "patch", "replace", "sloppy")
#: The workbench's own setting: read each call's mode from its arguments.
AUTO = "auto"


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One touched file and the text the call adds to it (``""`` when it adds none)."""

    path: str
    digest: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "digest": self.digest}


@dataclass(frozen=True, slots=True)
class FileOp:
    """A whole-file operation: ``delete`` of ``path``, or ``move`` of ``path`` to ``to``."""

    kind: Literal["delete", "move"]
    path: str
    to: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"kind": self.kind, "path": self.path, "to": self.to}


@dataclass(frozen=True, slots=True)
class Inspection:
    """What one reading of a payload recovered."""

    paths: tuple[str, ...] = ()
    entries: tuple[FileEntry, ...] = ()
    file_ops: tuple[FileOp, ...] = ()


EMPTY = Inspection()


def field(args: Any, key: str) -> Any:
    """``args?.[key]``: ``None`` for absent keys and for arguments that are not an object."""
    if type(args) is dict:  # the usual case, asked at every delta: no ABC check
        return args.get(key)
    return args.get(key) if isinstance(args, Mapping) else None


def payload_lines(text: str) -> list[str]:
    """The lines of a text payload: a leading BOM dropped, ``\\r\\n`` read as ``\\n``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def merge_entries(pairs: Iterable[tuple[str, list[str]]]) -> tuple[FileEntry, ...]:
    """One entry per path in first-seen order; the added lines of repeated sections joined in order."""
    merged: dict[str, list[str]] = {}
    for path, lines in pairs:
        merged.setdefault(path, []).extend(lines)
    return tuple(FileEntry(path, "\n".join(lines)) for path, lines in merged.items())
