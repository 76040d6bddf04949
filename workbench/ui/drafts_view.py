"""Drafts tab: what the Rules-tab edits would change, before they are shipped.

The edits of the Rules tab editor (``RuleSet.overrides``) can be saved to their files, never silently:
the diff is shown first and the write waits for an explicit confirm (atomic, and refused when the
file changed meanwhile). They can also be kept as a named draft (in memory for this browser session,
or under the served root's ``.workbench/drafts/``). A comparison backtests the saved rules and a draft
over the served sessions and lists the turns that newly fire, stop firing or change interrupt
behaviour (``workbench.backtest.compare``); a row opens the stepper there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import panel as pn
import param
from panel.viewable import Viewer

from workbench.backtest import BacktestOptions, compare_backtests, run_backtest
from workbench.errors import UsageError
from workbench.ui.background import Background, Task
from workbench.ui.drafts import DraftBook, draft_rules, save_rule_file, unified_diff
from workbench.ui.entry_html import DIFF_CSS, esc, unified_diff_html
from workbench.ui.notify import notify, reporting
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets

CURRENT = "(current edits in the Rules tab)"
_COLUMNS = ["change", "session", "rule", "turn", "step", "interrupts", "snippet", "link"]
_TITLES = {"newly_fires": "newly fires", "stops_firing": "stops firing", "interrupt_changed": "interrupt changes"}


def _yn(value: bool | None) -> str:
    # None: the rule does not fire at that turn under those rules ("yes → -" read as broken)
    return "does not fire" if value is None else "yes" if value else "no"


def deep_link(session: str, step: int, stream: str = "") -> str:
    """The app's query string that opens ``session`` in the stepper at ``step``."""
    return "?" + urlencode({"session": session, "stream": stream, "step": step, "tab": "stepper"})


