"""The Problems tab beside the tree: every bad line of the open file, where it is and why.

Loading never stops at a bad line (the file is never changed either); what it skipped or doubted is
a ``Diagnostic`` (path, line, kind, message). This panel lists them as ``file:line``, the problem
(its kind: ``malformed``, ``missing-parent``, …) and the reason; clicking one selects the entry
nearest that line (the last entry at or before it, else the first after), so the damage can be
seen in context.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import panel as pn
from panel.viewable import Viewer

_COLUMNS = ["where", "problem", "reason"]
_TITLES = {"where": "File:line", "problem": "Problem", "reason": "Reason"}


def neighbour_entry(entries: list[Any], line: int) -> str | None:
    """Id of the entry nearest ``line`` (the last one at or before it, else the first after it)."""
    if not entries:
        return None
    lines = [e.line for e in entries]  # entries are in file order: lines ascend
    k = bisect.bisect_right(lines, line) - 1
    return entries[max(k, 0)].id


def problem_rows(diagnostics: list[Any]) -> pd.DataFrame:
    rows = [{"where": f"{Path(d.path).name}:{d.line}", "problem": d.kind, "reason": d.message} for d in diagnostics]
    return pd.DataFrame(rows, columns=_COLUMNS)


class ProblemsPanel(Viewer):
    """A table of the open session's diagnostics; ``on_pick(entry_id or None)`` hears a click."""

    def __init__(self, on_pick: Callable[[str | None], None], **params: Any) -> None:
        super().__init__(**params)
        self._on_pick = on_pick
        self._doc: Any = None
        self.summary = pn.pane.Str("No session open.", styles={"color": "#6e7781"}, margin=(6, 10))
        self.table = pn.widgets.Tabulator(
            problem_rows([]), show_index=False, disabled=True, selectable=False, sizing_mode="stretch_both",
            titles=_TITLES, layout="fit_data_stretch", pagination="remote", page_size=50,
            css_classes=["wb-problems"], min_height=200,
        )
        self.table.on_click(self._clicked)

    def show(self, doc: Any) -> None:
        """List the diagnostics of ``doc`` (a ``SessionDoc``; None: nothing open)."""
        self._doc = doc
        diags = list(doc.session.diagnostics) if doc is not None else []
        self.table.value = problem_rows(diags)
        if doc is None:
            self.summary.object = "No session open."
        elif not diags:
            self.summary.object = f"{doc.path.name}: no problems found while loading."
        else:
            self.summary.object = (f"{doc.path.name}: {len(diags)} problem line(s), skipped or flagged while loading "
                                   "(the file is not changed). Click one to see the entry next to it.")

    def _clicked(self, event: Any) -> None:
        doc = self._doc
        if doc is None:
            return
        diags = doc.session.diagnostics
        row = getattr(event, "row", None)
        if row is None or not 0 <= row < len(diags):
            return
        self._on_pick(neighbour_entry(list(doc.session.entries), diags[row].line))

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(self.summary, self.table, sizing_mode="stretch_both")
