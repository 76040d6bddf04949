"""Which edit mode a recorded call is read with, and why.

A session file does not say which ``edit.mode`` the agent ran with (the tool's schema changes with it,
not the call), so by default (``auto``) each call's mode is read from its arguments; a mode can also be
set (``--edit-mode``, the Stepper, the Rules tab). The reason is part of what the replay reports, so a
surprising firing can be traced to the reading of the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workbench.edits.envelope import looks_like_envelope
from workbench.edits.hashline import input_text, looks_like_hashline
from workbench.edits.model import AUTO, EDIT_MODES, field
from workbench.edits.sloppy import looks_like_sloppy
from workbench.errors import UsageError

__all__ = ["EDIT_TOOLS", "ModeChoice", "choose_mode", "check_edit_mode"]

#: Tool names the edit tool answers to: ``edit``, and ``apply_patch`` (its wire name in that mode).
EDIT_TOOLS = ("edit", "apply_patch")
_DEFAULT = "hashline"  # 18.3.4's ``edit.mode`` default (src/edit/settings.ts)


@dataclass(frozen=True, slots=True)
class ModeChoice:
    """The mode a call is read with (``None``: the call reaches no edit tool) and why."""

    mode: str | None
    reason: str

    def to_json(self) -> dict[str, str | None]:
        return {"mode": self.mode, "reason": self.reason}


def check_edit_mode(value: str) -> str:
    """``value`` if it is ``auto`` or one of the agent's edit modes, else a ``UsageError``."""
    if value != AUTO and value not in EDIT_MODES:
        raise UsageError(f"edit mode {value!r}: expected one of {', '.join((AUTO, *EDIT_MODES))}")
    return value


def _auto(args: Any) -> tuple[str, str]:
    edits = field(args, "edits")
    if isinstance(edits, list):
        if any(isinstance(e, Mapping) and ("old_string" in e or "new_string" in e) for e in edits):
            return "replace", "auto: edits[] of old_string/new_string (the replace batch form)"
        return "patch", "auto: edits[] of diffs"
    if field(args, "old_string") is not None or field(args, "new_string") is not None:
        return "replace", "auto: old_string/new_string"
    text = input_text(args)
    if isinstance(text, str):
        if looks_like_sloppy(text):
            return "sloppy", "auto: sloppy markers (*** Edit File: / *** Find)"
        if looks_like_envelope(text):
            return "apply_patch", "auto: apply_patch file headers (*** Add/Update/Delete File:)"
        if looks_like_hashline(text):
            return "hashline", "auto: hashline markers ([PATH#TAG] header, PUT/CUT)"
        return _DEFAULT, "auto: input with no marks yet; the agent's default (hashline)"
    if field(args, "path") is not None:
        return "replace", "auto: a top-level path without input (replace until edits[] appears)"
    return _DEFAULT, "auto: no arguments yet; the agent's default (hashline)"


def choose_mode(tool_name: str | None, args: Any, setting: str = AUTO, *, set_by: str = "--edit-mode") -> ModeChoice:
    """The mode of one call to ``tool_name`` under ``setting`` (``auto`` or a mode set by ``set_by``).

    A call named ``apply_patch`` reaches the edit tool only in ``apply_patch`` mode (its wire name);
    a set mode other than that leaves it without hooks, as in the agent.
    """
    if tool_name not in EDIT_TOOLS:
        return ModeChoice(None, f"{tool_name or 'the call'} is not the edit tool")
    if setting != AUTO:
        if tool_name == "apply_patch" and setting != "apply_patch":
            return ModeChoice(None, f"set by {set_by}: {setting} (no tool answers to apply_patch)")
        return ModeChoice(setting, f"set by {set_by}")
    if tool_name == "apply_patch":
        return ModeChoice("apply_patch", "auto: the apply_patch wire name")
    mode, reason = _auto(args)
    return ModeChoice(mode, reason)
