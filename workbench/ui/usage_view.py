"""Usage tab: tokens and cost across every ingested session, by model, day, ISO week or project.

The numbers are the store's (``workbench.store.usage``), the same that ``workbench usage PATH --by …
--json`` prints: every assistant message of every file counts (abandoned branches were paid for too);
TTSR judge calls (``model_usage`` entries of purpose ``ttsr``) are counted apart, per rule, and never in
the assistant totals. The queries run on the view's background runner; a bar chart (Bokeh) shows the
cost or the tokens of each group, a table the full rows. See README.md, "The Usage tab".
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import panel as pn
import param
from bokeh.models import ColumnDataSource, HoverTool, NumeralTickFormatter
from bokeh.plotting import figure
from panel.viewable import Viewer

from workbench.errors import UsageError
from workbench.store import judge_by_rule, usage_by, usage_sessions, usage_totals
from workbench.ui.background import Background, Task
from workbench.ui.catalog import Catalog
from workbench.ui.entry_html import MONEY_FORMAT, esc, money
from workbench.ui.notify import reporting
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets

BY = {"Model": "model", "Day": "day", "ISO week": "week", "Project (cwd)": "cwd"}
METRICS = {"Cost ($)": "cost", "Tokens": "totalTokens"}
BAR = "#0969da"  # the app's accent (theme.css --wb-accent)
_ROW_TITLES = {"group": "Group", "sessions": "Sessions", "messages": "Messages", "input": "Input", "output": "Output",
               "cacheRead": "Cache read", "cacheWrite": "Cache write", "totalTokens": "Total tokens", "cost": "Cost",
               "judgeCalls": "Judge calls", "judgeTokens": "Judge tokens", "judgeCost": "Judge cost",
               "otherCalls": "Other calls", "otherCost": "Other cost"}
_JUDGE_TITLES = {"rule": "Rule", "sessions": "Sessions", "calls": "Judge calls", "input": "Input", "output": "Output",
                 "cacheRead": "Cache read", "cacheWrite": "Cache write", "totalTokens": "Total tokens", "cost": "Cost"}


class UsageView(Viewer):
    """Grouped usage over the store, with a grouping selector, a day range, a chart and two tables."""

    state = param.ClassSelector(class_=AppState)
    catalog = param.ClassSelector(class_=Catalog)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.bg = Background()
        self.rows: list[dict[str, Any]] = []  # what the table shows (usage_by's rows)
        self.judge: list[dict[str, Any]] = []  # judge_by_rule's rows
        self.totals: dict[str, Any] = {}
        self.by = pn.widgets.RadioButtonGroup(options=BY, value="model", color="light", css_classes=["wb-usage-by"])
        self.metric = pn.widgets.RadioButtonGroup(options=METRICS, value="cost", color="light",
                                                  css_classes=["wb-usage-metric"])
        self.since = pn.widgets.DatePicker(label="Since (UTC day)", value=None, width=150, css_classes=["wb-usage-since"])
        self.until = pn.widgets.DatePicker(label="Until (UTC day)", value=None, width=150, css_classes=["wb-usage-until"])
        self.clear = pn.widgets.Button(label="All days", color="light", width=90, align="end")
        self.clear.on_click(lambda e: self.set_days(None, None))
        self.summary = pn.pane.HTML("", stylesheets=theme_sheets(), css_classes=["wb-usage-summary"], margin=(4, 10),
                                    sizing_mode="stretch_width")
        self.chart = pn.pane.Bokeh(None, sizing_mode="stretch_width", css_classes=["wb-usage-chart"])
        self.table = pn.widgets.Tabulator(
            None, show_index=False, disabled=True, selectable=False, sizing_mode="stretch_width", titles=_ROW_TITLES,
            layout="fit_data_stretch", header_align="left", css_classes=["wb-usage-table"], pagination="remote",
            page_size=20, frozen_columns=["group"], widths={"group": 260},
            formatters={"group": {"type": "textarea"}, "cost": MONEY_FORMAT, "judgeCost": MONEY_FORMAT, "otherCost": MONEY_FORMAT})
        self.judge_title = pn.pane.HTML("", stylesheets=theme_sheets(), margin=(8, 10, 0, 10))
        self.judge_table = pn.widgets.Tabulator(
            None, show_index=False, disabled=True, selectable=False, sizing_mode="stretch_width", titles=_JUDGE_TITLES,
            layout="fit_data_stretch", header_align="left", css_classes=["wb-usage-judge"], visible=False,
            formatters={"rule": {"type": "textarea"}, "cost": MONEY_FORMAT}, widths={"rule": 260})
        self._quiet = False  # both days being set at once: one refresh, after both
        for widget in (self.by, self.since, self.until):
            widget.param.watch(lambda e: None if self._quiet else self.refresh(), "value")
        self.metric.param.watch(lambda e: self._draw(), "value")
        self.state.param.watch(lambda e: self.refresh(), "catalog_revision")
        self.refresh()

    def set_days(self, since: date | None, until: date | None) -> None:
        """Set both ends of the range with one refresh."""
        self._quiet = True
        try:
            self.since.value, self.until.value = since, until
        finally:
            self._quiet = False
        self.refresh()

    # -- the numbers ---------------------------------------------------------------------------------
    def query(self) -> tuple[str, date | None, date | None]:
        since, until = self.since.value, self.until.value
        if since is not None and until is not None and since > until:
            raise UsageError(f"since {since} is after until {until}: pick an earlier 'since' day")
        return str(self.by.value), since, until

    def refresh(self) -> None:
        """Ask the store again (grouping, range or the sessions changed); the view fills in when it answers."""
        with reporting("Usage"):
            by, since, until = self.query()
            store = self.catalog.store

            def work(task: Task) -> tuple[Any, ...]:
                rows = usage_by(store, by, since=since, until=until)
                task.check()
                judged = judge_by_rule(store, since=since, until=until)
                return by, rows, judged, usage_sessions(store, since=since, until=until)

            self.bg.cancel("usage")
            self.bg.submit(work, what="Usage", lane="usage", done=lambda found: self._install(*found))

    def _install(self, by: str, rows: list[dict[str, Any]], judged: list[dict[str, Any]], sessions: int) -> None:
        self.rows, self.judge = rows, judged
        self.totals = {"sessions": sessions, **usage_totals(rows)}
        self.table.value = pd.DataFrame(rows, columns=list(_ROW_TITLES))
        self.judge_table.value = pd.DataFrame(judged, columns=list(_JUDGE_TITLES))
        self.judge_table.visible = bool(judged)
        t = self.totals
        calls = sum(j["calls"] for j in judged)
        self.judge_title.object = (
            f'<div class="wb-kv"><b>TTSR judge calls by rule</b> · {calls:,} call(s), {money(sum(j["cost"] for j in judged))}'
            " (counted apart: not in the totals above)</div>" if judged else
            '<div class="wb-muted">No TTSR judge calls (model_usage entries of purpose "ttsr") in this range.</div>')
        grouping = next(k for k, v in BY.items() if v == by)
        self.summary.object = (
            f'<div class="wb-kv wb-usage-totals"><b>{t["sessions"]:,}</b> session(s) · <b>{t["messages"]:,}</b> assistant '
            f'message(s) · <b>{int(t["totalTokens"]):,}</b> tokens (input {int(t["input"]):,}, output '
            f'{int(t["output"]):,}, cache read {int(t["cacheRead"]):,}, cache write {int(t["cacheWrite"]):,}) · '
            f'cost <b>{money(t["cost"])}</b> · by {esc(grouping.lower())}: {len(rows):,} group(s)'
            + (f' · other model calls {t["otherCalls"]:,} ({money(t["otherCost"])})' if t["otherCalls"] else "")
            + "</div>")
        self._draw()

    # -- the chart -----------------------------------------------------------------------------------
    def bars(self) -> tuple[list[str], list[float]]:
        """The chart's groups top to bottom and their values: days and weeks in time order, models and
        projects largest first."""
        metric = str(self.metric.value)
        rows = list(self.rows)
        if self.by.value in ("model", "cwd"):
            rows.sort(key=lambda r: (-float(r[metric]), str(r["group"])))
        return [str(r["group"]) for r in rows], [float(r[metric]) for r in rows]

    def _draw(self) -> None:
        groups, values = self.bars()
        if not groups:
            self.chart.object = None
            return
        metric = next(k for k, v in METRICS.items() if v == self.metric.value)
        # Bokeh lists categorical factors bottom to top: reversed, the first group is on top
        factors = list(reversed(groups))
        source = ColumnDataSource({"group": factors, "value": list(reversed(values)),
                                   "label": [money(v) if self.metric.value == "cost" else f"{int(v):,}"
                                             for v in reversed(values)]})
        fig = figure(y_range=factors, height=min(60 + 26 * len(groups), 1200), sizing_mode="stretch_width",
                     toolbar_location=None, tools="", x_axis_label=metric, title=None)
        fig.hbar(y="group", right="value", height=0.7, source=source, color=BAR)
        # hover text is inserted as text (no {safe}): a model or project name from a file stays text
        fig.add_tools(HoverTool(tooltips=[("", "@group"), (metric, "@label")]))
        fig.xaxis.formatter = NumeralTickFormatter(format="$0,0.00" if self.metric.value == "cost" else "0,0a")
        fig.x_range.start = 0
        fig.ygrid.grid_line_color = None
        fig.outline_line_color = None
        self.chart.object = fig

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(
            pn.pane.Markdown("#### Usage across sessions · every assistant message of every ingested file "
                             "(as `workbench usage PATH --by …`)", margin=(0, 5)),
            pn.Row(pn.Column(pn.pane.HTML('<div class="wb-kv">Group by</div>', margin=(0, 10)), self.by),
                   pn.Column(pn.pane.HTML('<div class="wb-kv">Chart</div>', margin=(0, 10)), self.metric),
                   self.since, self.until, self.clear),
            self.summary,
            self.chart,
            self.table,
            self.judge_title,
            self.judge_table,
            sizing_mode="stretch_width",
        )
