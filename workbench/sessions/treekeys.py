"""Named keys of the `/tree` selector per flavour (spec §8.10), as pure state transitions.

Key names follow the conformance files: ``up``, ``down``, ``left``/``right`` (page), ``ctrl+o`` and
``shift+ctrl+o`` (cycle), ``ctrl+d/t/u/l/a`` (pi toggles), ``alt+d/t/u/l/a`` (omp set), ``ctrl+left`` /
``ctrl+right`` / ``alt+left`` / ``alt+right`` (pi folds), ``escape``, ``backspace``; anything else is
typed text, one key press per character.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.sessions.treelist import TreeList


_SIMPLE = {"up": "up", "down": "down", "left": "page_up", "right": "page_down", "pageup": "page_up",
           "pagedown": "page_down", "home": "first", "end": "last", "escape": "escape", "backspace": "backspace"}
_LETTERS = {"d": "default", "t": "no-tools", "u": "user-only", "l": "labeled-only", "a": "all"}


def press_key(tl: TreeList, key: str) -> TreeList:
    """The state after pressing ``key``; keys a flavour does not bind leave the state unchanged."""
    flavor = tl.flavor
    if key in _SIMPLE:
        return getattr(tl, _SIMPLE[key])()
    if flavor == "omp18" and key in ("alt+up", "alt+down"):
        return tl.turn(-1 if key == "alt+up" else 1)
    if flavor == "pi" and key in ("ctrl+b", "ctrl+f"):
        return tl.page_up() if key == "ctrl+b" else tl.page_down()
    if key == "ctrl+o":
        return tl.cycle_filter()
    if key in ("shift+ctrl+o", "ctrl+shift+o"):
        return tl.cycle_filter(backward=True)
    if key.startswith(("ctrl+", "alt+")) and key[-1] in _LETTERS and len(key) in (5, 6):
        mode = _LETTERS[key[-1]]
        if flavor == "pi" and key.startswith("ctrl+"):
            return tl.set_filter(mode) if mode == "default" else tl.toggle_filter(mode)
        if flavor != "pi" and key.startswith("alt+"):
            return tl.set_filter(mode)
        return tl
    if key in ("ctrl+left", "alt+left"):
        return tl.fold_left()
    if key in ("ctrl+right", "alt+right"):
        return tl.fold_right()
    if key == "ctrl+c":
        # pi: clears the query first like Escape; omp: closes.
        return tl.escape() if flavor == "pi" else tl.close()
    if key in ("enter", "shift+enter", "tab"):
        return tl
    state = tl
    for ch in key:
        # The label editor keys swallow the character: pi "L"; omp57 "l" with an empty query.
        if flavor == "pi" and ch == "L":
            continue
        if flavor == "omp57" and ch == "l" and not state.search:
            continue
        if flavor in ("omp", "omp18") and ch == "L" and not state.search:
            continue  # omp17: Shift+L with an empty query opens the label editor
        if flavor == "omp57" and (ord(ch) < 32 or 127 <= ord(ch) < 160):
            continue
        state = state.type_text(ch)
    return state

