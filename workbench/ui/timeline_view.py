"""Timeline tab: the stream's turns as lanes (Bokeh), deltas and the replay's acts marked, session totals.

The stream is the Stepper's (the chosen stream file, else the open session re-chunked the same way),
replayed with the same rules and settings, so a step here is the Stepper's step: clicking a lane
opens the Stepper there. Filters keep the lanes that used a tool, had an error, or ran on a model.
The stream is loaded as the replay model loads it (``replay_model.load_source``); the replay runs on
the background runner (``ui/background.py``) when served, and only while the tab is on screen.
"""

from __future__ import annotations

import os
from typing import Any

import panel as pn
import param
from bokeh.events import DoubleTap, Tap
from bokeh.models import ColumnDataSource, FactorRange, HoverTool, Span, WheelZoomTool
from bokeh.plotting import figure
from panel.viewable import Viewer

from workbench.replay import build_timeline, run_session
from workbench.sessions import usage_totals
from workbench.ui.background import Background, Task
from workbench.ui.entry_html import esc, table_html
from workbench.ui.graph import legend_marker
from workbench.ui.notebook_comms import push_edits
from workbench.ui.notify import reporting
from workbench.ui.replay_model import load_source, open_session
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets

ANY = "(any)"
ERRORS = {"any": None, "with errors": True, "without errors": False}
DELTA_COLOURS = {"text": "#0969da", "thinking": "#8250df", "toolcall": "#bc4c00"}
MARKERS = {  # kind -> (glyph, colour)
    "ttsr_triggered": ("triangle", "#d1242f"), "abort": ("x", "#d1242f"), "retry": ("circle_cross", "#9a6700"),
    "injection": ("diamond", "#1a7f37"), "reminder": ("square", "#1a7f37"), "time_bound": ("hex", "#6e7781"),
}


def lane_label(turn: int) -> str:
    return f"turn {turn}"


def figure_data(timeline: Any) -> dict[str, dict[str, list[Any]]]:
    """The columns of each renderer of the figure: ``lanes``, ``deltas`` and ``marker-<kind>``."""
    rows = timeline.lanes
    data: dict[str, dict[str, list[Any]]] = {
        "lanes": {"y": [lane_label(lane.turn) for lane in rows], "left": [lane.start - 0.5 for lane in rows],
                  "right": [lane.end + 0.5 for lane in rows], "steps": [f"{lane.start}–{lane.end}" for lane in rows],
                  "tools": [", ".join(lane.tools) for lane in rows], "models": [", ".join(lane.models) for lane in rows],
                  "error": ["yes" if lane.error else "" for lane in rows], "chars": [lane.characters for lane in rows]},
        "deltas": {"x": [], "y": [], "kind": [], "chars": [], "colour": []},
    }
    deltas = data["deltas"]
    for lane in rows:
        for s, kind, n in lane.deltas:
            deltas["x"].append(s)
            deltas["y"].append(lane_label(lane.turn))
            deltas["kind"].append(kind)
            deltas["chars"].append(n)
            deltas["colour"].append(DELTA_COLOURS[kind])
    for kind in MARKERS:
        found = [(m, lane) for lane in rows for m in lane.markers if m.kind == kind]
        data[f"marker-{kind}"] = {"x": [m.step for m, _ in found], "y": [lane_label(lane.turn) for _, lane in found],
                                  "label": [m.label for m, _ in found]}
    return data


def _factors(timeline: Any) -> list[str]:
    return [lane_label(lane.turn) for lane in reversed(timeline.lanes)] or ["(no turns)"]


