"""``workbench rules test`` and ``workbench rules scan`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main

GOOD = """---
condition: '\\.unwrap\\(\\)'
scope: text, tool:edit(*.rs)
examples:
  - text: 'a.unwrap()'
    triggers: true
  - text: 'a?'
    triggers: false
---
Use ?.
"""
FAILING = """---
condition: 'console\\.log'
examples:
  - text: 'console.debug(1)'
    triggers: true
---
Use the logger.
"""
BAD = """---
condition: x
examples:
  - text: x
    triggers: yes
---
b
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    rules = tmp_path / ".omp/rules"
    rules.mkdir(parents=True)
    (rules / "no-unwrap.md").write_text(GOOD)
    (rules / "plain.md").write_text("---\ndescription: no examples\n---\nb")
    (tmp_path / "src").mkdir()
    (tmp_path / "src/lib.rs").write_text("fn f() {\n  g().unwrap();\n}\n")
    return tmp_path


def test_rules_test_passes_on_good_examples(project, capsys):
    assert main(["rules", "test", str(project / ".omp/rules/no-unwrap.md")]) == 0
    out = capsys.readouterr().out
    assert "ok   no-unwrap (2 examples)" in out
    assert "2 examples in 1 rule(s): 2 passed, 0 failed" in out


def test_rules_test_discovers_rules_without_files(project, capsys):
    assert main(["rules", "test", "--cwd", str(project), "--no-builtin"]) == 0
    out = capsys.readouterr().out
    assert "ok   no-unwrap" in out and "1 rule(s) without examples" in out


