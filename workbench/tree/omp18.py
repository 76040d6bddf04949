"""oh-my-pi 18.3 with pi-tui 18.2.9 (flavour ``omp18``): omp 17's selector with what 18 changed.

Overrides (docs/flavours.md): every entry type 18.3 writes has a row (``rowtext18``); the word
search of pi-tui 18.2.9 (``fuzzy18`` / ``wordfilter18``); the TreeView layout with one horizontal
offset per window and ``…`` at a cut line; user rows told by the message (a skill prompt is one); at
most ``height - 8`` rows; footers without indent; Alt+Up/Down jump by turn. Its file rules (the real
leaf given to the selector, navigation, the context at a leaf) are ``sessions.flavors.OMP18``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from workbench.sessions import KNOWN_TYPES18, SessionFlavour, session_flavour
from workbench.tree.flavour import S, Selector
from workbench.tree.omp17 import Omp17
from workbench.tree.rowtext18 import (
    ROWS18,
    SETTINGS_TYPES18,
    display_text18,
    hidden_assistant18,
    search_text18,
)
from workbench.tree.treelayout import Layout, layout_forest18, render_prefix18, window_scroll18
from workbench.tree.wordfilter18 import normalized18_many, query_matcher18, query_tokens18

__all__ = ["OMP18", "Omp18"]


class Omp18(Omp17):
    session: ClassVar[SessionFlavour] = session_flavour("omp18")
    row_rules = ROWS18  # the rows it shares with the older selectors (rowtext18 draws the rest)
    settings_types = SETTINGS_TYPES18
    known_types = KNOWN_TYPES18
    later_duplicate_row_wins = True  # TreeView indexes rows by key
    tool_calls_by_root = True
    user_rows_by_request = True
    ellipsis = True
    indent = ""

    # The functions of its own it uses where the shared behaviour has another (same signatures).
    display = staticmethod(display_text18)
    search_text = staticmethod(search_text18)
    hidden_assistant = staticmethod(hidden_assistant18)
    normalise_many = staticmethod(normalized18_many)
    query_tokens = staticmethod(query_tokens18)
    query_matcher = staticmethod(query_matcher18)
    layout = staticmethod(layout_forest18)
    window_scroll = staticmethod(window_scroll18)

    def prefix(self, lay: Layout, *, multiple_roots: bool, fold_glyph: str | None, width: int | None, scroll: int,
               memo: dict[tuple[Any, ...], tuple[str, int, bool]] | None) -> tuple[str, int, bool]:
        return render_prefix18(lay, scroll=scroll, memo=memo)

    def max_visible(self, height: int) -> int:
        # The panel keeps 8 rows of chrome: at most height - 8 rows, at least 1.
        return max(1, min(max(5, height // 2), height - 8))

    def empty_state(self, tl: Selector, tag: str) -> list[str]:
        if not tl.total:
            return ["No entries found", f"(0/0){tag}"]  # 18.2.9 counts the empty list too
        return super().empty_state(tl, tag)

    def extra_key(self, tl: S, key: str) -> S | None:
        if key in ("alt+up", "alt+down"):
            return tl.turn(-1 if key == "alt+up" else 1)
        return None


OMP18 = Omp18()
