"""oh-my-pi 5.7 (flavour ``omp57``, for the conformance cases only): pi's footer, omp's keys.

Overrides (docs/flavours.md): a filter change keeps the selected row's index when the row goes
(and a start row that is not shown selects the last row); ``l`` with an empty query opens the label
editor; control characters never reach the query.
"""

from __future__ import annotations

from typing import ClassVar

from workbench.sessions import SessionFlavour, session_flavour
from workbench.tree.flavour import TreeFlavour

__all__ = ["OMP57", "Omp57"]


class Omp57(TreeFlavour):
    session: ClassVar[SessionFlavour] = session_flavour("omp57")
    keeps_row_index = True

    def swallows(self, ch: str, search: str) -> bool:
        return (ch == "l" and not search) or ord(ch) < 32 or 127 <= ord(ch) < 160


OMP57 = Omp57()
