"""The Rules tab's Validate card: would ``/omfg`` accept the edited rule on the open session?

The rule as edited (unsaved text included) is checked against the open session's history as the
agent's ``/omfg`` checks a rule it generated (``workbench.rulecheck.validate_rule``; see
docs/rule-authoring.md): where it fires, and the agent's feedback when it would not accept it.
Judged rules get no judge here, so the card says they cannot be confirmed, as the agent does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import panel as pn
import param
from panel.viewable import Viewer

from workbench.errors import WorkbenchError
from workbench.rulecheck import Validation, history_outputs, validate_rule
from workbench.sessions import load_session
from workbench.ui.entry_html import esc
from workbench.ui.state import AppState
from workbench.ui.theme import theme_sheets


def validation_html(result: Validation, session: str) -> str:
    """The card's text; everything from the session or the rule is escaped."""
    verdict = "✔ /omfg would accept this rule" if result.matched else "✖ /omfg would not accept this rule"
    parts = [f'<div class="wb-validate-verdict">{esc(verdict)} '
             f'<span class="wb-muted">({result.checked} output(s) of {esc(session)})</span></div>']
    if result.matches:
        items = "".join(f"<li>fires on the {esc(m.output.subject)}"
                        + (f' <span class="wb-muted">entry {esc(m.entry)}</span>' if m.entry else "") + "</li>"
                        for m in result.matches[:20])
        more = f"<li>… {len(result.matches) - 20} more</li>" if len(result.matches) > 20 else ""
        parts.append(f"<ul>{items}{more}</ul>")
    if result.feedback:
        label = "note" if result.judge_unavailable else "feedback"
        parts.append(f'<div class="wb-validate-feedback"><b>{label}:</b><pre>{esc(result.feedback)}</pre></div>')
    return "".join(parts)


class ValidateCard(Viewer):
    """A button and the verdict; ``rule_name`` gives the rule selected in the editor."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, rule_name: Callable[[], Any], **params: Any) -> None:
        super().__init__(**params)
        self._rule_name = rule_name
        self.button = pn.widgets.Button(label="Validate as /omfg", width=170, css_classes=["wb-validate-run"])
        self.button.on_click(lambda e: self.run())
        self.result = pn.pane.HTML('<div class="wb-muted">Check the edited rule against the open session, '
                                   "as /omfg checks a rule before saving it.</div>", stylesheets=theme_sheets(),
                                   sizing_mode="stretch_width", css_classes=["wb-validate"])

    def run(self) -> None:
        name = self._rule_name()
        path = self.state.session_path()
        if not name:
            self.result.object = '<div class="wb-muted">Choose a rule to validate.</div>'
            return
        if path is None:
            self.result.object = '<div class="wb-muted">Open a session to validate the rule against.</div>'
            return
        rule = next((r for r in self.state.rule_set().rules() if r.name == name), None)
        if rule is None:
            self.result.object = f'<div class="wb-editor-error">✖ rule {esc(name)} is not loaded</div>'
            return
        try:
            # edit calls are read in the Edit mode menu's mode, as the replay reads them (auto: per call)
            mode = self.state.edit_mode
            outputs = history_outputs(load_session(str(path)), edit_mode=None if mode == "auto" else mode)
        except WorkbenchError as exc:
            self.result.object = f'<div class="wb-editor-error">✖ {esc(exc)}</div>'
            return
        self.result.object = validation_html(validate_rule(rule, outputs, None), self.state.session)

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(pn.pane.HTML("<h4>Validate</h4>", margin=(0, 10)), self.button, self.result,
                         sizing_mode="stretch_width", css_classes=["wb-validate-card"])