class DraftsView(Viewer):
    """Save Rules-tab edits with a diff, keep them as named drafts, compare a draft's backtest with the saved rules."""

    state = param.ClassSelector(class_=AppState)
    catalog = param.Parameter(default=None)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.bg = Background()
        self._pending: tuple[str, str, str, str] | None = None  # (rule, path, on disk, new)
        self.comparison: dict[str, Any] | None = None
        self._book: DraftBook | None = None
        self._book_folder: Any = None
        sheets = [*theme_sheets(), DIFF_CSS]
        self.edited = pn.widgets.Select(label="Edited rule", options=[], width=260, css_classes=["wb-draft-edited"])
        self.save_btn = pn.widgets.Button(label="Save to file…", width=130)
        self.save_btn.on_click(lambda e: self.preview_save())
        self.confirm_btn = pn.widgets.Button(label="Confirm: write the file", color="primary", width=190, disabled=True)
        self.confirm_btn.on_click(lambda e: self.confirm_save())
        self.diff = pn.pane.HTML("", stylesheets=sheets, sizing_mode="stretch_width", css_classes=["wb-draft-diff"])
        self.draft_name = pn.widgets.TextInput(label="Draft name", placeholder="wider unwrap", width=220)
        self.persist = pn.widgets.Checkbox(label="keep under .workbench/drafts of the served folder", value=False)
        self.keep_btn = pn.widgets.Button(label="Keep as draft", width=130)
        self.keep_btn.on_click(lambda e: self.keep())
        self.draft_select = pn.widgets.Select(label="Compare", options=[CURRENT], value=CURRENT, width=260,
                                              css_classes=["wb-draft-select"])
        self.compare_btn = pn.widgets.Button(label="Compare with the saved rules", color="primary", width=230)
        self.compare_btn.on_click(lambda e: self.compare())
        self.progress = pn.indicators.Progress(value=0, max=100, width=240, visible=False)
        self.status = pn.pane.HTML('<div class="wb-muted">Edit a rule in the Rules tab, then save it here, keep it as '
                                   "a draft, or compare what it would change over the served sessions.</div>",
                                   stylesheets=sheets, sizing_mode="stretch_width", css_classes=["wb-draft-status"])
        self.changes = pn.widgets.Tabulator(None, show_index=False, disabled=True, selectable=False,
                                            pagination="remote", page_size=15, sizing_mode="stretch_width",
                                            css_classes=["wb-draft-changes"], layout="fit_data_stretch",
                                            visible=False)  # shown by the first comparison: no empty pager before
        self.changes.on_click(self._on_change_click)
        self.edited.param.watch(lambda *e: self._clear_pending(), "value")
        self.state.param.watch(lambda *e: self.refresh(), ["rules_dir", "rules_revision", "tab"])
        self.refresh()

    # -- state -----------------------------------------------------------------------------------
    def book(self) -> DraftBook:
        """This browser session's drafts (re-read when the rules folder changes)."""
        ruleset = self.state.rule_set()
        root = self.state.roots.root_of(ruleset.folder) if ruleset.folder is not None else None
        folder = root / ".workbench" / "drafts" if root is not None else None
        if self._book is None or folder != self._book_folder:
            memory = self._book.drafts if self._book is not None else {}
            self._book, self._book_folder = DraftBook(folder), folder
            self._book.drafts = {**self._book.drafts, **memory}
        return self._book

    def refresh(self) -> None:
        with reporting("Drafts"):
            overrides = self.state.rule_set().overrides
            current = self.edited.value
            self.edited.options = sorted(overrides)
            # never a blank select while there are edits: it showed none after "Keep as draft"
            # (its value had stayed None under options that were set again)
            self.edited.value = current if current in overrides else (sorted(overrides) or [None])[0]
            self.draft_select.options = [CURRENT, *self.book().names()]

    # -- saving ----------------------------------------------------------------------------------
    def preview_save(self) -> None:

        with reporting("Save rule"):
            name = self.edited.value
            ruleset = self.state.rule_set()
            if not name or name not in ruleset.overrides:
                raise UsageError("no edited rule chosen: edit a rule in the Rules tab first")
            rule = ruleset.loaded().get(name)
            path = Path(rule.path)
            if not path.is_file():
                raise UsageError(f"{name} has no rule file here ({rule.path}); bundled rules cannot be saved")
            self.state.roots.check_writable(path)
            on_disk = path.read_text(encoding="utf-8")
            new = ruleset.overrides[name]
            diff = unified_diff(on_disk, new, path.name)
            if not diff:
                raise UsageError(f"{name}: the edit is the same as the file")
            self._pending = (name, str(path), on_disk, new)
            self.diff.object = (f'<div class="wb-kv">Writes <b>{esc(self.state.roots.display(path))}</b>:</div>'
                                f"{unified_diff_html(diff)}")
            self.confirm_btn.disabled = False

    def confirm_save(self) -> None:
        if self._pending is None:
            return
        with reporting("Save rule"):
            name, path, on_disk, new = self._pending
            save_rule_file(path, new, expected=on_disk)
            ruleset = self.state.rule_set()
            ruleset.revert(name)  # the file now says what the edit said
            ruleset.changed_on_disk()
            self._clear_pending()
            notify(f"Saved {path}", "success")
            self.state.rules_revision += 1

    def _clear_pending(self) -> None:
        self._pending = None
        self.diff.object = ""
        self.confirm_btn.disabled = True

    def keep(self) -> None:
        with reporting("Keep draft"):
            name = self.book().keep(self.draft_name.value, dict(self.state.rule_set().overrides), persist=self.persist.value)
            self.draft_select.options = [CURRENT, *self.book().names()]
            self.draft_select.value = name
            notify(f"Draft {name!r} kept ({'on disk' if self.persist.value else 'in this browser session'})", "success")

    # -- comparing -------------------------------------------------------------------------------
    def _texts(self) -> dict[str, str]:
        choice = self.draft_select.value
        texts = dict(self.state.rule_set().overrides) if choice in (None, CURRENT) else self.book().get(choice)
        if not texts:
            raise UsageError("the draft changes no rule: edit a rule in the Rules tab first")
        return texts

    def _files(self) -> list[str]:
        if self.catalog is not None:
            return [str(self.state.roots.resolve(s.path)) for s in self.catalog.summaries()]
        return [str(p) for p in self.state.roots.session_files()]

    def compare(self) -> None:
        """Backtest the saved rules and the draft over the served sessions; list the turns that differ."""

        with reporting("Compare"):
            texts = self._texts()
            base = list(self.state.rule_set().loaded().rules)
            draft = draft_rules(base, texts)
            files = self._files()
            options = BacktestOptions(policy=self.state.chunking, size=None)  # the stepper's chunking: steps agree
            self.compare_btn.disabled = True
            self.progress.param.update(visible=True, value=0)
            self.status.object = (f'<div class="wb-kv">Replaying {len(files)} session(s) with the saved rules and with '
                                  f"the draft ({', '.join(esc(n) for n in sorted(texts))})…</div>")
            def progress(task: Task, half: int) -> Any:
                def report(done: int, total: int, _path: str = "") -> None:
                    task.progress(int(50 * half + 50 * done / max(total, 1)), 100)
                return report

            def work(task: Task) -> tuple[Any, BaseException | None]:
                try:
                    a = run_backtest(base, files, workers=1, progress=progress(task, 0), options=options)
                    b = run_backtest(draft, files, workers=1, progress=progress(task, 1), options=options)
                    return compare_backtests(a, b), None
                except Exception as exc:  # noqa: BLE001 - any failure is shown on the document thread
                    return None, exc

            # on the background runner (inline outside a served page); results come back on the document
            self.bg.submit(work, what="Compare", done=lambda result: self._install(*result),
                           progress=lambda done, total, text: setattr(self.progress, "value", done))

    def _install(self, comparison: dict[str, Any] | None, error: BaseException | None) -> None:

        self.compare_btn.disabled = False
        self.progress.visible = False
        with reporting("Compare"):
            if error is not None:
                raise error
            assert comparison is not None
            self.comparison = comparison
            rows = []
            for category in ("newly_fires", "stops_firing", "interrupt_changed"):
                for r in comparison[category]:
                    shown = self.state.roots.display(self.state.roots.resolve(r["session"]))
                    rows.append({"change": _TITLES[category], "session": shown, "rule": r["rule"], "turn": r["turn"],
                                 "step": r["step"],
                                 "interrupts": f"{_yn(r['base_interrupts'])} → {_yn(r['draft_interrupts'])}",
                                 "snippet": (r["snippet"] or "")[:120], "link": deep_link(shown, r["step"])})
            self.changes.value = pd.DataFrame(rows, columns=_COLUMNS)
            self.changes.visible = bool(rows)
            c = comparison["counts"]
            self.status.object = (
                f'<div class="wb-kv wb-compare-counts"><span class="wb-tag wb-tag-trigger">{c["newly_fires"]} newly fire</span>'
                f'<span class="wb-tag wb-tag-suppressed">{c["stops_firing"]} stop firing</span>'
                f'<span class="wb-tag wb-tag-active">{c["interrupt_changed"]} interrupt changes</span> '
                f"{comparison['unchanged']} unchanged · over {comparison['sessions']['draft']} session(s) · click a row "
                "to open it in the Stepper</div>")
            notify(f"Compared: {sum(c.values())} turn(s) change", "success")

    def _on_change_click(self, event: Any) -> None:
        with reporting("Open change"):
            row = self.changes.value.iloc[event.row]
            self.state.open_step(int(row["step"]), session=row["session"], stream="")

    def __panel__(self) -> pn.viewable.Viewable:
        save = pn.Row(self.edited, self.save_btn, self.confirm_btn)
        keep = pn.Row(self.draft_name, self.persist, self.keep_btn)
        compare = pn.Row(self.draft_select, self.compare_btn, self.progress)
        return pn.Column(pn.pane.HTML("<h4>Save an edit</h4>", stylesheets=theme_sheets()), save, self.diff,
                         pn.pane.HTML("<h4>Keep as a named draft</h4>", stylesheets=theme_sheets()), keep,
                         pn.pane.HTML("<h4>What changes if I ship this edit</h4>", stylesheets=theme_sheets()), compare,
                         self.status, self.changes, sizing_mode="stretch_width", scroll=True, min_height=760)
