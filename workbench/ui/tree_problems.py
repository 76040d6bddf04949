"""The Problems tab beside the tree: every bad line of the open file, where it is and why.

Loading never stops at a bad line (the file is never changed either); what it skipped or doubted is
a ``Diagnostic`` (path, line, kind, message). This panel lists them as ``file:line``, the problem
(its kind: ``malformed``, ``missing-parent``, …) and the reason; clicking one selects the row of the
entry on that line, or, when the line has no row (a skipped line has no entry; a tool-call-only
assistant message is hidden in every filter, as in the agent's /tree), the nearest row before it,
and says which (``pick_note``). The tree's status line names the first few (``status_problems``).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import panel as pn
from panel.viewable import Viewer

from workbench.ui.entry_html import esc

_COLUMNS = ["where", "problem", "reason"]
_TITLES = {"where": "File:line", "problem": "Problem", "reason": "Reason"}
STATUS_SHOWN = 3  # problems named in the tree's status line; the rest are counted


def neighbour_entry(entries: list[Any], line: int) -> str | None:
    """Id of the entry nearest ``line`` (the last one at or before it, else the first after it)."""
    if not entries:
        return None
    lines = [e.line for e in entries]  # entries are in file order: lines ascend
    k = bisect.bisect_right(lines, line) - 1
    return entries[max(k, 0)].id


def candidates(entries: list[Any], line: int) -> list[Any]:
    """Entries to try for the row of ``line``: the one on it (if any), then the ones before it,
    nearest first, then the ones after (a problem on the first lines has nothing before it)."""
    lines = [e.line for e in entries]
    k = bisect.bisect_right(lines, line)
    return [*reversed(entries[:k]), *entries[k:]]


def problem_rows(diagnostics: list[Any], reasons: dict[int, str] | None = None) -> pd.DataFrame:
    """The table's rows; ``reasons`` replaces the reason of the diagnostics at those positions."""
    said = reasons or {}
    rows = [{"where": f"{Path(d.path).name}:{d.line}", "problem": d.kind, "reason": said.get(i, d.message)}
            for i, d in enumerate(diagnostics)]
    return pd.DataFrame(rows, columns=_COLUMNS)


def root_reasons(diagnostics: list[Any], doc: Any) -> dict[int, str]:
    """Reasons for the missing-parent problems whose entry has no row of its own, by position.

    The loader's words name the entry that lost its parent ("entry 'x' is shown as a root"), but an
    assistant message with only tool calls has no row in any filter (as in the agent's /tree): the
    rows that stand at the top level are its children's. Naming only the hidden entry sent the reader
    looking for a row that is not in the list (issue 27), so these say which rows are shown instead.
    """
    lost = [i for i, d in enumerate(diagnostics) if d.kind == "missing-parent"]
    base = getattr(doc, "base", None)
    if not lost or base is None:
        return {}
    by_line = {e.line: e for e in doc.session.entries}
    out: dict[int, str] = {}
    for i in lost:
        diag = diagnostics[i]
        own = by_line.get(diag.line)
        if own is None:
            continue
        shown = base.rows_in_place_of(own.id)
        if shown == [own.id]:
            continue
        head = (f"entry {own.id!r} has no parent in the file ({own.parent_id!r} is not in it) and is an assistant "
                "message with only tool calls, which has no row in any filter (as in the agent's /tree)")
        if not shown:
            out[i] = f"{head}; nothing below it has a row either"
            continue
        named = ", ".join(f"{sid} ({_short(base.display_text(sid))})" for sid in shown[:2])
        more = f" and {len(shown) - 2} more" if len(shown) > 2 else ""
        rows = "the row of its child" if len(shown) == 1 else "the rows of its children"
        verb = "is" if len(shown) == 1 else "are"
        out[i] = f"{head}: {rows} {named}{more} {verb} shown as a root instead"
    return out


