"""The stepper's judge card, driven from Python: choose a judge, pause at ``ask``, answer, resume."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.ui.judge_card import queue_html
from workbench.ui.stepper_view import StepperView

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "judged"


@pytest.fixture
def project(tmp_path, monkeypatch):
    target = tmp_path / "judged"
    shutil.copytree(FIXTURE, target)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return target


def test_ask_pauses_the_stepper_and_an_answer_resumes_it(project):
    view = StepperView.from_paths(project / "session.stream.jsonl", project)
    assert "(judged)" in view.rules.object
    view.judge.select.value = "ask"  # rebuilds the stepper with an ask judge
    assert view.stepper.session.judge is not None
    view.go(len(view.stepper) - 1)
    paused = view.state.step
    assert paused < len(view.stepper) - 1 and view.stepper.waiting is not None
    assert view.judge.form.visible
    assert "Does this change to a Python file remove or silence error handling" in view.judge.waiting.object
    assert "src/auth/login.py" in view.judge.waiting.object
    view.judge.answers.objects[0].value = "yes"
    view.judge.answer()
    assert view.state.step == paused and not view.judge.form.visible
    assert "delivered" in view.judge.queue.object and "careful-python-edits" in view.judge.queue.object
    view.go(len(view.stepper) - 1)  # on to the next request (the reply)
    assert view.stepper.waiting is not None and view.stepper.waiting.subject == "reply"
    view.judge.answer(["no"])
    view.go(len(view.stepper) - 1)
    assert view.state.step == len(view.stepper) - 1
    assert view.stepper.result().injected == ("careful-python-edits",)


def test_fixed_judges_and_the_queue_table(project):
    view = StepperView.from_paths(project / "session.stream.jsonl", project)
    view.judge.select.value = "yes"
    snaps = view.stepper.snapshots()
    at = next(s for s in snaps if s.judge_queue)
    html = queue_html(at, view.stepper.session.judged_rule_names())
    assert "judge <b>fixed:yes</b>" in html and "delivered" in html
    assert sorted(view.stepper.result().injected) == ["careful-python-edits", "no-unverified-success"]
    view.judge.select.value = "none"
    assert view.stepper.result().injected == ()
    none_html = queue_html(next(s for s in view.stepper.snapshots() if s.judge_queue), ["careful-python-edits"])
    assert "none: not asked" in none_html and "no judge" in none_html


def test_rules_tab_marks_judged_rules(project):
    from workbench.ui.rules_view import RulesView

    view = RulesView.from_folder(project, project / "session.stream.jsonl")
    assert "careful-python-edits (judged)" in view.summary.object
    assert "no-unverified-success (judged)" in view.summary.object


def test_a_choice_made_stays_when_the_waiting_step_is_drawn_again(project):
    view = StepperView.from_paths(project / "session.stream.jsonl", project)
    view.judge.select.value = "ask"
    view.go(len(view.stepper) - 1)
    paused = view.state.step
    [choice] = view.judge.answers.objects
    choice.value = "yes"
    view.go(len(view.stepper) - 1)  # on again (→ pressed): the replay stays at the wait, the choice kept
    assert view.state.step == paused
    assert view.judge.answers.objects == [choice] and choice.value == "yes"
    view.judge.answer()
    view.go(len(view.stepper) - 1)  # the next request gets its own choices
    assert view.stepper.waiting is not None and view.judge.answers.objects[0] is not choice
    assert view.judge.answers.objects[0].value == "no"
