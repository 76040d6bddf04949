"""Rule examples for judged rules (``workbench rules test``): a scripted answer per example.

A judged rule's example plays like any other (``workbench.rulecheck``), with a ``ScriptJudge`` that gives
the example's ``judge`` answer (default yes) to the rule's question. The example *fires* when the
warning is delivered; when it is not, the reason says which gate kept the question from being asked
(scope, globs, pre-filter) or what the judge answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.replay.engine import JUDGED_RULE_THRESHOLD
from workbench.replay.judge.judges import ScriptJudge
from workbench.replay.judge.queue import JudgeItem, completed_outputs


def example_judge(rule_name: str, answer: float | None) -> ScriptJudge:
    """A judge that answers ``answer`` (``None``: yes) for ``rule_name`` and no to anything else."""
    return ScriptJudge("example", 0.0, {rule_name: 1.0 if answer is None else answer})


@dataclass(frozen=True, slots=True)
class JudgedOutcome:
    """What became of a judged rule in one presentation: delivered or not, and why."""

    fired: bool
    reason: str
    item: JudgeItem | None = None  # the queue item that delivered it (or was asked)

    @property
    def content(self) -> str:
        return self.item.request.content if self.item is not None and self.item.request is not None else ""


def judged_outcome(sim: Any, rule_name: str, label: str) -> JudgedOutcome:
    """Read the replay's judge queue for ``rule_name`` after one presentation."""
    asked: list[JudgeItem] = [i for r in sim.judge_rounds for i in r.items if rule_name in i.candidates]
    for item in asked:
        if rule_name in item.claimed:
            k = item.candidates.index(rule_name)
            return JudgedOutcome(True, f"delivered {label}: the judge answered {item.answers[k]:g} about the "
                                       f"{item.subject}", item)
    if asked:
        item = asked[0]
        if item.status == "error":
            return JudgedOutcome(False, f"{label}: the judge failed: {item.error}", item)
        k = item.candidates.index(rule_name)
        return JudgedOutcome(False, f"{label}: asked about the {item.subject}; the judge answered "
                                    f"{item.answers[k]:g} (below {JUDGED_RULE_THRESHOLD:g})", item)
    if rule_name not in sim.judged_rule_names():
        return JudgedOutcome(False, f"{label}: not registered as a judged rule "
                                    f"({sim.manager.rejections.get(rule_name, 'rejected by the TTSR manager')})")
    last = next((m for m in reversed(sim.conversation.messages()) if m.get("role") == "assistant"), None)
    reasons = []
    for output in completed_outputs(last or {}, cwd=sim.cwd, edit_mode=sim.edit_mode):
        why = sim.manager.explain_judged(output.content, output.ctx).get(rule_name)
        reasons.append(f"{output.subject}: {why}")
    detail = "; ".join(dict.fromkeys(reasons)) or "the message had no output to judge"
    return JudgedOutcome(False, f"{label}: not asked ({detail})")