def timeline_figure(timeline: Any, step: int = 0) -> Any:
    """A Bokeh figure of ``timeline``: a bar per lane, a tick per delta, a glyph per act, a line at ``step``.

    Each renderer is named after its ``figure_data`` key, so ``refill`` can swap the data (a filter)
    without a new figure: the zoom and the canvas stay, and a click right after filtering still lands.
    """
    data = figure_data(timeline)
    p = figure(y_range=FactorRange(*_factors(timeline)), height=max(220, 28 * len(timeline.lanes) + 90),
               sizing_mode="stretch_width", tools="xpan,xwheel_zoom,box_zoom,reset,tap", toolbar_location="above",
               x_axis_label="stream step", title="Turns of the stream (click a lane to open the Stepper at that step)")
    p.toolbar.active_scroll = p.select_one(WheelZoomTool)  # Bokeh 3: wheel zoom is not active by default
    bars = p.hbar(y="y", left="left", right="right", height=0.8, source=ColumnDataSource(data["lanes"]),
                  color="#eaeef2", line_color="#d0d7de", name="lanes")
    p.add_tools(HoverTool(renderers=[bars], tooltips=[("lane", "@y"), ("steps", "@steps"), ("tools", "@tools"),
                                                      ("model", "@models"), ("error", "@error"), ("characters", "@chars")]))
    ticks = p.rect(x="x", y="y", width=0.8, height=0.5, source=ColumnDataSource(data["deltas"]), color="colour",
                   alpha=0.7, legend_field="kind", name="deltas")
    p.add_tools(HoverTool(renderers=[ticks], tooltips=[("step", "@x"), ("delta", "@kind"), ("characters", "@chars")]))
    for kind, (marker, colour) in MARKERS.items():
        glyph = p.scatter(x="x", y="y", source=ColumnDataSource(data[f"marker-{kind}"]), marker=marker, size=13,
                          color=colour, line_width=2, legend_label=kind.replace("_", " "), name=f"marker-{kind}")
        p.add_tools(HoverTool(renderers=[glyph], tooltips=[("step", "@x"), ("", "@label")]))
        legend_marker(p, kind.replace("_", " "), y=_factors(timeline)[0], marker=marker, size=13, color=colour,
                      line_width=2)
    p.legend.orientation = "horizontal"
    p.legend.location = "top_left"
    p.legend.click_policy = "hide"
    p.add_layout(p.legend[0], "below")
    cursor = Span(location=step, dimension="height", line_color="#1f6feb", line_width=2, line_dash="dashed")
    p.add_layout(cursor)
    p.ygrid.visible = False
    p.x_range.range_padding = 0.01
    return p


def refill(fig: Any, timeline: Any) -> None:
    """Show ``timeline`` (e.g. filtered) in a figure made by ``timeline_figure``."""
    for name, columns in figure_data(timeline).items():
        fig.select_one({"name": name}).data_source.data = columns
    fig.y_range.factors = _factors(timeline)


def totals_html(totals: Any) -> str:
    """Session totals: tokens, cost, errors, per model and tool calls (escaped)."""
    t = totals.tokens
    head = (f'<div class="wb-kv wb-totals"><b>{totals.messages}</b> assistant message(s) · <b>{int(t["totalTokens"]):,}</b> '
            f'tokens (input {int(t["input"]):,}, output {int(t["output"]):,}, cache read {int(t["cacheRead"]):,}, '
            f'cache write {int(t["cacheWrite"]):,}) · cost <b>${totals.cost:.4f}</b> · {totals.errors} error(s)</div>')
    models = table_html(["model", "messages", "tokens", "cost"],
                        [[m.model, m.messages, f"{int(m.tokens['totalTokens']):,}", f"${m.cost:.4f}"] for m in totals.by_model])
    tools = ", ".join(f"{name} × {n}" for name, n in totals.tool_calls.items()) or "none"
    return head + models + f'<div class="wb-kv">tool calls: {esc(tools)}</div>'


