"""Rules tab: discovered rules by bucket and provider, shadowed ones, warnings, and a live editor.

Editing a rule keeps the new text in memory (``RuleSet.overrides``), bumps ``rules_revision`` so the
stepper re-runs the current stream, and then lists the steps where the edited rule now fires.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import WorkbenchError
from workbench.replay import Stepper
from workbench.rulecheck import run_rule_examples
from workbench.rules import (
    bucket_rules,
    has_examples,
    render_system_prompt,
    resolve_rule_url,
)
from workbench.ttsr import TtsrManager, compile_rule_condition
from workbench.ui.agent_settings_html import agent_settings_html
from workbench.ui.background import Background, Task
from workbench.ui.edit_mode import edit_mode_reason, edit_mode_select
from workbench.ui.entry_html import esc, pre, table_html
from workbench.ui.notify import reporting
from workbench.ui.roots import ServedRoots
from workbench.ui.ruleset import offer_rules
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets
from workbench.ui.validate_card import ValidateCard

_BUCKETS = (("ttsr", "TTSR (stream-triggered)"), ("always_apply", "Always apply"), ("rulebook", "Rulebook"),
            ("dropped", "Dropped"))
_MAX_FIRES_LISTED = 40
_ALL_RAW = frozenset(range(5))  # the rule tables' cells, escaped by the rows themselves (paths get <wbr>)


def _breakable(path: str) -> str:
    """``path`` escaped, with a line break allowed after each ``/``: a long path with nothing to break
    at (``.github/instructions/repo.instructions.md``) widened its table past the column in a
    notebook's width, which then scrolled sideways and hid the "why here" column (issue 27)."""
    return esc(path).replace("/", "/<wbr>")


def editor_problems_html(name: str, rule: Any, warnings: list[str]) -> str:
    """What is wrong with an edited rule, named: each regex that does not compile (rule, pattern and the
    engine's message, which gives the position), then the build's warnings."""

    lines = []
    for i, pattern in enumerate(rule.condition or (), start=1):
        try:
            compile_rule_condition(pattern)
        except WorkbenchError as exc:
            lines.append(f'<div class="wb-editor-error">✖ {esc(name)}: condition {i} {esc(pattern)!s}: {esc(exc)}</div>')
    lines.extend(f'<div class="wb-kv">⚠ {esc(name)}: {esc(w)}</div>' for w in warnings)
    return "".join(lines)


def engine_warning(diag: Any, paths: Mapping[str, Any]) -> str:
    """A TTSR engine warning with the rule and file it is about: the engine's message is the
    reference's wording ("TTSR condition has invalid regex pattern, skipping condition"), which names
    neither; its context does (``ruleName``, ``pattern``, ``error``)."""
    ctx = dict(getattr(diag, "context", None) or {})
    name = ctx.pop("ruleName", None)
    where = f"{name} ({paths[name]})" if name in paths else str(name) if name else ""
    details = "; ".join(f"{k} {v!r}" if k == "pattern" else f"{k}: {v}" for k, v in ctx.items())
    head = f"{where}: " if where else ""
    return f"{head}{diag.message}" + (f" ({details})" if details else "")


def edit_readings_html(setting: str, readings: list[Any]) -> str:
    """The edit mode in use and how each edit call of the stream was read (``auto``: from its arguments)."""
    how = ("auto: each call's mode is read from its arguments" if setting == "auto"
           else f"every edit call is read as {setting} (set here)")
    head = f'<div class="wb-kv">Edit mode: <b>{esc(setting)}</b> · {esc(how)}</div>'
    if not readings:
        return head + '<div class="wb-muted">(no edit call in the current stream)</div>'
    rows = [[r.get("stream_key") or "", r.get("tool") or "", r.get("mode") or "no edit tool", edit_mode_reason(r)]
            for r in readings[:_MAX_FIRES_LISTED]]
    return head + table_html(["call", "tool", "read as", "why"], rows)


