"""Playground tab: one rule against a pasted text, every match laid open, as the agent's engine sees it.

The rule is the one of the current rule set (Rules-tab edits included, so a rule being edited is
tried as edited). The report comes from ``workbench.ttsr.playground.explain_rule``; this module only
lays it out (every string from the text or the rule escaped) and offers to keep the text as one of
the rule's ``examples``: the change is shown as a diff first and written atomically on confirm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import UsageError
from workbench.rules import parse_frontmatter
from workbench.ttsr import MatchSource, explain_rule
from workbench.ui.drafts import (
    append_example,
    example_item,
    save_rule_file,
    unified_diff,
)
from workbench.ui.entry_html import DIFF_CSS, esc, highlight_spans, pre, table_html, unified_diff_html
from workbench.ui.notify import notify, reporting
from workbench.ui.roots import ServedRoots
from workbench.ui.ruleset import offer_rules
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets

SOURCES: dict[str, MatchSource] = {"prose (text)": "text", "thinking": "thinking", "tool call (edit/write)": "tool"}
_DEBOUNCE_MS = 300
_MAX_ROWS = 200
PLAYGROUND_CSS = """
.wb-play-text { white-space: pre-wrap; word-break: break-word; font-family: var(--wb-mono); font-size: 12px;
                border: 1px solid var(--wb-border); padding: 6px; max-height: 300px; overflow: auto; }
