"""Picking an item by clicking its glyph on a Bokeh chart, the chart's selection following the app.

Two charts pick this way (the backtest's bars, the branch graph's dots). What both need from Bokeh:

- A tap tool in ``replace`` mode (``pick_tool``): Bokeh's default, ``toggle``, unselects the glyph
  that is tapped again, while the app still shows its item.
- The selection set to the item the app shows, however it was picked (``select_only``): a tap only
  reports a change of the selection, so a glyph that stayed selected after the app moved on to
  another item (picked in a list, by keys, by a link) took no tap.
- Bokeh reads a tap within 300 ms of the one before as a double tap, which no tap tool answers; a
  chart that must not lose a quick second pick answers ``bokeh.events.DoubleTap`` itself.
"""

from __future__ import annotations

from typing import Any

from bokeh.models import ColumnDataSource, TapTool


def pick_tool(renderers: list[Any] | None = None) -> TapTool:
    """A tap tool that selects the tapped glyph (and only it), over ``renderers`` (default: all)."""
    return TapTool(mode="replace") if renderers is None else TapTool(mode="replace", renderers=renderers)


def select_only(source: ColumnDataSource, index: int | None) -> None:
    """Select row ``index`` of ``source`` (``None``: nothing); a selection already so is left alone."""
    wanted = [] if index is None else [index]
    if list(source.selected.indices) != wanted:
        source.selected.indices = wanted
