"""``workbench.ui.validate_card``: the Validate card's text (escaped) from a validation."""

from __future__ import annotations

from workbench.rulecheck import Validation
from workbench.ui.validate_card import validation_html


def test_the_verdict_and_feedback_are_escaped():
    html = validation_html(Validation("r", False, (), 3, "No assistant output matched <script>x</script>"), "a<b>.jsonl")
    assert "/omfg would not accept this rule" in html and "3 output(s) of a&lt;b&gt;.jsonl" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "<b>feedback:</b>" in html


def test_a_judge_note_is_labelled_as_a_note():
    html = validation_html(Validation("r", False, (), 1, "No judge model is available", True), "s.jsonl")
    assert "<b>note:</b>" in html


def test_the_card_reads_edit_calls_in_the_edit_mode_menus_mode(tmp_path):
    from tests.cli.test_validate_cli import EDIT_RULE, EDIT_TS
    from tests.rulecheck.test_validate import write_session
    from workbench.ui.roots import ServedRoots
    from workbench.ui.state import AppState
    from workbench.ui.validate_card import ValidateCard

    (tmp_path / ".omp" / "rules").mkdir(parents=True)
    (tmp_path / ".omp" / "rules" / "no-console.md").write_text(EDIT_RULE)
    write_session(tmp_path / "s.jsonl", tmp_path, [[EDIT_TS]])
    state = AppState(ServedRoots.of([tmp_path]), session="s.jsonl", rules_dir=str(tmp_path))
    card = ValidateCard(lambda: "no-console", state=state)
    verdicts = {}
    for mode in ("auto", "replace"):
        state.edit_mode = mode
        card.run()
        verdicts[mode] = "/omfg would accept this rule" in card.result.object
    assert verdicts == {"auto": True, "replace": False}, card.result.object
