"""The Edit mode menu and how an edit call's reading is worded: the Stepper and the Rules tab share them."""

from __future__ import annotations

from typing import Any

import panel as pn

from workbench.ui.entry_html import esc


def edit_mode_select(state: Any) -> pn.widgets.Select:
    """The edit mode the replay reads edit calls with (``--edit-mode``), bound to ``state.edit_mode``."""
    return pn.widgets.Select.from_param(state.param.edit_mode, label="Edit mode", width=120,
                                        css_classes=["wb-edit-mode"])


def edit_mode_reason(reading: Any) -> str:
    """Why a call was read in its mode, worded for the app (a set mode comes from the Edit mode menu)."""
    return str(reading.get("reason") or "").replace("set by --edit-mode", "set in the Edit mode menu")


def edit_mode_note(reading: Any) -> str:
    """`` · edit call read as MODE (why)`` for the step's edit call, else nothing."""
    if not reading:
        return ""
    mode = reading.get("mode") or "no edit tool"
    return (f' · <span class="wb-edit-reading">{esc(reading.get("tool") or "")} call read as <b>{esc(mode)}</b> '
            f"({esc(edit_mode_reason(reading))})</span>")
