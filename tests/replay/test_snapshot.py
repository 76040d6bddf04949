"""Snapshot pieces: lazily computed, immutable buffer views and one-word rule states."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.replay.conversation import TextView
from workbench.replay.snapshot import BufferView, RuleState
from workbench.ttsr import compile_rule_condition


def test_buffer_view_spans_are_lazy_sorted_and_per_rule():
    conds = (("a", (compile_rule_condition(r"\.unwrap\("),)), ("b", (compile_rule_condition("x"), compile_rule_condition("(?i)X"))))
    view = BufferView("text", TextView.of("x.unwrap() and X.unwrap("), conds)
    assert view._spans is None  # nothing computed until asked
    assert view.spans == (("a", 1, 9), ("a", 16, 24), ("b", 0, 1), ("b", 15, 16))
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.key = "other"
    assert view == BufferView("text", TextView.of("x.unwrap() and X.unwrap("), conds)
    assert view.to_json()["spans"][0] == ["a", 1, 9]


@pytest.mark.parametrize(
    ("state", "word"),
    [
        (RuleState("r", False, "disabled: slow", None, None, None, "not registered: disabled: slow"), "disabled"),
        (RuleState("r", False, "no trigger", None, None, None, "not registered: no trigger"), "not registered"),
        (RuleState("r", True, None, 1, 0, "spent", None, True), "triggered"),
        (RuleState("r", True, None, 1, 2, "spent", "repeat: once"), "spent"),
        (RuleState("r", True, None, 1, 2, 8, "repeat gap 2 < 10"), "waiting"),
        (RuleState("r", True, None, 1, 10, 0, "no condition matched"), "armed"),
        (RuleState("r", True, None, None, None, None, "no condition matched"), "armed"),
    ],
)
def test_rule_state_status(state, word):
    assert state.status == word and state.to_json()["status"] == word
