"""The branch graph of a whole session (Bokeh): one dot per entry, drawn like a commit graph.

Layout: y is the entry's position in the file (time order), x is a lane: a node's first child (the
one on the active path first, as ``/tree`` orders them) continues its parent's lane and every other
child starts a lane of its own, reusing a lane no branch occupies at those rows. So the active path
is the straight line on the left and each branch is a short column beside the point it left, which
stays readable for long single-chain sessions where "x = depth" would not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bokeh.models import ColumnDataSource, HoverTool, TapTool, WheelZoomTool
from bokeh.plotting import figure

from workbench.ui.picking import pick_tool, select_only

ACTIVE = "#1f6feb"
EDGE = "#afb8c1"
FIT_ROWS = 1500
KIND_COLOURS = {"user": "#1a7f37", "assistant": "#8250df", "tool": "#bf8700", "meta": "#8c959f"}


@dataclass(frozen=True, slots=True)
class GraphLayout:
    ids: list[str]
    xs: list[float]
    ys: list[float]
    parents: list[int]  # index of the parent node in ``ids``, -1 for a root
    branch_points: list[int]


def layout(roots: Sequence[Any], active: set[str], order: Mapping[str, int] | None = None) -> GraphLayout:
    """Lane layout of ``get_tree()`` roots (nodes with ``.id`` and ``.children``); iterative (deep chains).

    ``order`` gives each entry's row (its position in the file, i.e. time order); without it the row
    is the depth-first position. A chain is a run of first children; the chain holding the active
    path gets lane 0 and every other chain the lowest lane that is free over its rows (so lanes
    are reused by branches that do not overlap in time).
    """
    ids: list[str] = []
    parents: list[int] = []
    branch_points: list[int] = []
    chain_of: list[int] = []
    chains: list[list[int]] = []  # node indices per chain
    chain_parent: list[int] = []  # the node a chain hangs from (-1 for a root chain)

    def ordered(children: Iterable[Any]) -> list[Any]:
        kids = list(children)
        if len(kids) < 2:  # nothing to order (most nodes of a long session's chain)
            return kids
        holding = _holding()
        return sorted(kids, key=lambda n: 0 if id(n) in holding else 1)

    held: list[set[int]] = []

    def _holding() -> set[int]:
        """``id()`` of every node whose subtree holds an active id: in a forest, the active nodes and
        their ancestors. Made once by one walk down and a climb from each active node (a subtree walk
        per branch child took a second on a 100,000-entry chain)."""
        if not held:
            parent_of: dict[int, Any] = {}
            found: list[Any] = []
            walk = list(roots)
            while walk:
                node = walk.pop()
                if node.id in active:
                    found.append(node)
                for child in node.children:
                    parent_of[id(child)] = node
                    walk.append(child)
            marked: set[int] = set()
            for node in found:
                while node is not None and id(node) not in marked:
                    marked.add(id(node))
                    node = parent_of.get(id(node))
            held.append(marked)
        return held[0]

    stack: list[tuple[Any, int, int]] = [(root, -1, -1) for root in reversed(ordered(roots))]
    while stack:
        node, parent, chain = stack.pop()
        if chain < 0:
            chain = len(chains)
            chains.append([])
            chain_parent.append(parent)
        index = len(ids)
        ids.append(node.id)
        parents.append(parent)
        chain_of.append(chain)
        chains[chain].append(index)
        kids = ordered(node.children)
        if len(kids) > 1:
            branch_points.append(index)
        # push in reverse so the first child is visited next; it continues the chain
        for k, child in reversed(list(enumerate(kids))):
            stack.append((child, index, chain if k == 0 else -1))

    rows = [float(order.get(i, k)) if order is not None else float(k) for k, i in enumerate(ids)]
    spans = []
    for c, members in enumerate(chains):
        pts = [rows[m] for m in members] + ([rows[chain_parent[c]]] if chain_parent[c] >= 0 else [])
        spans.append((min(pts), max(pts)))
    lanes: list[list[tuple[float, float]]] = []
    lane_of = [0] * len(chains)
    for c in sorted(range(len(chains)), key=lambda c: (c != 0, spans[c][0], c)):
        lo, hi = spans[c]
        for lane, taken in enumerate(lanes):
            if c != 0 and all(hi < a - 0.5 or lo > b + 0.5 for a, b in taken) and lane > 0:
                taken.append((lo, hi))
                lane_of[c] = lane
                break
        else:
            lanes.append([(lo, hi)])
            lane_of[c] = len(lanes) - 1
    xs = [float(lane_of[chain_of[k]]) for k in range(len(ids))]
    ys = [-r for r in rows]
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


def legend_marker(fig: Any, label: str, y: Any = 0.0, **style: Any) -> Any:
    """A one-point renderer at x = NaN (never drawn on the plot) that joins the legend item ``label``.

    Bokeh draws a legend item's marker from its renderers' data: an item whose only renderer has no
    points (no abort in this stream, nothing selected yet) showed its words with no marker. Sharing
    the label puts this renderer in the same item (so "hide" on a click still hides the real one).
    """
    return fig.scatter(x=[float("nan")], y=[y], legend_label=label, **style)


RING = "wb-selected-ring"  # the renderer that rings the selected node (tests find it by this name)


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
        size=[9 if i in active else 7 for i in lay.ids],
    ))
    x0: list[float] = []
    y0: list[float] = []
    x1: list[float] = []
    y1: list[float] = []
    ecol: list[str] = []
    ew: list[float] = []

    def seg(a: float, b: float, c: float, d: float, colour: str, width: float) -> None:
        x0.append(a)
        y0.append(b)
        x1.append(c)
        y1.append(d)
        ecol.append(colour)
        ew.append(width)

    for idx, p in enumerate(lay.parents):
        if p < 0:
            continue
        on = lay.ids[idx] in active and lay.ids[p] in active
        colour, width = (ACTIVE, 3.5) if on else (EDGE, 1.5)
        px, py, cx, cy = lay.xs[p], lay.ys[p], lay.xs[idx], lay.ys[idx]
        if px == cx:
            seg(px, py, cx, cy, colour, width)
        else:
            # an elbow, like a commit graph: across to the branch's lane, then down its own lane
            # (a straight diagonal would cut across every row between parent and child)
            seg(px, py, cx, py, colour, width)
            seg(cx, py, cx, cy, colour, width)
    edges = ColumnDataSource(dict(x0=x0, y0=y0, x1=x1, y1=y1, colour=ecol, width=ew))
    lanes = int(max(lay.xs, default=0)) + 1
    # a session of up to FIT_ROWS entries is shown whole at first (its branches are in view, however far
    # from the leaf); a longer one opens on 40 rows, scrolled to the selection
    visible_rows = n if n <= FIT_ROWS else min(n, 40)
    p = figure(
        sizing_mode="stretch_both", min_height=260, tools="pan,wheel_zoom,box_zoom,reset",
        x_range=(-0.8, max(lanes, 4) - 0.2), y_range=(-visible_rows + 0.2, 0.8),
        # the toolbar under the graph: above, it shared the title's line and the title ran into it
        # on big sessions ("entries 1,234–4,233 of 100,000 (around the selection)")
        toolbar_location="below", title=f"Branch graph · {n} entries · {len(lay.branch_points)} branch points",
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
    on_path = [k for k, i in enumerate(lay.ids) if i in active]
    halo = ColumnDataSource(dict(x=[lay.xs[k] for k in on_path], y=[lay.ys[k] for k in on_path]))
    p.scatter("x", "y", source=halo, size=15, fill_color=ACTIVE, fill_alpha=0.28, line_alpha=0,
              legend_label="active path")
    renderer = p.scatter("x", "y", source=nodes, size="size", fill_color="colour", line_color="#ffffff",
                         line_width=1, nonselection_fill_alpha=1.0, selection_fill_alpha=1.0,
                         legend_field="kind")
    labelled = [i for i, lab in enumerate(nodes.data["label"]) if lab]
    if labelled:
        ls = ColumnDataSource(dict(x=[lay.xs[i] + 0.18 for i in labelled], y=[lay.ys[i] for i in labelled],
                                   t=[f"[{nodes.data['label'][i]}]" for i in labelled]))
        p.text("x", "y", text="t", source=ls, text_font_size="10px", text_color="#8250df", text_baseline="middle")
    selected = ColumnDataSource(dict(x=[], y=[]), name="wb-selected-node")  # the ring; tests find it by name
    p.scatter("x", "y", source=selected, size=16, fill_alpha=0, line_color=ACTIVE, line_width=3,
              legend_label="selected", name=RING)
    legend_marker(p, "selected", size=16, fill_alpha=0, line_color=ACTIVE, line_width=3)
    # Bokeh's hover template escapes field values (@text is inserted as text, not HTML).
    p.add_tools(pick_tool([renderer]),
                HoverTool(renderers=[renderer], tooltips=[("", "@text"), ("id", "@id"), ("label", "@label")]))
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
        i: int | None = lay.ids.index(entry_id)
    except ValueError:
        i = None
    select_only(fig.select_one(TapTool).renderers[0].data_source, i)  # the dots follow the entry shown
    if i is None:
        selected.data = dict(x=[], y=[])
        return
    x, y = lay.xs[i], lay.ys[i]
    selected.data = dict(x=[x], y=[y])
    yr = fig.y_range
    start, end = (yr.start, yr.end) if yr.start is not None and yr.end is not None else (y - 30, y + 1)
    lo, hi = min(start, end), max(start, end)
    if not (lo <= y <= hi):
        h = hi - lo
        bottom = min(lay.ys, default=0.0) - 0.8
        # centre on the node, but keep the window over the data (no half-empty graph at either end)
        new_lo = max(bottom, min(y - h / 2, 0.8 - h))
        yr.start, yr.end = new_lo, new_lo + h


GRAPH_ROWS = 3000  # entries drawn at most: a larger session's graph shows the part around the selection


def sub_layout(lay: GraphLayout, keep: Sequence[int]) -> GraphLayout:
    """The nodes ``keep`` (indices into ``lay``) as a layout of their own; parents outside become roots."""
    new_of = {old: new for new, old in enumerate(keep)}
    kept_bp = set(lay.branch_points)
    return GraphLayout(
        ids=[lay.ids[k] for k in keep], xs=[lay.xs[k] for k in keep], ys=[lay.ys[k] for k in keep],
        parents=[new_of.get(lay.parents[k], -1) for k in keep],
        branch_points=[new_of[k] for k in keep if k in kept_bp],
    )


class GraphWindow:
    """The figure for the whole layout, or for the ``GRAPH_ROWS`` rows around ``centre`` when larger.

    A browser draws a few thousand glyphs quickly, a hundred thousand slowly (and the data alone is
    megabytes on the websocket); the list is windowed, so is the graph. The tree view asks for a new
    window when the selection leaves this one (``covers``).
    """

    def __init__(self, lay: GraphLayout, centre: str | None, entries: Mapping[str, Any], active: set[str],
                 labels: Mapping[str, str], text_of: Callable[[Any], str],
                 on_select: Callable[[str], None] | None = None, rows: int = GRAPH_ROWS) -> None:
        total = len(lay.ids)
        title = None
        if total > rows:
            try:
                y = lay.ys[lay.ids.index(centre)] if centre is not None else 0.0
            except ValueError:
                y = 0.0
            keep = sorted(range(total), key=lambda k: (abs(lay.ys[k] - y), k))[:rows]
            keep.sort()
            lo, hi = -max(lay.ys[k] for k in keep), -min(lay.ys[k] for k in keep)
            lay = sub_layout(lay, keep)
            title = f"Branch graph · entries {int(lo):,}–{int(hi):,} of {total:,} (around the selection)"
        self.layout = lay
        self._ids = set(lay.ids)
        self.figure, self._selected = build_figure(lay, entries, active, labels, text_of, on_select=on_select)
        if title is not None:
            self.figure.title.text = title

    def covers(self, entry_id: str) -> bool:
        return entry_id in self._ids

    def mark(self, entry_id: str) -> None:
        mark_selected(self.figure, self._selected, self.layout, entry_id)


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
