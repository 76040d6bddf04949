"""pi-mono (flavour ``pi``): substring search, the visible rows laid out again, folding, Ctrl keys.

Overrides (docs/flavours.md): the visible rows are laid out again as their own forest and can be
folded; Ctrl+letter toggles a filter (Ctrl+D sets the default), Ctrl+B/F page, Ctrl+C clears the query
first; ``L`` is the label editor's key and never reaches the query. Its file rules (a branch summary
made by a hook says ``fromHook``, the selector gets the real leaf) are ``sessions.flavors.PI``.
"""

from __future__ import annotations

from typing import ClassVar

from workbench.sessions import SessionFlavour, session_flavour
from workbench.tree.flavour import S, TreeFlavour
from workbench.tree.rowtext import RowRules

__all__ = ["PI", "Pi"]


class Pi(TreeFlavour):
    session: ClassVar[SessionFlavour] = session_flavour("pi")
    row_rules = RowRules(model_key="modelId")
    relays_out_visible = True

    def extra_key(self, tl: S, key: str) -> S | None:
        if key in ("ctrl+b", "ctrl+f"):
            return tl.page_up() if key == "ctrl+b" else tl.page_down()
        return None

    def filter_key(self, tl: S, modifier: str, mode: str) -> S:
        if modifier != "ctrl":
            return tl
        return tl.set_filter(mode) if mode == "default" else tl.toggle_filter(mode)

    def interrupt(self, tl: S) -> S:
        return tl.escape()

    def swallows(self, ch: str, search: str) -> bool:
        return ch == "L"


PI = Pi()