.wb-play-text mark.wb-match { background: #ffd8b5; border-bottom: 2px solid #d1242f; }
.wb-play-text mark.wb-node { background: #ddf4ff; border-bottom: 2px solid #0969da; }
.wb-play-text mark.wb-parse-error { background: #ffebe9; text-decoration: wavy underline #d1242f; }
.wb-caret { color: #d1242f; font-weight: 700; }
""" + DIFF_CSS


def _pos(span: Any) -> str:
    return f"{span.start}–{span.end} (line {span.line}, col {span.column})"


def report_html(report: Any, text: str) -> str:
    """The playground report as HTML: verdict, each condition's hits and groups, AST nodes and tree."""
    parts = []
    if not report.registered:
        verdict = f'<span class="wb-tag wb-tag-suppressed">not registered</span> {esc(report.rejected)}'
    elif report.fires:
        verdict = '<span class="wb-tag wb-tag-trigger">fires</span> the agent would trigger this rule here'
    else:
        verdict = f'<span class="wb-tag">does not fire</span> {esc(report.why or "")}'
    where = report.source + (f" · tool {report.tool_name}" if report.tool_name else "") + \
        (f" · path {report.path}" if report.path else "")
    parts.append(f'<div class="wb-kv wb-play-verdict">{verdict} <span class="wb-muted">({esc(where)})</span></div>')
    for w in report.warnings:
        parts.append(f'<div class="wb-kv">⚠ {esc(w)}</div>')
    for i, cond in enumerate(report.conditions):
        flags = f" flags <b>{esc(cond.flags)}</b>" if cond.flags else ""
        parts.append(f"<h4>condition[{i}] <code>{esc(cond.pattern)}</code>{flags} · {len(cond.hits)} match(es)</h4>")
        if cond.error:
            caret = ""
            if cond.error_position is not None:
                p = cond.error_position
                caret = (f'<div class="wb-pre">{esc(cond.pattern)}\n{" " * p}<span class="wb-caret">^</span> '
                         f"position {p}</div>")
            parts.append(f'<div class="wb-kv wb-play-error">⚠ {esc(cond.error)}</div>{caret}')
            continue
        if not cond.hits:
            continue
        parts.append(f'<div class="wb-play-text">{highlight_spans(text, [(h.match.start, h.match.end) for h in cond.hits])}</div>')
        names = {n: name for name, n in cond.hits[0].names}
        rows = []
        for k, hit in enumerate(cond.hits[:_MAX_ROWS]):
            groups = "; ".join(
                f"{names.get(g + 1, g + 1)}={'(none)' if sp is None else repr(sp.text) + ' @' + str(sp.start)}"
                for g, sp in enumerate(hit.groups))
            rows.append([k, _pos(hit.match), hit.match.text, groups])
        parts.append(table_html(["#", "position", "match", "groups"], rows))
    for i, ast in enumerate(report.ast):
        parts.append(f"<h4>astCondition[{i}] <code>{esc(ast.pattern)}</code> · language {esc(ast.language or '?')}"
                     f" · {len(ast.hits)} node(s)</h4>")
        if ast.error:
            parts.append(f'<div class="wb-kv wb-play-error">⚠ {esc(ast.error)}</div>')
            continue
        if not ast.hits:
            continue
        nodes = [(h.node.start, h.node.end, "wb-node") for h in ast.hits]
        parts.append(f'<div class="wb-play-text">{highlight_spans(text, nodes)}</div>')
        rows = [[k, h.kind, _pos(h.node), h.node.text,
                 "; ".join(f"{name}={', '.join(repr(s.text) for s in spans) or '(none)'}" for name, spans in h.bindings)]
                for k, h in enumerate(ast.hits[:_MAX_ROWS])]
        parts.append(table_html(["#", "kind", "position", "node", "metavariables"], rows))
    if report.parse_errors:
        parts.append(f"<h4>Parse errors · {len(report.parse_errors)}</h4>")
        parts.append(f'<div class="wb-play-text">{highlight_spans(text, [(s.start, max(s.end, s.start + 1), "wb-parse-error") for s in report.parse_errors])}</div>')
        parts.append(table_html(["position", "text"], [[_pos(s), s.text] for s in report.parse_errors]))
    if report.tree:
        parts.append(f"<details><summary>Syntax tree ({report.tree.count(chr(10)) + 1} nodes)</summary>"
                     f"{pre(report.tree)}</details>")
    return "".join(parts)


class PlaygroundView(Viewer):
    """Paste text, pick where the agent would see it, see what the chosen rule matches; keep it as an example."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._debounce = 0
        self._pending: tuple[str, str, str] | None = None  # (rule path, text on disk, new text)
        self.report: Any = None
        sheets = [*theme_sheets(), PLAYGROUND_CSS]
        self.rule_select = pn.widgets.Select(label="Rule", options=[], width=260, css_classes=["wb-play-rule"])
        self.source = pn.widgets.RadioButtonGroup(options=list(SOURCES), value="prose (text)", width=360, color="primary",
                                                  variant="outline",
                                                  css_classes=["wb-play-source"])
        self.tool = pn.widgets.Select(label="Tool", options=["write", "edit"], value="write", width=90, visible=False)
        self.path = pn.widgets.TextInput(label="Path", placeholder="src/app.ts", width=220, visible=False,
                                         css_classes=["wb-play-path"])
        self.text = pn.widgets.TextAreaInput(
            label="", placeholder="Paste model output or code here", height=260, sizing_mode="stretch_width",
            css_classes=["wb-play-input"],
            stylesheets=[":host textarea { font-family: 'DejaVu Sans Mono', monospace; font-size: 12px; }"])
        self.output = pn.pane.HTML('<div class="wb-muted">Paste a text to see what the rule matches.</div>',
                                   stylesheets=sheets, sizing_mode="stretch_width", css_classes=["wb-play-report"])
        # chosen by the user, never flipped to the current verdict: a negative example is the point
        # when the rule fires where it must not
        self.triggers = pn.widgets.RadioButtonGroup(options={"must fire": True, "must not fire": False}, value=True,
                                                    width=220, css_classes=["wb-play-triggers"], color="primary",
                                                    variant="outline")
        self.note = pn.widgets.TextInput(placeholder="note (optional)", width=220)
        self.preview_btn = pn.widgets.Button(label="Save as example…", width=150)
        self.preview_btn.on_click(lambda e: self.preview_example())
        self.confirm_btn = pn.widgets.Button(label="Write to rule file", color="primary", width=150, disabled=True)
        self.confirm_btn.on_click(lambda e: self.confirm_example())
        self.cancel_btn = pn.widgets.Button(label="Cancel", width=80, disabled=True)
        self.cancel_btn.on_click(lambda e: self._clear_pending())
        self.diff = pn.pane.HTML("", stylesheets=sheets, sizing_mode="stretch_width", css_classes=["wb-play-diff"])
        for w in (self.rule_select, self.source, self.tool):
            w.param.watch(lambda *e: self.update(), "value")
        self.source.param.watch(lambda *e: self._show_tool_inputs(), "value")
        self.path.param.watch(lambda *e: self.update(), "value")
        self.text.param.watch(self._on_type, "value_input")
        self.state.param.watch(lambda *e: self.refresh_rules(), ["rules_dir", "rules_revision"])
        self.refresh_rules()

    @classmethod
    def from_folder(cls, folder: Any) -> PlaygroundView:
        """A playground over the rules of a project folder (notebooks)."""


        root = Path(folder).expanduser().resolve()
        return cls(state=AppState(ServedRoots.of([root]), rules_dir=str(root), tab="playground"))

    # -- inputs ----------------------------------------------------------------------------------
    def refresh_rules(self) -> None:
        with reporting("Playground"):
            rules = self.state.rule_set().rules()
            ttsr = [r.name for r in rules if r.condition or r.ast_condition]
            if offer_rules(self.rule_select, [r.name for r in rules], ttsr):
                self.update()

    def _show_tool_inputs(self) -> None:
        tool = SOURCES[self.source.value] == "tool"
        self.tool.visible = tool
        self.path.visible = tool

    def _on_type(self, event: Any) -> None:
        # Debounced: the report is rebuilt once typing pauses (an AST parse per keystroke adds up).
        self._debounce += 1
        ticket = self._debounce
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            def typed() -> None:
                if ticket == self._debounce:  # typing went on: a later callback updates
                    self.update(event.new)

            doc.add_timeout_callback(typed, _DEBOUNCE_MS)
        else:
            self.update(event.new)

    def rule(self) -> Any:
        name = self.rule_select.value
        return next((r for r in self.state.rule_set().rules() if r.name == name), None)

    # -- the report ------------------------------------------------------------------------------
    def update(self, text: str | None = None) -> None:
        """Run the rule on the text (``text``: what is typed right now, else the widget's value)."""

        if text is not None and text != self.text.value:
            self.text.value = text  # keep value and value_input in step (the example saves this text)
        with reporting("Playground"):
            rule = self.rule()
            body = self.text.value or ""
            if rule is None:
                self.output.object = '<div class="wb-muted">No rule chosen (the rule set has no rules?).</div>'
                return
            source = SOURCES[self.source.value]
            self.report = explain_rule(rule, body, source=source, tool_name=self.tool.value if source == "tool" else None,
                                       path=(self.path.value or None) if source == "tool" else None)
            self.output.object = report_html(self.report, body)

    # -- examples --------------------------------------------------------------------------------
    def preview_example(self) -> None:
        """Show the diff that adds the text as an example of the rule; nothing is written yet."""

        with reporting("Save example"):
            rule = self.rule()
            if rule is None:
                raise UsageError("choose a rule first")
            if not self.text.value:
                raise UsageError("the text is empty: paste what the example should hold")
            path = Path(rule.path)
            if not path.is_file():
                raise UsageError(f"{rule.name} has no rule file here ({rule.path}); bundled rules cannot be edited")
            self.state.roots.check_writable(path)
            on_disk = path.read_text(encoding="utf-8")
            source = SOURCES[self.source.value]
            item = example_item(source, self.text.value, triggers=self.triggers.value,
                                tool_name=self.tool.value, path=self.path.value or None, note=self.note.value or None)
            new = append_example(on_disk, item, path=str(path))
            self._pending = (str(path), on_disk, new)
            self.diff.object = (f'<div class="wb-kv">Adds one item to <b>examples</b> of '
                                f"<b>{esc(self.state.roots.display(path))}</b>; "
                                f"nothing else in the file changes.</div>{unified_diff_html(unified_diff(on_disk, new, path.name))}")
            self.confirm_btn.disabled = False
            self.cancel_btn.disabled = False

    def confirm_example(self) -> None:

        if self._pending is None:
            return
        with reporting("Save example"):
            path, on_disk, new = self._pending
            save_rule_file(path, new, expected=on_disk)
            ruleset = self.state.rule_set()
            name = self.rule_select.value
            if name in ruleset.overrides:  # an open edit in the Rules tab gets the example too
                ruleset.edit(name, append_example(ruleset.overrides[name], self._item_of(new, on_disk), path=path))
            ruleset.changed_on_disk()  # drop the cached discovery: the new example shows without waiting for the poll
            self._clear_pending()
            notify(f"Example added to {self.state.roots.display(Path(path))}", "success")
            self.state.rules_revision += 1

    @staticmethod
    def _item_of(new: str, old: str) -> dict[str, Any]:

        return parse_frontmatter(new).frontmatter["examples"][-1]

    def _clear_pending(self) -> None:
        self._pending = None
        self.diff.object = ""
        self.confirm_btn.disabled = True
        self.cancel_btn.disabled = True

    def __panel__(self) -> pn.viewable.Viewable:
        # input on the left, the report beside it: what the rule sees updates next to what is typed
        inputs = pn.Row(self.rule_select, self.tool, self.path, sizing_mode="stretch_width")
        save = pn.Row(pn.pane.Str("Example:", align="center"), self.triggers, self.note)
        buttons = pn.Row(self.preview_btn, self.confirm_btn, self.cancel_btn)
        left = pn.Column(inputs, self.source, self.text, save, buttons, self.diff, sizing_mode="stretch_width",
                         min_width=560)
        right = pn.Column(self.output, sizing_mode="stretch_width", scroll=True, min_width=560)
        return pn.Row(left, right, sizing_mode="stretch_both", min_height=760)
