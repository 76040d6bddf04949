"""The Stepper's judge card: which judge answers judged rules, the judge queue of a step, and ``ask``.

Judged rules (``question``) are asked about each output once an assistant message completes. The
card shows, for the step on screen, every output of the message that completed there, its candidate
rules and questions, the content sent and the answers. With the ``ask`` judge the replay pauses at
each request: the card shows the question and the content, and the user answers yes or no per
question; the stepper then resumes (``Stepper.answer``).

The judge choice itself is the replay model's (``ReplayModel.judge``): a new choice rebuilds the replay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import panel as pn
from panel.viewable import Viewer

from workbench.ui.entry_html import esc, pre, table_html
from workbench.ui.late_models import acknowledge_joins
from workbench.ui.replay_model import JUDGE_CHOICES
from workbench.ui.theme import theme_sheets

JUDGE_HELP = ("How judged rules (rules with a question) are answered: none: they are not delivered; yes / no to "
              "all: every question is answered so; ask me: the replay pauses at each question for your answer")
_CONTENT_SHOWN = 2000


def judged_names(stepper: Any) -> list[str]:
    return stepper.session.judged_rule_names() if stepper is not None else []


def queue_html(snap: Any, judged: list[str]) -> str:
    """The judge queue of one snapshot: outputs, candidates, questions, answers (and a waiting request)."""
    if not judged:
        return '<div class="wb-muted">No judged rules (rules with a <code>question</code>) in this rule set.</div>'
    head = ('<div class="wb-kv">judged rules: '
            + " ".join(f'<span class="wb-tag wb-tag-judged">{esc(n)}</span>' for n in judged) + "</div>")
    if not snap.judge_queue:
        return head + '<div class="wb-muted">No message completed at this step: nothing was judged.</div>'
    parts = [head]
    for round_ in snap.judge_queue:
        judge = round_.judge or "none: not asked"
        parts.append(f'<div class="wb-kv">turn {round_.turn} · judge <b>{esc(judge)}</b></div>')
        rows, classes = [], []
        for item in round_.items:
            questions = item.request.questions if item.request is not None else ()
            answers = [f"{a:g}" for a in item.answers] or ["—"] * len(questions)
            for k, rule in enumerate(item.candidates):
                q = questions[k].question if k < len(questions) else ""
                delivered = rule in item.claimed
                rows.append([item.subject, rule, q, item.status, answers[k] if k < len(answers) else "—",
                             "delivered" if delivered else ("yes, already delivered" if rule in item.flagged else "")])
                classes.append("wb-row-trigger" if delivered else "")
            if not item.candidates:
                rows.append([item.subject, "—", "", item.status, "", ""])
                classes.append("")
            if item.error:
                rows.append([item.subject, "", item.error, "error", "", ""])
                classes.append("wb-row-suppressed")
        parts.append(table_html(["output", "rule", "question", "status", "answer", "verdict"], rows, classes))
    return "".join(parts)


def waiting_html(request: Any) -> str:
    """What an ``ask`` judge shows: the output, the content sent and the questions."""
    content = request.content
    cut = len(content) > _CONTENT_SHOWN
    shown = content[:_CONTENT_SHOWN] + ("\n…" if cut else "")
    note = f" (cut to the judge's token limit: ~{request.tokens:,} tokens)" if request.truncated else ""
    questions = "".join(f"<li><b>{esc(q.rule)}</b>: {esc(q.question)}</li>" for q in request.questions)
    if not content:
        # An edit's digest is its new text (the reference's matcher surface): a pure deletion sends nothing.
        return (f'<div class="wb-kv"><span class="wb-tag wb-tag-active">judge waiting</span> step {request.step} · '
                f"turn {request.turn} · the {esc(request.subject)}</div><ol>{questions}</ol>"
                '<div class="wb-muted">(the content sent is empty: the tool reports no text for this call)</div>')
    return (f'<div class="wb-kv"><span class="wb-tag wb-tag-active">judge waiting</span> step {request.step} · '
            f"turn {request.turn} · the {esc(request.subject)}{esc(note)}</div><ol>{questions}</ol>{pre(shown)}")


class JudgeCard(Viewer):
    """Judge choice, the queue of the step on screen, and the answer form of a paused ``ask`` judge."""

    def __init__(self, model: Any, on_answer: Callable[[], None] | None = None, **params: Any) -> None:
        super().__init__(**params)
        self._on_answer = on_answer
        self.stepper: Any = None
        self.select = pn.widgets.Select(label="Judge", options=JUDGE_CHOICES, value=model.judge, width=190,
                                        description=JUDGE_HELP)
        self.select.param.watch(lambda e: setattr(model, "judge", e.new), "value")
        self.queue = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", min_height=60,
                                  css_classes=["wb-judge-queue"])
        self.waiting = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width",
                                    css_classes=["wb-judge-waiting"])
        # the choices join the page late: acknowledged on arrival, so that their first change names
        # them by id (ui/late_models.py)
        self.answers = acknowledge_joins(pn.Column(sizing_mode="stretch_width"))
        self._asked: Any = None  # the judge request ``answers`` holds choices for
        self.submit = pn.widgets.Button(label="Answer and resume ▶", color="primary", width=200)
        self.submit.on_click(lambda e: self.answer())
        self.form = pn.Column(self.waiting, self.answers, self.submit, visible=False, sizing_mode="stretch_width")

    def show(self, stepper: Any, snap: Any) -> None:
        self.stepper = stepper
        self.queue.object = queue_html(snap, judged_names(stepper)) if snap is not None else ""
        request = snap.judge_waiting if snap is not None else None
        self.form.visible = request is not None
        if request is None:
            self._asked, self.answers.objects = None, []
            return
        self.waiting.object = waiting_html(request)
        if request == self._asked:  # drawn again for the same wait: the choices made stay
            return
        self._asked = request
        self.answers.objects = [pn.widgets.RadioButtonGroup(label=q.rule, options=["yes", "no"], value="no",
                                                            css_classes=["wb-judge-answer"])
                                for q in request.questions]

    def answer(self, values: list[str] | None = None) -> None:
        """Answer the waiting request (the form's choices, or ``values`` in question order) and resume."""
        if self.stepper is None or self.stepper.waiting is None:
            return
        given = values if values is not None else [w.value for w in self.answers.objects]
        self.stepper.answer(given)
        if self._on_answer is not None:
            self._on_answer()

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Column(self.form, self.queue, sizing_mode="stretch_width")
