"""``workbench rules validate RULE_FILE --on SESSION ...``: what ``/omfg`` would say of a rule."""

from __future__ import annotations

import json

from tests.rulecheck.test_validate import WRITE_TS, write_session
from workbench.cli import main

NARROW = """---
condition: 'console\\.log'
scope: tool:write(*.ts)
---
Use the logger.
"""
BROAD = NARROW.replace("tool:write(*.ts)", "tool")
JUDGED = """---
question: Does this write log to the console?
scope: tool:write(*.ts)
---
Use the logger.
"""


def _files(tmp_path, rule_text):
    rule = tmp_path / "no-console.md"
    rule.write_text(rule_text)
    session = write_session(tmp_path / "s.jsonl", tmp_path, [[WRITE_TS]])
    return rule, session


def test_validate_accepts_a_narrow_rule_and_lists_where_it_fires(tmp_path, capsys):
    rule, session = _files(tmp_path, NARROW)
    before = session.read_text()
    assert main(["rules", "validate", str(rule), "--on", str(session)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "no-console: accepted by /omfg's check (1 output(s) in 1 session(s))"
    assert f"fires on the `write` call on `src/a.ts` ({session} entry a1)" in out
    assert session.read_text() == before


def test_validate_json_gives_the_scope_note(tmp_path, capsys):
    rule, session = _files(tmp_path, BROAD)
    assert main(["rules", "validate", str(rule), "--on", str(session), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["matched"] is False and data["matches"][0]["entry"] == "a1"
    assert 'Use a narrow scope such as "tool:write(*.ts)"' in data["feedback"]


def test_validate_judged_rule_needs_a_judge(tmp_path, capsys):
    rule, session = _files(tmp_path, JUDGED)
    assert main(["rules", "validate", str(rule), "--on", str(session)]) == 1
    assert "note: No judge model is available" in capsys.readouterr().out
    assert main(["rules", "validate", str(rule), "--on", str(session), "--judge", "yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["judge"] == "fixed:yes" and [j["subject"] for j in data["judged"]] == ["`write` call on `src/a.ts`"]


def test_validate_bad_input_is_one_error_line(tmp_path, capsys):
    rule, session = _files(tmp_path, NARROW)
    assert main(["rules", "validate", str(rule), "--on", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'missing.jsonl'}: no such session file (--on)"
    assert main(["rules", "validate", str(tmp_path / "nope.md"), "--on", str(session)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert main(["rules", "validate", str(tmp_path), "--on", str(session)]) == 2
    assert "give one rule file" in capsys.readouterr().err


EDIT_TS = {"type": "toolCall", "id": "c1", "name": "edit",
           "arguments": {"input": "*** Begin Patch\n[src/a.ts#1A2B]\nPUT >$:\n+console.log(1)\n*** End Patch\n"}}
EDIT_RULE = NARROW.replace("tool:write(*.ts)", "tool:edit(*.ts)")


def test_validate_checks_only_sessions_of_the_rules_agents(tmp_path, capsys):
    rule, session = _files(tmp_path, NARROW.replace("---\n", "---\nagents: [scout]\n", 1))
    assert main(["rules", "validate", str(rule), "--on", str(session)]) == 1  # a main session: never loaded
    assert f"not checked on {session}: agents: does not include main" in capsys.readouterr().out
    assert main(["rules", "validate", str(rule), "--on", str(session), "--agent", "scout", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["skippedSessions"] == [] and data["matches"]


def test_validate_reads_edit_calls_in_the_given_edit_mode(tmp_path, capsys):
    rule = tmp_path / "no-console.md"
    rule.write_text(EDIT_RULE)
    session = write_session(tmp_path / "s.jsonl", tmp_path, [[EDIT_TS]])
    for mode, accepted in (("auto", True), ("hashline", True), ("replace", False)):
        code = main(["rules", "validate", str(rule), "--on", str(session), "--edit-mode", mode, "--json"])
        data = json.loads(capsys.readouterr().out)
        assert (code == 0, data["editMode"]) == (accepted, mode)