def _short(text: str, width: int = 50) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def status_problems(diagnostics: list[Any], shown: int = STATUS_SHOWN) -> str:
    """The status line's words for the bad lines: the first ``shown`` with their line numbers."""
    if not diagnostics:
        return ""
    first = ", ".join(f"line {d.line} {d.kind}" for d in diagnostics[:shown])
    more = len(diagnostics) - shown
    tail = f" and {more} more" if more > 0 else ""
    return f"{len(diagnostics)} problem line(s): {first}{tail} (Problems tab: click one to go to its row)"


def pick_note(diag: Any, own: Any, picked: Any, filter_changed: str | None, hidden: bool) -> str:
    """What a click on ``diag`` did, in words: which row it selected and why not the line's own.

    ``own`` is the entry on the problem's line (None when the line has no entry), ``picked`` the
    entry whose row was selected (None: no row at all), ``filter_changed`` the filter switched to
    (None: kept), ``hidden`` whether ``own`` has no row in any filter.
    """
    where = f"line {diag.line}"
    if picked is None:
        return f"{where} ({diag.kind}): no row to select, the list is empty."
    if own is not None and picked.id == own.id:
        note = f"{where} ({diag.kind}): selected its entry {picked.id}"
    elif own is None:
        note = (f"{where} ({diag.kind}) has no entry (the line was skipped while loading); "
                f"selected the nearest entry, {picked.id} on line {picked.line}")
    elif hidden:
        note = (f"{where} ({diag.kind}): its entry {own.id} is an assistant message with only tool calls, which "
                f"the list hides in every filter (as the agent's /tree does); selected {picked.id} on line {picked.line}")
    else:
        note = f"{where} ({diag.kind}): its entry {own.id} has no row; selected {picked.id} on line {picked.line}"
    if filter_changed:
        note += f" (filter switched to {filter_changed} to show it)"
    return note + "."


class ProblemsPanel(Viewer):
    """A table of the open session's diagnostics; ``on_pick(diagnostic)`` hears a click on one."""

    def __init__(self, on_pick: Callable[[Any], None], **params: Any) -> None:
        super().__init__(**params)
        self._on_pick = on_pick
        self._doc: Any = None
        # HTML, not Str: a Str is preformatted and ran off the pane at 1280 px
        self.summary = pn.pane.HTML("No session open.", styles={"color": "#6e7781"}, margin=(6, 10),
                                    sizing_mode="stretch_width")
        # the reason wraps in its own column (it was cut off at 1280 and 1400 px with the data-fitted
        # layout): fixed widths for the short columns, the rest for the reason
        self.table = pn.widgets.Tabulator(
            problem_rows([]), show_index=False, disabled=True, selectable=False, sizing_mode="stretch_both",
            titles=_TITLES, layout="fit_columns", widths={"where": 150, "problem": 130},
            formatters={"reason": {"type": "textarea"}}, pagination="remote", page_size=50,
            css_classes=["wb-problems"], min_height=200,
        )
        self.table.on_click(self._clicked)
        self.picked = pn.pane.HTML("", margin=(0, 10), css_classes=["wb-problem-picked"], sizing_mode="stretch_width")

    def show(self, doc: Any) -> None:
        """List the diagnostics of ``doc`` (a ``SessionDoc``; None: nothing open)."""
        self._doc = doc
        diags = list(doc.session.diagnostics) if doc is not None else []
        self.table.value = problem_rows(diags, root_reasons(diags, doc) if doc is not None else None)
        self.picked.object = ""
        if doc is None:
            self.summary.object = esc("No session open.")
        elif not diags:
            self.summary.object = esc(f"{doc.path.name}: no problems found while loading.")
        else:
            self.summary.object = esc(f"{doc.path.name}: {len(diags)} problem line(s), skipped or flagged while loading "
                                      "(the file is not changed). Click one to go to its row in the list.")

    def say(self, note: str) -> None:
        """Show what the last click selected (also announced as a notification)."""
        self.picked.object = f'<div class="wb-muted">{esc(note)}</div>'

    def _clicked(self, event: Any) -> None:
        doc = self._doc
        if doc is None:
            return
        diags = doc.session.diagnostics
        row = getattr(event, "row", None)
        if row is None or not 0 <= row < len(diags):
            return
        self._on_pick(diags[row])

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(self.summary, self.picked, self.table, sizing_mode="stretch_both")
