"""oh-my-pi 17 (flavour ``omp``, also ``omp17``): the word search, the chain anchor, its own footer.

What differs from the shared behaviour (docs/flavours.md): the fuzzy word search of oh-my-pi's
``fuzzyMatch``; the layout of the full tree kept under a filter with a ``│`` anchor under a chain's
``└─``; the indent cut to the width; no ``(i/n)`` counter but three empty states; Shift+L with an
empty query opens the label editor.
"""

from __future__ import annotations

from typing import ClassVar

from workbench.sessions import SessionFlavour, session_flavour
from workbench.tree.flavour import Selector, TreeFlavour
from workbench.tree.rowtext import RowRules

__all__ = ["OMP17", "Omp17"]


class Omp17(TreeFlavour):
    session: ClassVar[SessionFlavour] = session_flavour("omp")
    row_rules = RowRules(omp_tools=True, developer_rows=True, abort_texts=True, thinking_off=True, dots_are_empty=True)
    word_search = True
    chain_anchor = True
    caps_indent = True
    indent = "  "  # the footer's indent (pi-tui 18.2.9 dropped it)

    def selector_lines(self, tl: Selector, tag: str) -> list[str]:
        pad = self.indent
        if not tl.visible_count:
            return [pad + line for line in self.empty_state(tl, tag)]
        out = [r.line for r in tl.window_rows()]
        if tag:
            out.append(pad + tag.strip())
        return out

    def empty_state(self, tl: Selector, tag: str) -> list[str]:
        """The lines shown when no row is visible: nothing at all, no search match, or all filtered."""
        total = tl.total
        if not total:
            return ["No entries found"]
        if tl.search_tokens():
            return [f'No entries match search "{tl.search}"', "Press Backspace to clear the search",
                    f"(0/{total}){tag}"]
        return [f"{total} entries hidden by the current filter {tag.strip() or '[default]'}",
                "Press Alt+A to show all, Alt+D for default", f"(0/{total}){tag}"]

    def swallows(self, ch: str, search: str) -> bool:
        return ch == "L" and not search  # Shift+L with an empty query opens the label editor


OMP17 = Omp17()
