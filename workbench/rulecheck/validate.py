"""A rule checked against sessions' history as ``/omfg`` checks the rule it generated.

oh-my-pi 18.3.4 (``src/modes/controllers/omfg-rule.ts``, ``validateRuleAgainstAssistantHistory``;
the outputs of ``src/session/ttsr-outputs.ts``) accepts a generated rule only when it would have
fired on the conversation so far. The history is the assistant messages of the session's context,
each cut into whole outputs (every tool call, per file when the tool reports entries, then all reply
text joined, then all reasoning joined: ``workbench.replay``'s completed outputs, the ones judged rules
see). The rule goes alone into a fresh manager with default settings; each output is one snapshot.

- A ``condition`` / ``astCondition`` rule is accepted when some output matches, unless the first
  matching tool call on a file with an extension shows the scope is too broad (a bare ``tool`` /
  no scope, or ``text``): ``/omfg`` then asks for ``tool:<name>(*.<ext>)`` instead.
- A ``question`` rule needs outputs its scope and prefilter admit; the last 8 of them go to the judge,
  and one yes accepts it. Without a judge it cannot be confirmed (``judge_unavailable``).

The feedback texts are the agent's, so an author sees what ``/omfg`` would say (docs/rule-authoring.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workbench.errors import JudgeError
from workbench.replay import Judge, JudgedOutput, JudgeQuestion, JudgeRequest, completed_outputs
from workbench.rules import Rule
from workbench.sessions import Session, build_session_context, detect_flavor
from workbench.ttsr import (
    JUDGED_RULE_THRESHOLD,
    TtsrManager,
)

MAX_JUDGED_VALIDATION_OUTPUTS = 8


@dataclass(frozen=True, slots=True)
class HistoryOutput:
    """One completed output of a session's history, and where it is (``entry``: the message's id)."""

    output: JudgedOutput
    session: str
    entry: str | None

    def to_json(self) -> dict[str, Any]:
        ctx = self.output.ctx
        return {"session": self.session, "entry": self.entry, "subject": self.output.subject,
                "source": ctx.source, "toolName": ctx.tool_name,
                "filePaths": list(ctx.file_paths) if ctx.file_paths else None}


@dataclass(frozen=True, slots=True)
class Validation:
    """``/omfg``'s verdict: ``matched`` (it would save the rule) and the feedback it would give."""

    rule: str
    matched: bool
    matches: tuple[HistoryOutput, ...]  # where the rule fires (judged: where the judge said yes)
    checked: int  # outputs looked at
    feedback: str | None = None
    judge_unavailable: bool = False
    judged: tuple[HistoryOutput, ...] = ()  # the outputs sent to the judge

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "matched": self.matched, "feedback": self.feedback,
                "judgeUnavailable": self.judge_unavailable, "checked": self.checked,
                "matches": [m.to_json() for m in self.matches], "judged": [j.to_json() for j in self.judged]}


def history_outputs(session: Session, *, edit_mode: str | None = None) -> list[HistoryOutput]:
    """The outputs of the assistant messages in the context at the session's leaf (what the agent holds
    as ``session.messages`` after a resume), oldest first; tool paths resolved against its ``cwd``."""
    context = build_session_context(session, flavor=detect_flavor(session).flavor)
    by_time: dict[Any, str | None] = {}
    for entry_id in context.path_ids:
        entry = session.by_id.get(entry_id)
        if entry is not None and entry.type == "message" and entry.role == "assistant":
            by_time.setdefault((entry.message or {}).get("timestamp"), entry.id)
    cwd = session.cwd or os.getcwd()
    out: list[HistoryOutput] = []
    for message in context.messages:
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        where = by_time.get(message.get("timestamp"))
        out += [HistoryOutput(o, session.path, where) for o in completed_outputs(message, cwd=cwd, edit_mode=edit_mode)]
    return out


def validate_rule(rule: Rule, outputs: Sequence[HistoryOutput], judge: Judge | None = None) -> Validation:
    """Check ``rule`` against ``outputs`` (oldest first) as ``/omfg`` does."""
    manager = TtsrManager(None)
    if not manager.add_rule(rule):
        return Validation(rule.name, False, (), 0, "TTSR rejected the rule: it has no valid trigger or its scope "
                          "cannot reach any stream.")
    if rule.question is not None:
        return _validate_question(rule, rule.question, manager, outputs, judge)
    matches: list[HistoryOutput] = []
    for item in outputs:
        out = item.output
        if not out.content:
            continue
        manager.reset_buffer()
        if manager.check_snapshot(out.content, out.ctx) or manager.check_ast_snapshot(out.content, out.ctx):
            matches.append(item)
    if not matches:
        return Validation(rule.name, False, (), len(outputs), no_match_feedback(rule, outputs))
    scope = scope_feedback(rule, matches)
    return Validation(rule.name, scope is None, tuple(matches), len(outputs), scope)