class TimelineView(Viewer):
    """The Stepper's stream as lanes per turn; click to step there; totals and filters."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.timeline: Any = None  # the whole timeline (filters apply to a copy)
        self.figure: Any = None
        self.bg = Background()
        self._generation = 0
        self._dirty = True
        self.tool = pn.widgets.Select(label="Tool", options=[ANY], value=ANY, width=160, css_classes=["wb-tl-tool"])
        self.error = pn.widgets.Select(label="Errors", options=list(ERRORS), value="any", width=140)
        self.model = pn.widgets.Select(label="Model", options=[ANY], value=ANY, width=200)
        for w in (self.tool, self.error, self.model):
            w.param.watch(lambda *e: self._draw(), "value")
        self.status = pn.pane.HTML('<div class="wb-muted">Open a session or choose a stream in the Stepper.</div>',
                                   stylesheets=theme_sheets(), sizing_mode="stretch_width", css_classes=["wb-tl-status"])
        self.plot = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=240, css_classes=["wb-tl-plot"])
        self.totals = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", css_classes=["wb-tl-totals"])
        s = self.state
        s.param.watch(lambda *e: self._mark_dirty(), ["session", "stream", "chunking", "rules_dir", "rules_revision",
                                                      "context_mode", "interrupt_mode", "repeat_mode", "repeat_gap",
                                                      "edit_mode", "revision"])
        s.param.watch(lambda *e: self.ensure(), "tab")
        s.param.watch(lambda *e: self._move_cursor(), "step")
        self.ensure()

    @classmethod
    def from_paths(cls, source: str | os.PathLike[str], rules_dir: str | os.PathLike[str] | None = None,
                   **settings: Any) -> TimelineView:
        """A timeline for a notebook cell: ``source`` is a ``*.stream.jsonl`` file or a session file.

        The served roots are the folders of ``source`` and ``rules_dir``; ``settings`` are AppState
        parameters (``context_mode="keep"``, ``chunking="fixed"``, …), as ``StepperView.from_paths``.
        """
        return cls(state=AppState.for_file(source, rules_dir, tab="timeline", **settings))

    # -- building --------------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True
        self.ensure()

    def ensure(self) -> None:
        """Rebuild if something changed and the tab is on screen."""
        if self._dirty and self.state.tab == "timeline":
            self._dirty = False
            self.rebuild()

    def _prepare(self) -> tuple[Any, Any, str, BaseException | None]:
        """(timeline, session totals, label, error): the Stepper's stream for the current choices,
        replayed whole (a stream file's agent is not the open session's; its totals are the session's)."""
        try:
            opened = open_session(self.state)
            source = load_source(self.state, session=opened)
            rules = self.state.rule_set().rules()
            result = run_session(source.stream, rules, self.state.replay_config(source.stream, source.session))
            totals = usage_totals(opened.entries) if opened is not None else None
            return build_timeline(source.stream, result.events), totals, source.label, None
        except Exception as exc:  # noqa: BLE001 - any failure is shown on the document thread
            return None, None, "", exc

    def rebuild(self) -> None:
        self._generation += 1
        generation = self._generation
        if self.bg.served:
            self.status.object = ('<div class="wb-kv"><span class="wb-tag wb-tag-active">working</span> '
                                  "Replaying the stream…</div>")

        def work(task: Task) -> tuple[Any, Any, str, BaseException | None]:
            return self._prepare()

        # on the runner's lane: a newer rebuild supersedes the ones still queued or running (dropped)
        self.bg.cancel("timeline")
        self.bg.submit(work, what="Timeline", lane="timeline", done=lambda result: self._install(generation, *result))

    def _install(self, generation: int, timeline: Any, totals: Any, label: str, error: BaseException | None) -> None:
        if generation != self._generation:
            return
        with reporting("Timeline"):
            if error is not None:
                self.status.object = '<div class="wb-muted">No timeline (see the message).</div>'
                raise error
            self.timeline = timeline
            self.figure = None  # a new stream gets a new figure (its height follows the turn count)
            self.tool.options = [ANY, *timeline.tools]
            self.model.options = [ANY, *timeline.models]
            self.totals.object = totals_html(totals) if totals is not None else \
                '<div class="wb-muted">A stream file has no usage records (open its session for totals).</div>'
            self._label = label
            self._draw()

    def shown(self) -> Any:
        """The timeline with the filters applied."""
        if self.timeline is None:
            return None
        return self.timeline.filter(tool=None if self.tool.value == ANY else self.tool.value,
                                    error=ERRORS[self.error.value],
                                    model=None if self.model.value == ANY else self.model.value)

    def _draw(self) -> None:
        shown = self.shown()
        if shown is None:
            return
        marks = sum(len(lane.markers) for lane in shown.lanes)
        self.status.object = (f'<div class="wb-kv"><b>{esc(self._label)}</b> · {shown.steps:,} steps · '
                              f"{len(shown.lanes)} of {len(self.timeline.lanes)} turn(s) shown · {marks} act(s) marked · "
                              "scroll to zoom, drag to pan</div>")
        if self.figure is None:
            self.figure = timeline_figure(shown, self.state.step)
            # Bokeh reads a click within 300 ms of the last as a double tap: it opens the step too
            self.figure.on_event(Tap, self._on_tap)
            self.figure.on_event(DoubleTap, self._on_tap)
            self.plot.object = self.figure
        else:
            refill(self.figure, shown)
            push_edits(self.plot)

    def _move_cursor(self) -> None:
        if self.figure is not None:
            for span in self.figure.select({"type": Span}):
                span.location = self.state.step
            push_edits(self.plot)

    # -- clicking --------------------------------------------------------------------------------
    def _on_tap(self, event: Any) -> None:
        if event.x is not None:
            self.open_step(event.x)

    def open_step(self, x: float) -> None:
        """Open the Stepper at the step nearest ``x`` (clamped to the stream)."""
        with reporting("Timeline"):
            if self.timeline is None or not self.timeline.steps:
                return
            step = max(0, min(round(x), self.timeline.steps - 1))
            self.state.open_step(step)

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(pn.Row(self.tool, self.error, self.model), self.status, self.plot,
                         pn.pane.HTML("<h4>Session totals</h4>", stylesheets=theme_sheets()), self.totals,
                         sizing_mode="stretch_width", scroll=True, min_height=760)
