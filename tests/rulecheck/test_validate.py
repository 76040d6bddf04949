"""``workbench.rulecheck.validate``: a rule checked against a session's history as ``/omfg`` checks it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.replay import FixedJudge
from workbench.rulecheck import history_outputs, validate_rule
from workbench.rules import Rule
from workbench.sessions import load_session


def _assistant(mid: str, parent: str | None, ts: int, content: list) -> dict:
    return {"type": "message", "id": mid, "parentId": parent, "timestamp": f"2026-01-01T00:00:{ts:02d}.000Z",
            "message": {"role": "assistant", "stopReason": "toolUse", "timestamp": ts, "content": content}}


def write_session(path: Path, cwd: Path, assistants: list[list]) -> Path:
    rows: list[dict] = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z",
                         "cwd": str(cwd)},
                        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:00.500Z",
                         "message": {"role": "user", "content": "please add logging", "timestamp": 0}}]
    parent = "u1"
    for n, content in enumerate(assistants, start=1):
        rows.append(_assistant(f"a{n}", parent, n, content))
        parent = f"a{n}"
        # each call gets its result, as in a real session: omp 18 drops a call whose result is missing
        for block in content:
            if block.get("type") == "toolCall":
                rid = f"r{n}-{block['id']}"
                rows.append({"type": "message", "id": rid, "parentId": parent,
                             "timestamp": f"2026-01-01T00:00:{n:02d}.500Z",
                             "message": {"role": "toolResult", "toolCallId": block["id"], "toolName": block["name"],
                                         "content": [{"type": "text", "text": "ok"}], "isError": False,
                                         "timestamp": n}})
                parent = rid
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


WRITE_TS = {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "src/a.ts", "content": "console.log(1)\n"}}


@pytest.fixture()
def outputs(tmp_path):
    session = write_session(tmp_path / "s.jsonl", tmp_path, [
        [{"type": "thinking", "thinking": "think alpha"}, {"type": "text", "text": "first alpha"},
         {"type": "thinking", "thinking": "beta thought"}, {"type": "text", "text": "beta second"}],
        [WRITE_TS],
    ])
    return history_outputs(load_session(str(session)))


def test_history_is_whole_outputs_tools_then_reply_then_reasoning(outputs):
    assert [(o.output.subject, o.entry) for o in outputs] == [
        ("reply", "a1"), ("reasoning", "a1"), ("`write` call on `src/a.ts`", "a2")]
    assert outputs[0].output.content == "first alpha\n\nbeta second"
    assert outputs[1].output.content == "think alpha\n\nbeta thought"
    assert outputs[2].output.content == "console.log(1)\n"  # the written source, not the JSON arguments


def test_a_narrow_rule_is_accepted_and_says_where_it_fires(outputs):
    rule = Rule("no-console", "r.md", "b", condition=[r"console\.log"], scope=["tool:write(*.ts)"])
    result = validate_rule(rule, outputs)
    assert result.matched and result.feedback is None
    assert [m.output.subject for m in result.matches] == ["`write` call on `src/a.ts`"]


def test_joined_reply_text_matches_across_blocks(outputs):
    rule = Rule("alpha-beta", "r.md", "b", condition=[r"alpha\s+beta"], scope=["text"])
    result = validate_rule(rule, outputs)
    assert result.matched and [m.output.subject for m in result.matches] == ["reply"]


@pytest.mark.parametrize(("scope", "problem"), [
    (["tool"], 'scope "tool" is broader than the matching file-specific tool call'),
    (None, "scope <default> is broader than the matching file-specific tool call"),
    (["text", "tool:write"], "scope includes `text`, but the offending content was confirmed in tool arguments"),
])
def test_a_scope_broader_than_the_matching_call_is_refused_with_the_agents_note(outputs, scope, problem):
    rule = Rule("no-console", "r.md", "b", condition=[r"console\.log"], scope=scope)
    result = validate_rule(rule, outputs)
    assert not result.matched and result.matches
    assert result.feedback is not None
    assert result.feedback.startswith(f"The trigger matched the `write` call on `src/a.ts`, but {problem}")
    assert 'Use a narrow scope such as "tool:write(*.ts)"' in result.feedback


def test_no_match_lists_the_checked_outputs(outputs):
    rule = Rule("no-eval", "r.md", "b", condition=["eval\\("], scope=["tool:write(*.ts)"])
    result = validate_rule(rule, outputs)
    assert not result.matched and result.matches == ()
    lines = (result.feedback or "").splitlines()
    assert lines[0] == 'No assistant output matched condition "eval\\\\(" within scope "tool:write(*.ts)".'
    assert lines[1] == "Checked outputs:" and lines[2] == '- reply: "first alpha beta second"'
    assert lines[-1] == "If the trigger looks right, fix the scope so it reaches the offending tool and file glob."


def test_a_rule_the_manager_rejects(outputs):
    result = validate_rule(Rule("doc", "r.md", "b", description="only prose"), outputs)
    assert not result.matched and (result.feedback or "").startswith("TTSR rejected the rule")


class CountingJudge:
    label = "counting"

    def __init__(self, yes_on: str | None) -> None:
        self.subjects: list[str] = []
        self.yes_on = yes_on

    def answer(self, request):
        self.subjects.append(request.subject)
        return [1.0 if request.subject == self.yes_on else 0.0]


def test_judged_rules_go_to_the_judge_on_the_last_8_in_scope_outputs(tmp_path):
    calls = [[{"type": "toolCall", "id": f"c{n}", "name": "write",
               "arguments": {"path": f"src/f{n}.ts", "content": f"x{n}"}}] for n in range(10)]
    session = write_session(tmp_path / "s.jsonl", tmp_path, calls)
    outputs = history_outputs(load_session(str(session)))
    rule = Rule("judged", "r.md", "b", question="Does it log?", scope=["tool:write(*.ts)"])
    judge = CountingJudge(yes_on="`write` call on `src/f3.ts`")
    result = validate_rule(rule, outputs, judge)
    assert judge.subjects == [f"`write` call on `src/f{n}.ts`" for n in range(2, 10)]
    assert result.matched and [m.output.subject for m in result.matches] == ["`write` call on `src/f3.ts`"]
    refused = validate_rule(rule, outputs, FixedJudge(False))
    assert not refused.matched and (refused.feedback or "").startswith(
        'The judge answered no to question "Does it log?" for every in-scope output checked (`write` call on `src/f2.ts`')


def test_judged_rule_without_a_judge_cannot_be_confirmed(outputs):
    rule = Rule("judged", "r.md", "b", question="Does it log?", scope=["tool:write(*.ts)"])
    result = validate_rule(rule, outputs, None)
    assert not result.matched and result.judge_unavailable
    assert result.feedback == "No judge model is available (see `ttsr.judge`), so the question could not be confirmed."
    assert [j.output.subject for j in result.judged] == ["`write` call on `src/a.ts`"]
