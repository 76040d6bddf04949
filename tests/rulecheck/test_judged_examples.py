"""``rules test`` examples of judged rules: a scripted answer per example (``judge:``)."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.rulecheck import check_rule_text

JUDGED = """---
question: Does the reply say the work is finished without naming a check?
condition: '(?i)done|works'
scope: text, tool:write(*.py)
examples:
  - text: "All done."
    triggers: true
    note: asked, and the scripted judge says yes
  - text: "All done."
    judge: no
    triggers: false
  - text: "All done."
    judge: 0.6
    triggers: false
  - text: "Still looking."
    triggers: false
    note: the condition pre-filter keeps the question from being asked
  - tool: write
    path: src/a.py
    content: "# works"
    judge: 0.9
    triggers: true
  - tool: write
    path: src/a.ts
    content: "// works"
    triggers: false
---
Say how you checked.
"""


def test_judged_examples_pass_with_scripted_answers():
    report = check_rule_text(JUDGED, path="/p/.omp/rules/finished.md")
    assert report.error is None
    assert [r.passed for r in report.results] == [True] * 6, [r.reason for r in report.results]
    first = report.results[0]
    assert first.fired[0][1].via == "judge" and "delivered as prose" in first.reason
    assert report.results[1].reason == "did not fire, as expected"
    assert not report.results[1].fired and not report.results[3].fired


def test_judged_failure_reasons_name_the_gate_or_the_answer():
    text = JUDGED.replace("- text: \"Still looking.\"\n    triggers: false", "- text: \"Still looking.\"\n    triggers: true")
    text = text.replace("    judge: no\n    triggers: false", "    judge: no\n    triggers: true")
    report = check_rule_text(text, path="/p/.omp/rules/finished.md")
    failed = {r.example.index: r.reason for r in report.failures}
    assert set(failed) == {1, 3}
    assert "the judge answered 0 (below 0.7)" in failed[1]
    assert "not asked (reply: pre-filter: no condition or astCondition matched the output)" in failed[3]


def test_judge_key_only_on_judged_rules():
    report = check_rule_text("---\ncondition: x\nexamples:\n  - text: x\n    judge: yes\n    triggers: true\n---\nb\n",
                             path="/p/r.md")
    assert report.error is not None and "examples[0].judge" in report.error and "judged rules" in report.error
    bad = check_rule_text("---\nquestion: Q?\nexamples:\n  - text: x\n    judge: maybe\n    triggers: true\n---\nb\n",
                          path="/p/r.md")
    assert bad.error is not None and "yes, no or a probability" in bad.error


def test_rules_test_cli_runs_judged_examples(tmp_path, capsys):
    path = tmp_path / "finished.md"
    path.write_text(JUDGED, encoding="utf-8")
    assert main(["rules", "test", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    results = data["rules"][0]["results"]
    assert [r["passed"] for r in results] == [True] * 6
    assert results[1]["example"]["judge"] == 0.0
