"""Every legend item of the app's figures has a marker: Bokeh draws an item's marker from its
renderers' data, so an item whose renderers have no points (no abort in this stream, nothing
selected yet) showed its words alone."""

from __future__ import annotations

from tests.ui.test_graph import Node
from workbench.replay.timeline import Timeline
from workbench.ui.graph import build_figure, layout
from workbench.ui.timeline_view import MARKERS, timeline_figure


def _items(fig):
    legend = fig.legend[0]
    return {item.label.value: item for item in legend.items if hasattr(item.label, "value")}  # not legend_field ones


def _has_a_point(item) -> bool:
    return any(len(next(iter(r.data_source.data.values()), [])) for r in item.renderers)


def test_timeline_legend_items_all_have_a_marker_even_with_no_events():
    items = _items(timeline_figure(Timeline((), 0)))
    for kind in MARKERS:
        label = kind.replace("_", " ")
        assert label in items and _has_a_point(items[label]), label


def test_graph_legend_selected_has_a_marker_before_anything_is_selected():
    lay = layout([Node("r", [Node("c")])], active={"r", "c"})
    fig, ring = build_figure(lay, {}, {"r", "c"}, {}, lambda e: "")
    assert not ring.data["x"]  # nothing ringed yet
    items = _items(fig)
    assert _has_a_point(items["selected"])
    # the ring renderer is in the same item: hiding "selected" hides the ring itself
    assert any(r.data_source is ring for r in items["selected"].renderers)


def test_graph_title_has_its_line_to_itself():
    # above, the toolbar shared the title's line and a big session's title ran into it
    lay = layout([Node("r", [Node("c")])], active={"r", "c"})
    fig, _ = build_figure(lay, {}, {"r", "c"}, {}, lambda e: "")
    assert fig.title_location == "above" and fig.toolbar_location == "below"