def _validate_question(rule: Rule, question: str, manager: TtsrManager, outputs: Sequence[HistoryOutput],
                       judge: Judge | None) -> Validation:
    reachable = [o for o in outputs if manager.judged_candidates(o.output.content, o.output.ctx)]
    if not reachable:
        return Validation(rule.name, False, (), len(outputs), no_match_feedback(rule, outputs))
    recent = tuple(reachable[-MAX_JUDGED_VALIDATION_OUTPUTS:])
    if judge is None:
        return Validation(rule.name, False, (), len(outputs), "No judge model is available (see `ttsr.judge`), "
                          "so the question could not be confirmed.", True, recent)
    flagged: list[HistoryOutput] = []
    try:
        for n, item in enumerate(recent):
            answers = judge.answer(_request(item.output, rule, question, n))
            if answers is None:
                raise JudgeError("the judge gave no answer (an ask judge cannot answer here)")
            if answers and float(answers[0]) >= JUDGED_RULE_THRESHOLD:
                flagged.append(item)
    except JudgeError as exc:
        return Validation(rule.name, False, (), len(outputs), f"The judge failed: {exc}", True, recent)
    if flagged:
        return Validation(rule.name, True, tuple(flagged), len(outputs), None, False, recent)
    subjects = ", ".join(o.output.subject for o in recent)
    return Validation(rule.name, False, (), len(outputs), (
        f"The judge answered no to question {_js(question)} for every in-scope output checked ({subjects}). "
        "Rephrase the question so the offending output clearly answers yes, or prefer a `condition`/`astCondition` "
        "if the offending output has a literal or structural signature."), False, recent)


def _request(out: JudgedOutput, rule: Rule, question: str, n: int) -> JudgeRequest:
    return out.request(f"validate:{n}", n, 0, (JudgeQuestion("q0", rule.name, question),))


# --- the agent's feedback texts -------------------------------------------------------------------


def _js(value: str | None) -> str:  # JSON.stringify: non-ASCII kept
    return json.dumps(value, ensure_ascii=False)


def _rule_list(values: Sequence[str] | None) -> str:
    return ", ".join(_js(v) for v in values) if values else "<default>"


def _triggers(rule: Rule) -> str:
    parts = []
    if rule.condition:
        parts.append(f"condition {_rule_list(rule.condition)}")
    if rule.ast_condition:
        parts.append(f"astCondition {_rule_list(rule.ast_condition)}")
    if rule.question:
        parts.append(f"question {_js(rule.question)}")
    return " / ".join(parts)


def _hints(conditions: Sequence[str]) -> list[str]:
    hints: list[str] = []
    for condition in conditions:
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", condition):
            low = word.lower()
            if low not in ("tool", "text", "any", "true", "false") and low not in hints:
                hints.append(low)
    return hints


def _excerpt(text: str, hints: Sequence[str]) -> str:
    normalized = re.sub(r"\s+", " ", text)
    if len(normalized) <= 260:
        return normalized
    lower = normalized.lower()
    found = [i for i in (lower.find(h) for h in hints) if i != -1]
    if not found:
        return normalized[:260] + "…"
    best = min(found)
    start, end = max(0, best - 120), min(len(normalized), best + 140)
    return ("…" if start > 0 else "") + normalized[start:end] + ("…" if end < len(normalized) else "")


def no_match_feedback(rule: Rule, outputs: Sequence[HistoryOutput]) -> str:
    hints = _hints([*(rule.condition or ()), *(rule.ast_condition or ())])
    scope = _rule_list(rule.scope)
    lines = [f"No assistant output within scope {scope} passed {_triggers(rule)}; the question was never asked."
             if rule.question else f"No assistant output matched {_triggers(rule)} within scope {scope}."]
    if not outputs:
        lines.append("No assistant replies, reasoning, or tool calls were available to check.")
        return "\n".join(lines)
    lines.append("Checked outputs:")
    for item in outputs[:5]:
        lines.append(f"- {item.output.subject}: {_js(_excerpt(item.output.content, hints))}")
    if len(outputs) > 5:
        lines.append(f"- ... {len(outputs) - 5} more output(s)")
    lines.append('edit/write calls are checked as the written source text; other tool calls as serialized JSON '
                 'arguments, where quotes appear escaped (\\").')
    lines.append("If the trigger looks right, fix the scope so it reaches the offending tool and file glob.")
    return "\n".join(lines)


def _extension_glob(paths: Sequence[str] | None) -> str | None:
    for raw in paths or ():
        ext = os.path.splitext(raw.replace("\\", "/").rsplit("/", 1)[-1])[1].lower()
        if len(ext) > 1:
            return f"*{ext}"
    return None


def recommended_scope(item: HistoryOutput) -> str | None:
    ctx = item.output.ctx
    glob = _extension_glob(ctx.file_paths)
    return f"tool:{ctx.tool_name}({glob})" if ctx.tool_name and glob else None


def scope_feedback(rule: Rule, matches: Sequence[HistoryOutput]) -> str | None:
    """The note when the scope is broader than the matching ``tool:<name>(*.ext)`` call (``None``: fine)."""
    tool_match = next((m for m in matches if m.output.ctx.source == "tool" and recommended_scope(m)), None)
    if tool_match is None:
        return None
    tokens = [t.strip().lower() for t in (rule.scope or ())]
    broad = not tokens or any(t in ("tool", "toolcall") for t in tokens)
    text = "text" in tokens
    if not broad and not text:
        return None
    problems = []
    if broad:
        problems.append(f"scope {_rule_list(rule.scope)} is broader than the matching file-specific tool call")
    if text:
        problems.append("scope includes `text`, but the offending content was confirmed in tool arguments")
    return (f"The trigger matched the {tool_match.output.subject}, but {'; '.join(problems)}. Use a narrow scope "
            f"such as {_js(recommended_scope(tool_match))} and do not repeat the failed scope "
            f"{_rule_list(rule.scope)}.")
