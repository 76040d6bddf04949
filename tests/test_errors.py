"""The one exception tree (``workbench.errors``): messages that say what and where, and ``Diagnostic``."""

from __future__ import annotations

import pytest

from workbench import errors
from workbench.errors import Diagnostic, InputError, RuleFileError, SessionFileError, WorkbenchError


@pytest.mark.parametrize("name", [n for n in errors.__all__ if n != "Diagnostic"])
def test_every_error_is_a_workbench_error(name):
    assert issubclass(getattr(errors, name), WorkbenchError)


def test_input_errors_name_file_line_and_field():
    assert str(InputError("must be true or false", path="r.md", line=7, field="examples[1].triggers")) == \
        "r.md:7: field 'examples[1].triggers': must be true or false"
    assert str(RuleFileError("not UTF-8 text", path="r.md")) == "r.md: not UTF-8 text"
    assert str(SessionFileError("bad header", line=1)) == "line 1: bad header"
    assert str(InputError("plain")) == "plain"
    # The message is also the exception's argument, so `error: {exc}` in the CLI prints it whole.
    assert InputError("m", path="p").args == ("p: m",)


def test_an_input_error_line_can_be_filled_in_later():
    exc = RuleFileError("bad", path="r.md", field="examples[0]")
    exc.line = 4
    assert str(exc) == "r.md:4: field 'examples[0]': bad"


def test_diagnostics_of_a_file_say_where_and_engine_ones_carry_context():
    file_problem = Diagnostic("not valid JSON, skipped", path="s.jsonl", line=3, kind="malformed")
    assert str(file_problem) == "s.jsonl:3: malformed: not valid JSON, skipped"
    engine = Diagnostic("Invalid regex", {"ruleName": "r", "pattern": "("})
    assert str(engine) == "Invalid regex" and engine.context["ruleName"] == "r"
    assert hash(engine) == hash(Diagnostic("Invalid regex", {"other": 1}))  # context is not hashed
    assert engine != Diagnostic("Invalid regex", {"ruleName": "x"})
