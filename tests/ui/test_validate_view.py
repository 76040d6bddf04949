"""``workbench.ui.validate_view``: the Validate card's text (escaped) from a validation."""

from __future__ import annotations

from workbench.rulecheck import Validation
from workbench.ui.validate_view import validation_html


def test_the_verdict_and_feedback_are_escaped():
    html = validation_html(Validation("r", False, (), 3, "No assistant output matched <script>x</script>"), "a<b>.jsonl")
    assert "/omfg would not accept this rule" in html and "3 output(s) of a&lt;b&gt;.jsonl" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "<b>feedback:</b>" in html


def test_a_judge_note_is_labelled_as_a_note():
    html = validation_html(Validation("r", False, (), 1, "No judge model is available", True), "s.jsonl")
    assert "<b>note:</b>" in html
