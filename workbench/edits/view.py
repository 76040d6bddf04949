"""What the agent's TTSR sees of one tool call: the tool's matcher hooks and the per-file outputs.

oh-my-pi 18.3.4's edit tool (``src/edit/index.ts``) answers TTSR through three hooks computed from one
inspection of the call's arguments: ``matcherEntries`` (one ``{path, digest}`` per touched file),
``matcherPaths`` (the entries' paths, else the paths the payload names) and ``matcherDigest`` (the
non-empty digests joined with ``\\n``). The write tool has only ``matcherDigest`` (its ``content``).
TTSR (``src/session/ttsr-outputs.ts``) keys a call's stream ``toolcall:<id>`` (``tool:<name>:<index>``
without an id) and each touched file ``<key>#<path>``; with entries, each file's digest is checked on
its own, in place of the call's raw argument buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.edits.choose import ModeChoice, choose_mode
from workbench.edits.envelope import inspect_apply_patch
from workbench.edits.hashline import inspect_hashline
from workbench.edits.model import AUTO, EMPTY, FileEntry, FileOp, Inspection
from workbench.edits.sloppy import inspect_sloppy
from workbench.edits.structured import inspect_patch, inspect_replace, write_digest

__all__ = ["FileOutput", "INSPECTORS", "ToolView", "file_stream_key", "inspect", "stream_key", "tool_view"]

Inspector = Callable[..., Inspection]
#: ``INSPECTORS[mode](args, final=...)``: one reader per edit mode.
INSPECTORS: dict[str, Inspector] = {
    "hashline": inspect_hashline,
    "apply_patch": inspect_apply_patch,
    "patch": inspect_patch,
    "replace": inspect_replace,
    "sloppy": inspect_sloppy,
}


def inspect(mode: str, args: Any, *, final: bool = False) -> Inspection:
    """The edit tool's inspection of ``args`` in ``mode`` (``final``: the arguments are complete)."""
    reader = INSPECTORS.get(mode)
    return reader(args, final=final) if reader else EMPTY


def stream_key(call_id: str | None, tool_name: str, content_index: int) -> str:
    """A tool call's stream key: ``toolcall:<id>``, or ``tool:<name>:<index>`` when it has no id."""
    return f"toolcall:{call_id}" if call_id else f"tool:{tool_name}:{content_index}"


def file_stream_key(key: str, path: str) -> str:
    """The stream key of one touched file of a call."""
    return f"{key}#{path}"


@dataclass(frozen=True, slots=True)
class FileOutput:
    """One touched file as TTSR checks it: its own stream key and digest."""

    path: str
    stream_key: str
    digest: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "streamKey": self.stream_key, "digest": self.digest}


@dataclass(frozen=True, slots=True)
class ToolView:
    """The matcher hooks of one call (``None``: the hook is absent or has nothing yet)."""

    tool_name: str
    stream_key: str
    choice: ModeChoice
    paths: tuple[str, ...] | None  # matcherPaths (raw, before path candidates)
    digest: str | None  # matcherDigest
    entries: tuple[FileEntry, ...]  # matcherEntries; () is "undefined"
    file_ops: tuple[FileOp, ...] = ()

    @property
    def mode(self) -> str | None:
        return self.choice.mode

    @property
    def outputs(self) -> tuple[FileOutput, ...]:
        """The per-file outputs with their stream keys (empty without entries)."""
        return tuple(FileOutput(e.path, file_stream_key(self.stream_key, e.path), e.digest) for e in self.entries)

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool_name,
            "streamKey": self.stream_key,
            **self.choice.to_json(),
            "paths": list(self.paths) if self.paths is not None else None,
            "digest": self.digest,
            "outputs": [o.to_json() for o in self.outputs],
            "fileOps": [op.to_json() for op in self.file_ops],
        }


def tool_view(tool_name: str, args: Any, *, call_id: str | None = None, content_index: int = 0,
              edit_mode: str = AUTO, set_by: str = "--edit-mode", final: bool = False) -> ToolView:
    """What TTSR sees of a call to ``tool_name`` with ``args`` (as parsed so far) under ``edit_mode``."""
    key = stream_key(call_id, tool_name, content_index)
    choice = choose_mode(tool_name, args, edit_mode, set_by=set_by)
    if choice.mode is None:
        if tool_name == "write":
            return ToolView(tool_name, key, ModeChoice(None, "the write tool"), None, write_digest(args), ())
        return ToolView(tool_name, key, choice, None, None, ())
    found = inspect(choice.mode, args, final=final)
    digest = "\n".join(e.digest for e in found.entries if e.digest) or None
    paths = tuple(e.path for e in found.entries) or found.paths or None
    return ToolView(tool_name, key, choice, paths, digest, found.entries, found.file_ops)