def test_rules_test_failure_exits_1_with_reason_and_location(tmp_path, capsys):
    path = tmp_path / "console.md"
    path.write_text(FAILING)
    assert main(["rules", "test", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL console examples[0]: text: 'console.debug(1)'" in out
    assert "expected to fire but did not: as prose: no condition matched" in out
    assert f"at {path}:4" in out


def test_rules_test_json(tmp_path, capsys):
    path = tmp_path / "console.md"
    path.write_text(FAILING)
    assert main(["rules", "test", "--json", str(path)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["passed"], data["failed"]) == (0, 1)
    result = data["rules"][0]["results"][0]
    assert result["example"] == {"index": 0, "kind": "text", "triggers": True, "text": "console.debug(1)"}
    assert result["passed"] is False and result["fired"] == []


def test_rules_test_bad_example_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "bad.md"
    path.write_text(BAD)
    assert main(["rules", "test", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"error: {path}:4: field 'examples[0].triggers': must be true or false, got a string 'yes'")


def test_rules_test_missing_file(tmp_path, capsys):
    assert main(["rules", "test", str(tmp_path / "nope.md")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_rules_scan_lists_hits_like_a_linter(project, capsys):
    code = main(["rules", "scan", str(project / "src"), "--cwd", str(project), "--no-builtin"])
    out = capsys.readouterr().out
    assert code == 1
    assert "src/lib.rs:2:6: no-unwrap (regex, as edit): g().unwrap();" in out
    assert "1 hit in 1 file(s)" in out


def test_rules_scan_json_and_clean_exit(project, capsys):
    (project / "src/lib.rs").write_text("fn f() {}\n")
    assert main(["rules", "scan", str(project / "src"), "--rules", str(project / ".omp/rules"),
                 "--cwd", str(project), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hits"] == [] and data["files"] == 1 and data["rules"] == ["no-unwrap"]


def test_rules_scan_unknown_rule_name(project, capsys):
    assert main(["rules", "scan", str(project), "--cwd", str(project), "--rule", "nope"]) == 2
    assert "Unknown rule: nope" in capsys.readouterr().err


def test_rules_scan_of_a_project_uses_its_rules_and_paths(project, capsys, monkeypatch, tmp_path):
    (project / ".git").mkdir()
    monkeypatch.chdir(tmp_path.parent)
    assert main(["rules", "scan", str(project / "src"), "--no-builtin"]) == 1
    assert "src/lib.rs:2:6: no-unwrap" in capsys.readouterr().out


def _scan_tree(project: Path) -> None:
    (project / ".gitignore").write_text("target/\n*.gen.rs\n")
    (project / "target").mkdir()
    (project / "target/out.rs").write_text("fn f() { x.unwrap(); }\n")
    (project / "src/api.gen.rs").write_text("fn f() { x.unwrap(); }\n")
    (project / ".cargo").mkdir()
    (project / ".cargo/hidden.rs").write_text("fn f() { x.unwrap(); }\n")


def test_rules_scan_respects_gitignore_and_includes_hidden_files(project, capsys):
    _scan_tree(project)
    assert main(["rules", "scan", str(project), "--cwd", str(project), "--no-builtin", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    hit_paths = sorted({h["path"] for h in data["hits"]})
    assert hit_paths == [".cargo/hidden.rs", "src/lib.rs"]
    assert data["gitignore"] is True and data["maxBytes"] == 5 * 1024 * 1024


def test_rules_scan_no_gitignore_scans_the_ignored_files(project, capsys):
    _scan_tree(project)
    assert main(["rules", "scan", str(project), "--cwd", str(project), "--no-builtin", "--json",
                 "--no-gitignore"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {"target/out.rs", "src/api.gen.rs"} <= {h["path"] for h in data["hits"]}
    assert data["gitignore"] is False


def test_rules_scan_max_bytes_says_what_was_skipped_and_why(project, capsys):
    big = project / "src/big.rs"
    big.write_text("fn f() { x.unwrap(); }\n" * 10)
    assert main(["rules", "scan", str(project / "src"), "--cwd", str(project), "--no-builtin",
                 "--max-bytes", "100"]) == 1
    captured = capsys.readouterr()
    assert "1 skipped (large 1)" in captured.out and "max-bytes 100" in captured.out
    assert f"note: skipped src/big.rs: large: {big.stat().st_size} bytes, over the 100-byte limit" in captured.err
    assert main(["rules", "scan", str(project / "src"), "--cwd", str(project), "--no-builtin",
                 "--max-bytes", "0", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert "src/big.rs" in {h["path"] for h in data["hits"]} and data["skipped"] == []


def test_rules_scan_negative_max_bytes_is_an_error(project, capsys):
    assert main(["rules", "scan", str(project), "--max-bytes", "-1"]) == 2
    assert capsys.readouterr().err.startswith("error: --max-bytes -1")


TS_RULE = """---
condition: ':\\s*any\\b'
scope: tool:edit(*.ts)
---
No any.
"""
SCOUT_RULE = """---
condition: 'TODO'
agents: [scout]
---
No TODO.
"""


def test_rules_test_snippet_with_a_rule_file_in_isolation(tmp_path, capsys):
    rule = tmp_path / "no-any.md"
    rule.write_text(TS_RULE)
    assert main(["rules", "test", str(rule), "--snippet", "const x: any = 1", "--path", "src/a.ts"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TTSR test — source=tool:edit path=src/a.ts agent=main snippet=16b")
    assert "Triggered (1)" in out and "✓ no-any" in out
    # As prose the tool-scoped rule cannot fire: an isolated rule that triggers nothing exits 1.
    assert main(["rules", "test", str(rule), "--snippet", "const x: any = 1", "--source", "text"]) == 1
    assert "No rules triggered. (evaluated 1)" in capsys.readouterr().out


def test_rules_test_file_snippet_json_and_inference_note(tmp_path, capsys):
    rule = tmp_path / "no-any.md"
    rule.write_text(TS_RULE)
    snippet = tmp_path / "a.ts"
    snippet.write_text("let y: any;\n")
    assert main(["rules", "test", str(rule), "--file", str(snippet), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["source"], data["tool"], data["filePath"]) == ("tool", "edit", str(snippet))
    assert [t["name"] for t in data["triggered"]] == ["no-any"]
    notes = tmp_path / "a.txt"
    notes.write_text("let y: any;\n")
    assert main(["rules", "test", str(rule), "--file", str(notes), "--json"]) == 1
    assert "inferred --source text from '.txt'" in json.loads(capsys.readouterr().out)["inferenceNote"]


def test_rules_test_agent_scoping(tmp_path, capsys):
    rule = tmp_path / "scout.md"
    rule.write_text(SCOUT_RULE)
    assert main(["rules", "test", str(rule), "--snippet", "TODO later"]) == 2
    assert 'does not apply to agent "main"' in capsys.readouterr().err
    assert main(["rules", "test", str(rule), "--snippet", "TODO later", "--agent", "Scout"]) == 0
    assert "agent=scout" in capsys.readouterr().out


def test_rules_test_snippet_against_the_project_rules(project, capsys):
    assert main(["rules", "test", "--cwd", str(project), "--no-builtin", "--snippet", "a.unwrap()",
                 "--source", "text", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["name"] for t in data["triggered"]] == ["no-unwrap"] and data["agent"] == "main"


def test_rules_test_needs_a_snippet_with_context_flags(tmp_path, capsys):
    rule = tmp_path / "no-any.md"
    rule.write_text(TS_RULE)
    assert main(["rules", "test", str(rule), "--path", "a.ts"]) == 2
    assert "No snippet provided" in capsys.readouterr().err
    assert main(["rules", "test", str(rule), "--file", str(tmp_path / "nope.ts")]) == 2
    assert "Snippet file not found" in capsys.readouterr().err
