"""Words of the Stepper and the Rules tab that read as broken in issue 27, now said in full."""

from __future__ import annotations

from types import SimpleNamespace

from workbench.errors import Diagnostic
from workbench.ui.rules_view import engine_warning
from workbench.ui.step_html import buffers_html, no_buffer_words
from workbench.ui.stepper_view import marks_seen


def test_marks_so_far_are_counted_in_words():
    assert marks_seen(10, 10) == ""  # all known: nothing to say
    assert "first 1 steps" not in marks_seen(1, 176) and "step 0 only" in marks_seen(1, 176)
    assert "steps 0–46 of 176" in marks_seen(47, 176)


def test_an_empty_buffers_panel_says_why():
    rules = (SimpleNamespace(name="r"),)
    start = SimpleNamespace(buffers=(), rules=rules, index=0, message_count=0)
    later = SimpleNamespace(buffers=(), rules=rules, index=12, message_count=1)
    none = SimpleNamespace(buffers=(), rules=(), index=12, message_count=1)
    assert "no model text has streamed" in no_buffer_words(start)
    assert "no rule watches the text streamed so far" in no_buffer_words(later)
    assert "no rules are loaded" in no_buffer_words(none)
    assert "(no buffer yet)" not in buffers_html(later) and "why now" in buffers_html(later)


def test_engine_warning_names_the_rule_and_its_file():
    diag = Diagnostic(message="TTSR condition has invalid regex pattern, skipping condition",
                      context={"ruleName": "no-print", "pattern": "print((", "error": "unbalanced"})
    text = engine_warning(diag, {"no-print": "/p/.omp/rules/no-print.md"})
    assert text.startswith("no-print (/p/.omp/rules/no-print.md): TTSR condition has invalid regex pattern")
    assert "pattern 'print(('" in text and "error: unbalanced" in text
    assert engine_warning(Diagnostic(message="plain"), {}) == "plain"