class RulesView(Viewer):
    """Rule discovery results and an editor that shows where an edited rule fires in the current stream."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        # The page's replay (the state's replay model) is re-run on each edit; it is brought up to date
        # first, so the buckets below are listed for its agent.
        self.replay = self.state.replay_model
        self.replay.ensure()
        self.bg = Background()
        self._debounce = 0
        self.summary = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", css_classes=["wb-rules"])
        self.rule_select = pn.widgets.Select(label="Edit rule", options=[], width=260)
        self.rule_select.param.watch(lambda e: self._load_editor(), "value")
        self.editor = pn.widgets.TextAreaInput(
            label="", height=260, sizing_mode="stretch_width", css_classes=["wb-rule-editor"],
            stylesheets=[":host textarea { font-family: 'DejaVu Sans Mono', monospace; font-size: 12px; }"],
        )
        self.editor.param.watch(self._on_edit, "value_input")
        self.edit_mode = edit_mode_select(self.state)
        self.edit_readings = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width",
                                          css_classes=["wb-edit-readings"], margin=(0, 10))
        self.builtin = pn.widgets.Checkbox(label="Bundled rules (builtin-defaults)", value=self.state.rule_set().builtin)
        self.builtin.param.watch(lambda e: self._set_builtin(e.new), "value")
        self.editor_status = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width",
                                          css_classes=["wb-editor-status"], margin=(0, 10))
        self.revert = pn.widgets.Button(label="Revert to file", width=130)
        self.revert.on_click(lambda e: self._revert())
        self.open_first = pn.widgets.Button(label="Open first fire in Stepper", width=200, disabled=True)
        self.open_first.on_click(lambda e: self._open_first())
        self.fires = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", css_classes=["wb-rule-fires"])
        self.examples = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width",
                                     css_classes=["wb-rule-examples"])
        self.preview = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width")
        self.validate = ValidateCard(lambda: self.rule_select.value, state=self.state)
        self._first_fire: int | None = None
        self._listed_agent: str | None = None
        self._fires_generation = 0
        self._dirty = True
        self.state.param.watch(self._on_replay, "replay")
        self.state.param.watch(lambda *e: self._mark_dirty(), ["rules_dir", "rules_revision", "tab"])
        self.state.param.watch(lambda *e: self._show_fires(), ["stream", "session", "chunking", "edit_mode"])
        self._mark_dirty()

    def _on_replay(self, event: Any) -> None:
        if event.new is not None:
            if getattr(event.new.config, "agent", None) != self._listed_agent:
                self._mark_dirty()  # the buckets were listed for another agent (or before any replay)
            self._show_fires()

    def _mark_dirty(self) -> None:
        # Discovery and bucketing are done when the tab is on screen, not for every page load.
        self._dirty = True
        if self.state.tab == "rules":
            self._dirty = False
            self.refresh()

    @classmethod
    def from_folder(cls, folder: str | os.PathLike[str], stream: str | os.PathLike[str] | None = None) -> RulesView:
        """Rules of a project folder for a notebook cell; with ``stream``, the editor shows where rules fire."""
        root = Path(folder).expanduser().resolve()
        if stream is not None:
            # the state's replay model replays ``stream``; the view reads the replay from the state
            return cls(state=AppState.for_file(stream, root, tab="rules"))
        state = AppState(ServedRoots.of([root]), rules_dir=str(root), tab="rules")
        return cls(state=state)

    # -- discovery -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        with reporting("Rules"):
            self._refresh()

    def _refresh(self) -> None:
        ruleset = self.state.rule_set()
        loaded = ruleset.loaded()
        rules = ruleset.rules()
        layers = self.state.agent_settings()
        manager = TtsrManager(self.state.settings())
        # the agent of the page's replay (its session's, or the Agent box's); none built yet: the
        # Agent box, else every rule is listed (as the agent's inventory listings do)
        replay = self.state.replay
        agent = replay.config.agent if replay is not None else (self.state.agent.strip() or None)
        buckets = bucket_rules(rules, manager, disabled_rules=layers.names("disabledRules"),
                               builtin_rules=layers.value("builtinRules") is not False, agent_name=agent)
        self._listed_agent = agent
        bundled = loaded.bundled.describe() if loaded.bundled else "off"
        shown_agent = f" · agent <b>{esc(agent)}</b>" if agent else ""
        parts = [f'<div class="wb-kv">Rules folder: <b>{esc(ruleset.folder or "(none)")}</b> · '
                 f"{len(rules)} active rule(s){shown_agent}</div>",
                 f'<div class="wb-kv wb-bundled">Bundled rules: {esc(bundled)}</div>',
                 agent_settings_html(ruleset.folder, ruleset.home, loaded, settings=layers)]
        for key, title in _BUCKETS:
            group = getattr(buckets, key)
            rows = []
            for b in group:
                src = b.rule.source
                edited = " (edited)" if b.rule.name in ruleset.overrides else ""
                edited = (" (judged)" if b.rule.question is not None else "") + edited
                rows.append([esc(b.rule.name + edited), esc(src.provider_name if src else ""),
                             esc(src.level if src else ""), _breakable(self._short(b.rule.path)), esc(b.reason)])
            parts.append(f"<h4>{esc(title)} · {len(group)}</h4>")
            parts.append(table_html(["rule", "provider", "level", "path", "why here"], rows, raw_cols=_ALL_RAW) if rows
                         else '<div class="wb-muted">(none)</div>')
        shadowed = [i for i in loaded.items if i.shadowed]
        if shadowed:
            parts.append(f"<h4>Shadowed · {len(shadowed)}</h4>")
            parts.append(table_html(["rule", "provider", "path", "shadowed by"],
                                    [[esc(i.rule.name), esc(i.provider_name), _breakable(i.path),
                                      _breakable(i.shadowed_by or "")] for i in shadowed], raw_cols=_ALL_RAW))
        invalid = [i for i in loaded.items if i.invalid]
        paths = {r.name: r.path for r in rules}
        warnings = [*loaded.warnings, *(engine_warning(d, paths) for d in manager.diagnostics),
                    *(f"{i.path}: {i.invalid}" for i in invalid)]
        for name, ws in ruleset.edit_warnings.items():
            warnings.extend(f"{name} (edited): {w}" for w in ws)
        parts.append(f"<h4>Warnings · {len(warnings)}</h4>")
        parts.append("".join(f'<div class="wb-kv">⚠ {esc(w)}</div>' for w in warnings) or '<div class="wb-muted">(none)</div>')
        self.summary.object = "".join(parts)
        if offer_rules(self.rule_select, [r.name for r in rules], [b.rule.name for b in buckets.ttsr]):
            self._show_fires()
        self._preview(buckets, rules)
        self._show_examples(rules)

    def _set_builtin(self, on: bool) -> None:
        self.state.rule_set().set_builtin(on)
        self.state.rules_revision += 1  # the stepper re-runs, this tab re-lists

    def _short(self, path: str) -> str:
        """A rule path relative to the rules folder when it is inside it."""
        folder = self.state.rule_set().folder
        if folder is not None and path.startswith(str(folder) + "/"):
            return path[len(str(folder)) + 1:]
        return path

    def _preview(self, buckets: Any, rules: list[Any]) -> None:
        prompt = render_system_prompt(buckets.always_apply_rules, buckets.rulebook_rules)
        name = self.rule_select.value
        url = ""
        if name:
            try:
                res = resolve_rule_url(f"rule://{name}", rules)
                url = f'<h4>rule://{esc(name)}</h4>{pre(res.content)}'
            except WorkbenchError as exc:
                url = f'<div class="wb-kv">rule://{esc(name)}: {esc(exc)}</div>'
        self.preview.object = f"<h4>System prompt (rules section)</h4>{pre(prompt or '(empty)')}{url}"

    # -- editor --------------------------------------------------------------------------------------
    def _load_editor(self) -> None:
        name = self.rule_select.value
        if not name:
            return
        with reporting("Rule editor"):
            self.editor.value = self.state.rule_set().source_text(name)
            self._show_fires()
            self._show_examples(self.state.rule_set().rules())

    def _on_edit(self, event: Any) -> None:
        # Debounce typing: the stream is re-run once the text has been still for 0.4 s.
        self._debounce += 1
        ticket = self._debounce
        text = event.new

        def apply() -> None:
            if ticket == self._debounce:
                self.apply_edit(text)

        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.curdoc.add_timeout_callback(apply, 400)
        else:
            apply()

    def apply_edit(self, text: str | None) -> None:
        """Use ``text`` as the selected rule's Markdown and re-run the stream."""
        name = self.rule_select.value
        if not name or text is None:
            return
        ruleset = self.state.rule_set()
        if text == ruleset.source_text(name):
            return
        try:
            built = ruleset.edit(name, text)
        except WorkbenchError as exc:
            # broken frontmatter (YAML) and the like: shown under the editor while typing, the rule unchanged
            self.editor_status.object = f'<div class="wb-editor-error">✖ {esc(name)}: {esc(exc)}</div>'
            return
        self.editor_status.object = editor_problems_html(name, built, ruleset.edit_warnings.get(name, []))
        with reporting(f"Rule {name}"):
            self.state.rules_revision += 1  # the stepper rebuilds first (registered earlier), then _refresh

    def _revert(self) -> None:
        name = self.rule_select.value
        if name:
            self.state.rule_set().revert(name)
            self.editor.value = self.state.rule_set().source_text(name)
            self.state.rules_revision += 1

    def _show_examples(self, rules: list[Any]) -> None:
        """The rule's own ``examples`` (frontmatter), each passing or failing against the edited rule."""
        name = self.rule_select.value
        rule = next((r for r in rules if r.name == name), None)
        if rule is None:
            self.examples.object = ""
            return
        if not has_examples(rule.frontmatter):
            self.examples.object = '<div class="wb-muted">This rule has no <code>examples</code> in its frontmatter.</div>'
            return
        report = run_rule_examples(rule)
        if report.error:
            self.examples.object = f'<div class="wb-kv">⚠ examples: {esc(report.error)}</div>'
            return
        rows = [[res.example.label, res.example.shown, "pass" if res.passed else "FAIL", res.reason]
                for res in report.results]
        classes = ["" if res.passed else "wb-row-trigger" for res in report.results]
        passed = sum(1 for res in report.results if res.passed)
        self.examples.object = (f"<h4>Examples · {passed}/{len(rows)} pass</h4>"
                                + table_html(["example", "input", "result", "why"], rows, classes))

    def _show_fires(self) -> None:
        name = self.rule_select.value
        if self.state.tab != "rules":
            return  # computed when the tab is shown (replaying a long stream is not free)
        self.state.param.trigger("replay_wanted")  # the replay model brings the replay up to date
        stepper = self.state.replay
        self._first_fire = None
        self.open_first.disabled = True
        if not name:
            self.fires.object = ""
            return
        if stepper is None:
            self.fires.object = ('<div class="wb-muted">Replaying the current stream… (or none chosen: open a session '
                                 "or choose a stream in the Stepper)</div>")
            return
        # Replaying every step of a long stream takes seconds: served, it runs on the background runner
        # with its own Stepper (the page's stepper keeps serving the Stepper tab meanwhile).
        self._fires_generation += 1
        generation = self._fires_generation
        if not self.bg.served:
            self._install_fires(generation, name, *self._find_fires(stepper, name))
            return
        self.fires.object = f'<div class="wb-muted">Replaying {len(stepper):,} events to find where {esc(name)} fires…</div>'
        settings, home, edit_mode = self.state.settings(), str(self.state.rule_set().home), self.state.edit_mode

        def work(task: Task) -> tuple[Any, ...]:
            # rules the page's stepper disabled for running past their time bound stay out here too
            rules = [r for r in stepper.rules if r.name not in stepper.disabled]
            copy = Stepper(stepper.source, rules, stepper.config.replace(settings=settings, home=home, judge=None,
                                                                         time_bound=None, edit_mode=edit_mode))
            return self._find_fires(copy, name)

        self.bg.submit(work, what="Rule fires", done=lambda result: self._install_fires(generation, name, *result))

    @staticmethod
    def _find_fires(stepper: Any, name: str) -> tuple[list[tuple[int, str, str]], str, BaseException | None,
                                                      list[Any]]:
        """(fires as (step, event type, delta), why it never fires, error, the edit calls' readings)."""
        try:
            fires = []
            last = None
            readings: dict[str, Any] = {}
            for snap in stepper.snapshots():
                state = snap.rule(name)
                last = state
                if state is not None and state.matched:
                    fires.append((snap.index, snap.event.type, (snap.event.delta or "")[:60]))
                if snap.edit_mode is not None:
                    readings[snap.edit_mode["stream_key"]] = snap.edit_mode
            why = f" (not registered: {last.rejected})" if last is not None and not last.registered else ""
            return fires, why, None, list(readings.values())
        except Exception as exc:
            return [], "", exc, []

    def _install_fires(self, generation: int, name: str, fires: list[tuple[int, str, str]], why: str,
                       error: BaseException | None, readings: list[Any]) -> None:
        if generation != self._fires_generation:
            return
        self.edit_readings.object = edit_readings_html(self.state.edit_mode, readings)
        with reporting("Rule fires"):
            if error is not None:
                raise error
            if not fires:
                self.fires.object = (f'<div class="wb-kv"><b>{esc(name)}</b> does not fire in the current stream'
                                     f"{esc(why)}.</div>")
                return
            self._first_fire = fires[0][0]
            self.open_first.disabled = False
            rows = [list(f) for f in fires[:_MAX_FIRES_LISTED]]
            more = (f'<div class="wb-muted">… and {len(fires) - _MAX_FIRES_LISTED} more</div>'
                    if len(fires) > _MAX_FIRES_LISTED else "")
            self.fires.object = (f'<div class="wb-kv"><span class="wb-tag wb-tag-trigger">{esc(name)}</span> '
                                 f"fires at {len(fires)} step(s) of the current stream</div>"
                                 + table_html(["step", "event", "delta"], rows, ["wb-row-trigger"] * len(rows)) + more)

    def _open_first(self) -> None:
        if self._first_fire is not None:
            self.state.open_step(self._first_fire)

    def __panel__(self) -> pn.viewable.Viewable:
        # two columns down to a notebook's width (~970 px): at 560 px each they scrolled sideways
        # there and hid the editor's buttons; the buttons wrap under the select when narrow
        left = pn.Column(self.builtin, self.summary, scroll=True, sizing_mode="stretch_both", min_width=440)
        buttons = pn.FlexBox(self.rule_select, self.revert, self.open_first, flex_wrap="wrap", margin=0,
                             sizing_mode="stretch_width")
        right = pn.Column(buttons, self.editor, self.editor_status, self.fires, self.edit_mode, self.edit_readings,
                          self.examples, self.validate, self.preview, scroll=True, sizing_mode="stretch_both", min_width=440)
        return pn.Row(left, right, sizing_mode="stretch_both", min_height=760)
