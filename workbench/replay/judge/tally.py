"""What judged rules cost and caught over many sessions: judge calls and verdicts per rule.

A *judge call* is one request: one completed output with at least one candidate rule, however many
questions it carries. A rule's ``calls`` are the requests that carry its question (what the rule
costs); ``yes`` the outputs judged to break it; ``delivered`` the warnings it produced (a yes the
repeat gate or an earlier verdict did not swallow). Without a judge, requests are counted but not
sent (``asked`` is 0), so the cost is known before any model is paid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class JudgeTally:
    """One judged rule's calls and verdicts (in one session, or summed over many)."""

    rule: str
    calls: int = 0
    asked: int = 0
    yes: int = 0
    delivered: int = 0
    turns: int = 0  # distinct turns with a yes
    sessions: int = 0  # sessions with at least one call

    def plus(self, other: JudgeTally) -> JudgeTally:
        return replace(self, calls=self.calls + other.calls, asked=self.asked + other.asked, yes=self.yes + other.yes,
                       delivered=self.delivered + other.delivered, turns=self.turns + other.turns,
                       sessions=self.sessions + other.sessions)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "calls": self.calls, "asked": self.asked, "yes": self.yes,
                "delivered": self.delivered, "turns": self.turns, "sessions": self.sessions}


@dataclass(frozen=True, slots=True)
class SessionJudging:
    """The judge queue of one session, counted: total requests and per-rule tallies."""

    requests: int
    asked: int
    errors: int
    rules: tuple[JudgeTally, ...]


def tally_session(rounds: Sequence[Any], judged_rules: Sequence[str]) -> SessionJudging:
    """Count the ``JudgeRound``s of one replay (``SimulatedSession.judge_rounds``)."""
    per: dict[str, dict[str, Any]] = {n: {"calls": 0, "asked": 0, "yes": 0, "delivered": 0, "turns": set()}
                                      for n in judged_rules}
    requests = asked = errors = 0
    for round_ in rounds:
        for item in round_.items:
            if not item.candidates:
                continue
            requests += 1
            asked += item.status == "answered"
            errors += item.status == "error"
            for name in item.candidates:
                row = per.setdefault(name, {"calls": 0, "asked": 0, "yes": 0, "delivered": 0, "turns": set()})
                row["calls"] += 1
                row["asked"] += item.status == "answered"
            for name in item.flagged:
                per[name]["yes"] += 1
                per[name]["turns"].add(round_.turn)
            for name in item.claimed:
                per[name]["delivered"] += 1
    tallies = tuple(JudgeTally(n, r["calls"], r["asked"], r["yes"], r["delivered"], len(r["turns"]),
                               1 if r["calls"] else 0) for n, r in per.items())
    return SessionJudging(requests, asked, errors, tallies)


@dataclass(frozen=True, slots=True)
class JudgedBacktest:
    """The judged-rule part of a backtest: the judge used and each judged rule's totals."""

    judge: str | None
    requests: int
    asked: int
    errors: int
    rules: tuple[JudgeTally, ...]

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "delivered": self.judge is not None, "requests": self.requests,
                "asked": self.asked, "errors": self.errors, "rules": [t.to_json() for t in self.rules]}


def summarize(judge: str | None, judged_rules: Sequence[str],
              sessions: Iterable[SessionJudging | None]) -> JudgedBacktest | None:
    """Sum the sessions' tallies, rules in the rule set's order; ``None`` when no rule is judged."""
    if not judged_rules:
        return None
    totals = {n: JudgeTally(n) for n in judged_rules}
    requests = asked = errors = 0
    for s in sessions:
        if s is None:
            continue
        requests, asked, errors = requests + s.requests, asked + s.asked, errors + s.errors
        for t in s.rules:
            totals[t.rule] = totals.get(t.rule, JudgeTally(t.rule)).plus(t)
    return JudgedBacktest(judge, requests, asked, errors, tuple(totals.values()))


def judge_line(judge: str | None) -> str:
    """How the output names the judge (the CLI and the backtest both print it)."""
    if judge is None:
        return "judge: none — judged rules are never delivered (pass --judge yes|no|FILE|URL)"
    return f"judge: {judge}"
