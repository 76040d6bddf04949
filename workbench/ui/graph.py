"""The branch graph of a whole session (Bokeh): one dot per entry, drawn like a commit graph.

Layout: y is the row order of a depth-first walk (the child on the active path first, as ``/tree``
orders them), x is a lane: a node's first child continues its parent's lane and every further
child opens a new lane. So the active path is the straight line on the left and each branch is a
column of its own, which stays readable for long single-chain sessions where "x = depth" would not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bokeh.models import ColumnDataSource, HoverTool, TapTool, WheelZoomTool
from bokeh.plotting import figure

ACTIVE = "#1f6feb"
EDGE = "#afb8c1"
KIND_COLOURS = {"user": "#1a7f37", "assistant": "#8250df", "tool": "#bf8700", "meta": "#8c959f"}


@dataclass(frozen=True, slots=True)
class GraphLayout:
    ids: list[str]
    xs: list[float]
    ys: list[float]
    parents: list[int]  # index of the parent node in ``ids``, -1 for a root
    branch_points: list[int]


def layout(roots: Sequence[Any], active: set[str]) -> GraphLayout:
    """Lane layout of ``get_tree()`` roots (nodes with ``.id`` and ``.children``); iterative (deep chains)."""
    ids: list[str] = []
    xs: list[float] = []
    ys: list[float] = []
    parents: list[int] = []
    branch_points: list[int] = []
    next_lane = 0

    def ordered(children: Iterable[Any]) -> list[Any]:
        kids = list(children)
        return sorted(kids, key=lambda n: 0 if _contains(n, active) else 1)

    contains_cache: dict[int, bool] = {}

    def _contains(node: Any, act: set[str]) -> bool:
        key = id(node)
        if key not in contains_cache:
            # iterative post-order to avoid recursion limits on 10k-entry chains
            stack = [(node, False)]
            while stack:
                cur, done = stack.pop()
                if id(cur) in contains_cache:
                    continue
                if done:
                    contains_cache[id(cur)] = cur.id in act or any(contains_cache[id(c)] for c in cur.children)
                else:
                    stack.append((cur, True))
                    stack.extend((c, False) for c in cur.children if id(c) not in contains_cache)
        return contains_cache[key]

    stack: list[tuple[Any, int, int]] = []
    for root in reversed(ordered(roots)):
        stack.append((root, -1, -1))
    while stack:
        node, parent, lane = stack.pop()
        if lane < 0:
            lane = next_lane
            next_lane += 1
        index = len(ids)
        ids.append(node.id)
        xs.append(float(lane))
        ys.append(-float(index))
        parents.append(parent)
        kids = ordered(node.children)
        if len(kids) > 1:
            branch_points.append(index)
        # push in reverse so the first child is visited next; it keeps the lane, others get new lanes
        for k, child in reversed(list(enumerate(kids))):
            stack.append((child, index, lane if k == 0 else -1))
    return GraphLayout(ids, xs, ys, parents, branch_points)


def kind_of(entry: Any) -> str:
    role = getattr(entry, "role", None)
    if role == "user":
        return "user"
    if role == "assistant":
        return "assistant"
    if role in ("toolResult", "bashExecution"):
        return "tool"
    return "meta"


def build_figure(
    lay: GraphLayout,
    entries: Mapping[str, Any],
    active: set[str],
    labels: Mapping[str, str],
    text_of: Callable[[Any], str],
    on_select: Callable[[str], None] | None = None,
) -> tuple[Any, ColumnDataSource]:
    """The Bokeh figure and the one-point source that marks the selected node."""
    n = len(lay.ids)
    kinds = [kind_of(entries.get(i)) for i in lay.ids]
    texts = []
    for i in lay.ids:
        e = entries.get(i)
        t = text_of(e) if e is not None else ""
        texts.append((t or f"[{getattr(e, 'type', '?')}]")[:120])
    nodes = ColumnDataSource(dict(
        x=lay.xs, y=lay.ys, id=lay.ids, text=texts, kind=kinds,
        label=[labels.get(i, "") for i in lay.ids],
        colour=[KIND_COLOURS[k] for k in kinds],
        line=[ACTIVE if i in active else "#ffffff" for i in lay.ids],
        width=[2.5 if i in active else 1.0 for i in lay.ids],
        size=[9 if i in active else 7 for i in lay.ids],
    ))
    x0, y0, x1, y1, ecol, ew = [], [], [], [], [], []
    for idx, p in enumerate(lay.parents):
        if p < 0:
            continue
        x0.append(lay.xs[p]); y0.append(lay.ys[p]); x1.append(lay.xs[idx]); y1.append(lay.ys[idx])
        on = lay.ids[idx] in active and lay.ids[p] in active
        ecol.append(ACTIVE if on else EDGE)
        ew.append(3.5 if on else 1.5)
    edges = ColumnDataSource(dict(x0=x0, y0=y0, x1=x1, y1=y1, colour=ecol, width=ew))
    lanes = int(max(lay.xs, default=0)) + 1
    visible_rows = min(n, 60)
    p = figure(
        sizing_mode="stretch_both", min_height=260, tools="pan,wheel_zoom,box_zoom,reset,tap",
        x_range=(-0.8, max(lanes, 4) - 0.2), y_range=(-visible_rows + 0.2, 0.8),
        toolbar_location="above", title=f"Branch graph · {n} entries · {len(lay.branch_points)} branch points",
    )
    p.toolbar.active_scroll = p.select_one(WheelZoomTool)
    p.axis.visible = False
    p.grid.visible = False
    p.outline_line_color = None
    p.segment("x0", "y0", "x1", "y1", source=edges, line_color="colour", line_width="width")
    if lay.branch_points:
        bp = ColumnDataSource(dict(x=[lay.xs[i] for i in lay.branch_points], y=[lay.ys[i] for i in lay.branch_points]))
        p.scatter("x", "y", source=bp, size=17, fill_alpha=0, line_color="#d1242f", line_width=2,
                  legend_label="branch point")
    renderer = p.scatter("x", "y", source=nodes, size="size", fill_color="colour", line_color="line",
                         line_width="width", nonselection_fill_alpha=1.0, selection_fill_alpha=1.0,
                         legend_field="kind")
    labelled = [i for i, lab in enumerate(nodes.data["label"]) if lab]
    if labelled:
        ls = ColumnDataSource(dict(x=[lay.xs[i] + 0.18 for i in labelled], y=[lay.ys[i] for i in labelled],
                                   t=[f"[{nodes.data['label'][i]}]" for i in labelled]))
        p.text("x", "y", text="t", source=ls, text_font_size="10px", text_color="#8250df", text_baseline="middle")
    selected = ColumnDataSource(dict(x=[], y=[]))
    p.scatter("x", "y", source=selected, size=16, fill_alpha=0, line_color=ACTIVE, line_width=3,
              legend_label="selected")
    # Bokeh's hover template escapes field values (@text is inserted as text, not HTML).
    p.add_tools(HoverTool(renderers=[renderer], tooltips=[("", "@text"), ("id", "@id"), ("label", "@label")]))
    p.select_one(TapTool).renderers = [renderer]
    legend = p.legend[0]
    legend.label_text_font_size = "10px"
    legend.glyph_height = legend.glyph_width = 14
    legend.spacing = 0
    legend.border_line_alpha = 0
    p.add_layout(legend, "right")

    if on_select is not None:
        def _tapped(attr: str, old: Any, new: list[int]) -> None:
            if new:
                on_select(nodes.data["id"][new[0]])

        nodes.selected.on_change("indices", _tapped)
    return p, selected


def mark_selected(fig: Any, selected: ColumnDataSource, lay: GraphLayout, entry_id: str) -> None:
    """Ring the selected node and scroll the graph so that it is in view."""
    try:
        i = lay.ids.index(entry_id)
    except ValueError:
        selected.data = dict(x=[], y=[])
        return
    x, y = lay.xs[i], lay.ys[i]
    selected.data = dict(x=[x], y=[y])
    yr = fig.y_range
    start, end = (yr.start, yr.end) if yr.start is not None and yr.end is not None else (y - 30, y + 1)
    if not (min(start, end) <= y <= max(start, end)):
        h = abs(end - start)
        yr.start, yr.end = y - h / 2, y + h / 2


def in_document(model: Any, fn: Callable[[], None]) -> None:
    """Run ``fn`` (which edits Bokeh models) under the document lock.

    Messages from custom components arrive outside Bokeh's lock; editing a served model there raises
    "_pending_writes should be non-None", so such edits are moved to the document's next tick.
    """
    doc = getattr(model, "document", None)
    if doc is not None and getattr(doc, "session_context", None) is not None:
        doc.add_next_tick_callback(fn)
    else:
        fn()
