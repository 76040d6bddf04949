"""Backtest tab: how often each rule would have fired over every served session.

The run happens on the app's background runner (in this process: a served app should not fork a
pool per browser tab) with a progress bar and a Cancel button; per-rule bars (Bokeh) of the rules
that fired and a table of all rules follow. Clicking a bar or a rule lists its hits (the chart
selects the bar of the rule shown); clicking a hit opens the Stepper on that session at that step
(the stream is derived with the same chunking the backtest used, so step numbers agree).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import panel as pn
import param
from bokeh.events import DoubleTap
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure
from panel.viewable import Viewer

from workbench.backtest import BacktestOptions, run_backtest
from workbench.ui.background import Background, Task
from workbench.ui.entry_html import esc
from workbench.ui.notify import notify, reporting
from workbench.ui.picking import pick_tool, select_only
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets

TRIGGER = "#d1242f"
SUPPRESSED = "#9a6700"
BAR_HEIGHT = 0.7  # of a category's height on the chart's y axis


def bar_at(turns: list[int], x: float, y: float) -> int | None:
    """The bar under a point of the chart in data units, or None (bar i spans y = i to i + 1).

    Bokeh places the i-th factor of a categorical axis at i + 0.5, and a bar of ``BAR_HEIGHT``
    around it, from 0 to its turns along x.
    """
    i = math.floor(y)
    if 0 <= i < len(turns) and abs(y - i - 0.5) <= BAR_HEIGHT / 2 and 0 <= x <= turns[i]:
        return i
    return None


# the tables' columns with the types their rows have (an empty frame of other types would change
# the columns' formatters, and so the columns, with the first rows)
SUMMARY_TYPES = {"rule": str, "sessions": int, "turns": int, "interrupting": int, "disabled": str}
HIT_TYPES = {"session": str, "turn": int, "step": int, "source": str, "interrupts": bool, "snippet": str}
SUMMARY_COLUMNS, HIT_COLUMNS = list(SUMMARY_TYPES), list(HIT_TYPES)


def _empty(types: dict[str, type]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=kind) for name, kind in types.items()})


class BacktestView(Viewer):
    """Run the current rule set over the served sessions and browse the hits."""

    state = param.ClassSelector(class_=AppState)
    catalog = param.Parameter(default=None)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.result: Any = None
        self._bars: ColumnDataSource | None = None  # the chart's data; its selection follows the shown rule
        self._shown: str | None = None  # the rule whose hits are listed
        self.run_btn = pn.widgets.Button(label="Run backtest over the served sessions", color="primary", width=300)
        self.run_btn.on_click(lambda e: self.run())
        self.bg = Background()
        self._task: Task | None = None
        self.cancel_btn = pn.widgets.Button(label="Cancel", width=80, visible=False, css_classes=["wb-backtest-cancel"])
        self.cancel_btn.on_click(lambda e: self.cancel())
        self.progress = pn.indicators.Progress(value=0, max=100, width=300, visible=False)
        self.status = pn.pane.HTML('<div class="wb-muted">Not run yet. Uses the rules of the Stepper/Rules tabs '
                                   "(edits included) and the Stepper's chunking.</div>",
                                   stylesheets=theme_sheets(), css_classes=["wb-backtest-status"], margin=(8, 10))
        self.chart = pn.pane.Bokeh(None, sizing_mode="stretch_width", height=320)
        # Both tables start with their columns: a table whose columns arrive with its first rows is
        # drawn again in the browser, and rows sent meanwhile were seen lost (an empty table under
        # the "N hit(s)" status, in a loaded CI run)
        self.summary = pn.widgets.Tabulator(_empty(SUMMARY_TYPES), show_index=False, disabled=True, selectable=False, height=320,
                                            sizing_mode="stretch_width", css_classes=["wb-backtest-rules"],
                                            layout="fit_data_stretch")
        self.summary.on_click(self._on_rule_click)
        self.hits = pn.widgets.Tabulator(_empty(HIT_TYPES), show_index=False, disabled=True, selectable=False,
                                         pagination="remote", page_size=12, sizing_mode="stretch_width",
                                         css_classes=["wb-backtest-hits"], layout="fit_data_stretch")
        self.hits.on_click(self._on_hit_click)
        self.hits_title = pn.pane.HTML("", stylesheets=theme_sheets(), margin=(5, 10))

    # -- running -------------------------------------------------------------------------------------
    def _files(self) -> list[str]:
        return [str(self.state.roots.resolve(s.path)) for s in self.catalog.summaries()] if self.catalog else \
            [str(p) for p in self.state.roots.session_files()]

    def run(self) -> None:
        with reporting("Backtest"):
            rules = self.state.rule_set().rules()
            files = self._files()
            options = BacktestOptions(policy=self.state.chunking, size=None)
            self.run_btn.disabled = True
            self.progress.param.update(visible=True, value=0)
            self.status.object = f'<div class="wb-kv">Replaying {len(files)} session(s) through {len(rules)} rule(s)…</div>'

            def work(task: Task) -> Any:
                def progress(done: int, total: int, _path: str = "") -> None:
                    task.progress(done, total)

                return run_backtest(rules, files, workers=1, progress=progress, options=options)

            def failed(exc: BaseException) -> None:
                self._install(None, exc)

            self._task = self.bg.submit(work, what="Backtest", done=lambda r: self._install(r, None), failed=failed,
                                        progress=lambda d, t, _text: setattr(self.progress, "value",
                                                                              max(self.progress.value, int(100 * d / max(t, 1)))))
            self.cancel_btn.visible = self.bg.served and not self._task.finished

    def cancel(self) -> None:
        if self._task is not None and not self._task.finished:
            self._task.cancel()
            self.run_btn.disabled = False
            self.progress.visible = self.cancel_btn.visible = False
            self.status.object = '<div class="wb-muted">Backtest cancelled.</div>'

    def _install(self, result: Any, error: BaseException | None) -> None:
        self.run_btn.disabled = False
        self.progress.visible = self.cancel_btn.visible = False
        with reporting("Backtest"):
            if error is not None:
                raise error
            self.result = result

            rows = [{"rule": r.rule, "sessions": r.sessions, "turns": r.turns, "interrupting": r.interrupting_turns,
                     "disabled": r.disabled or ""} for r in result.rules]
            self.summary.value = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
            # the chart shows the rules that fired (the table lists every rule, with why one is disabled)
            self._bars = None
            self.chart.object = self._figure([r for r in rows if r["turns"]]) if any(r["turns"] for r in rows) else None
            errors = len(result.errors)
            self.status.object = (f'<div class="wb-kv"><b>{len(result.hits)}</b> hit(s) in <b>{len(result.sessions)}</b> '
                                  f"session(s), {result.turns} turn(s), {result.elapsed:.1f} s"
                                  + (f' · <span class="wb-tag wb-tag-suppressed">{errors} unreadable</span>' if errors else "")
                                  + " · click a rule, then a hit to open it in the Stepper</div>")
            fired = [r for r in result.rules if r.turns]
            self.show_rule(fired[0].rule if fired else None)
            notify(f"Backtest done: {len(result.hits)} hit(s)", "success")

    def _figure(self, rows: list[dict[str, Any]]) -> Any:
        names = [r["rule"] for r in rows][::-1]
        source = ColumnDataSource(dict(rule=names, turns=[r["turns"] for r in rows][::-1],
                                       interrupting=[r["interrupting"] for r in rows][::-1]))
        p = figure(y_range=names, height=320, sizing_mode="stretch_width", toolbar_location=None,
                   title="Turns that would trigger, per rule (dark: would interrupt)", tools="hover",
                   tooltips=[("rule", "@rule"), ("turns", "@turns"), ("interrupting", "@interrupting")])
        # the shown rule's bar stands out: the others fade, the interrupting part included (it
        # covers the whole bar when every turn interrupts)
        p.hbar(y="rule", right="turns", height=BAR_HEIGHT, source=source, color=SUPPRESSED, alpha=0.45,
               nonselection_alpha=0.2, selection_alpha=0.8)
        p.hbar(y="rule", right="interrupting", height=BAR_HEIGHT, source=source, color=TRIGGER,
               nonselection_alpha=0.35)
        p.x_range.start = 0
        p.ygrid.visible = False
        p.add_tools(pick_tool())

        def pick(i: int) -> None:
            with reporting("Backtest"):
                if (rule := source.data["rule"][i]) != self._shown:
                    self.show_rule(rule)

        def tapped(attr: str, old: Any, new: list[int]) -> None:
            if new:
                pick(new[0])
            else:  # a tap beside the bars: the shown rule's bar stays selected
                self._select_bar(self._shown)

        # a quick second pick (after another bar, or right after a rule in the table) is a double tap
        def double_tapped(event: DoubleTap) -> None:
            if event.x is not None and event.y is not None:
                i = bar_at(list(source.data["turns"]), event.x, event.y)
                if i is not None:
                    pick(i)

        p.on_event(DoubleTap, double_tapped)
        source.selected.on_change("indices", tapped)
        self._bars = source
        return p

    # -- browsing ------------------------------------------------------------------------------------
    def show_rule(self, rule: str | None) -> None:
        # Select the shown rule's bar (ui/picking.py), first, before the hits: the browser gets the
        # changes in order, so once it shows the hits its chart already has this selection.
        self._shown = rule
        self._select_bar(rule)
        hits = [h for h in (self.result.hits if self.result else ()) if h.rule == rule]
        rows = [{"session": self.state.roots.display(self.state.roots.resolve(h.session)), "turn": h.turn,
                 "step": h.step, "source": h.source, "interrupts": h.interrupts, "snippet": h.snippet[:120]}
                for h in hits]
        self.hits.value = pd.DataFrame(rows, columns=HIT_COLUMNS)
        self.hits_title.object = (f'<h4>Hits of <span class="wb-tag wb-tag-trigger">{esc(rule)}</span> · {len(rows)}</h4>'
                                  if rule else "<h4>No rule fired</h4>")

    def _select_bar(self, rule: str | None) -> None:
        if self._bars is not None:
            names = list(self._bars.data["rule"])
            select_only(self._bars, names.index(rule) if rule in names else None)

    def _on_rule_click(self, event: Any) -> None:
        with reporting("Backtest"):
            self.show_rule(str(self.summary.value.iloc[event.row]["rule"]))

    def _on_hit_click(self, event: Any) -> None:
        with reporting("Open hit"):
            row = self.hits.value.iloc[event.row]
            self.state.open_step(int(row["step"]), session=row["session"], stream="")

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(pn.Row(self.run_btn, self.progress, self.cancel_btn), self.status,
                         pn.Row(self.chart, self.summary, sizing_mode="stretch_width"),
                         self.hits_title, self.hits, sizing_mode="stretch_width")
