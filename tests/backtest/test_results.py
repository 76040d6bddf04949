"""Backtest results (``workbench.backtest.results``): folding task outcomes, in input order."""

from __future__ import annotations

from workbench.backtest import Hit, SessionOutcome, aggregate
from workbench.replay import Firing
from workbench.rules import Rule


def _hit(session: str, rule: str, turn: int, step: int, snippet: str, *, interrupts: bool = True) -> Hit:
    firing = Firing(rule, turn, step, "text", None, "text", None, "regex", 0, 1, 1, snippet)
    return Hit.of(session, firing, interrupts)


RULES = [Rule("a", "/r/a.md", "A", condition=["x"]), Rule("b", "/r/b.md", "B", condition=["y"]),
         Rule("plain", "/r/plain.md", "P")]


def test_per_rule_counts_first_hit_and_rules_that_never_fire():
    outcomes = [
        SessionOutcome("s1", 3, (_hit("s1", "a", 2, 9, "late"), _hit("s1", "a", 0, 1, "early", interrupts=False))),
        SessionOutcome("s2", 2, (_hit("s2", "a", 1, 4, "other"),)),
        SessionOutcome("bad", 0, (), "bad: not a session"),
    ]
    result = aggregate(RULES, outcomes, samples=2)
    a, b, plain = result.rules
    assert (a.sessions, a.turns, a.interrupting_turns) == (2, 3, 2)
    assert (a.first.session, a.first.turn) == ("s1", 0)  # hits are ordered by step within a session
    assert [h.snippet for h in a.samples] == ["early", "other"]  # different sessions first
    assert not b.fired and result.never_fired == ("b", "plain")
    assert result.not_registered == (("plain", "no condition or astCondition (not a TTSR rule)"),)
    assert result.turns == 5 and [s.session for s in result.errors] == ["bad"]
    assert [h.step for h in result.hits] == [1, 9, 4]


def test_a_rule_the_time_bound_disabled_is_reported_once_not_as_never_fired():
    outcomes = [SessionOutcome("s1", 1, (), slow=(("b", "ran past the 1s time bound"),), disabled=("b",)),
                SessionOutcome("s2", 1, (), slow=(("b", "again"),), disabled=("b",))]
    result = aggregate(RULES, outcomes)
    assert result.disabled == (("b", "s1", "ran past the 1s time bound"),)
    assert result.rules[1].disabled == "ran past the 1s time bound at session s1"
    assert "b" not in result.never_fired


def test_without_drops_a_rules_hits_and_records_it_as_disabled():
    outcome = SessionOutcome("s1", 2, (_hit("s1", "a", 0, 1, "x"), _hit("s1", "b", 1, 5, "y")), disabled=("c",))
    trimmed = outcome.without({"a"})
    assert [h.rule for h in trimmed.hits] == ["b"] and trimmed.disabled == ("a", "c")


def test_rows_and_json_carry_what_the_tables_hold():
    result = aggregate(RULES, [SessionOutcome("s1", 1, (_hit("s1", "a", 0, 1, "snip"),))], elapsed=2.0)
    (row, *_rest) = result.rule_rows()
    assert row["rule"] == "a" and row["first_session"] == "s1" and row["samples"] == ["snip"]
    assert result.hit_rows()[0]["session"] == "s1" and result.session_rows()[0]["hits"] == 1
    data = result.to_json()
    assert data["hits"] == 1 and data["neverFired"] == ["b", "plain"] and data["elapsed"] == 2.0
    assert result.sessions_per_second == 0.5


def test_equal_results_whatever_the_timing():
    outcomes = [SessionOutcome("s1", 1, (_hit("s1", "a", 0, 1, "x"),))]
    assert aggregate(RULES, outcomes, elapsed=1.0, workers=1) == aggregate(RULES, outcomes, elapsed=9.0, workers=4)
