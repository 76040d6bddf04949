"""``workbench backtest`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.backtest.test_run import edit, text, write_session
from workbench.cli import main


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path]:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "no-unwrap.md").write_text("---\ncondition: '\\.unwrap\\(\\)'\n---\nUse ?.\n")
    (rules / "quiet.md").write_text("---\ncondition: 'NEVER_SEEN'\n---\nq\n")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    write_session(sessions / "one.jsonl", [[text("call x.unwrap() now")], [edit("t1", "a.rs", "y.unwrap()")]])
    write_session(sessions / "two.jsonl", [[text("all good")]])
    return rules, sessions


def test_text_report(setup, capsys):
    rules, sessions = setup
    assert main(["backtest", "--rules", str(rules), str(sessions), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 sessions, 3 turns in ")
    row = next(line for line in out.splitlines() if line.startswith("no-unwrap"))
    assert row.split()[1:4] == ["1", "2", "2"]
    assert f"{sessions / 'one.jsonl'} turn 0 offset 6" in row
    assert "» call x.unwrap() now" in out
    assert "never fired: quiet" in out


def test_json_and_out_dir(setup, tmp_path, capsys):
    rules, sessions = setup
    out_dir = tmp_path / "out"
    assert main(["backtest", "--rules", str(rules), str(sessions / "one.jsonl"), "--workers", "1",
                 "--out", str(out_dir), "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["sessions"], data["turns"], data["hits"]) == (1, 2, 2)
    unwrap = next(r for r in data["rules"] if r["rule"] == "no-unwrap")
    assert unwrap["first"]["source"] == "text" and unwrap["first"]["offset"] == 6
    assert data["neverFired"] == ["quiet"]
    assert Path(data["written"]["duckdb"]).is_file()


def test_progress_bar_goes_to_stderr(setup, capsys):
    rules, sessions = setup
    assert main(["backtest", "--rules", str(rules), str(sessions), "--workers", "1", "--progress", "--json"]) == 0
    captured = capsys.readouterr()
    assert "2/2 sessions" in captured.err
    json.loads(captured.out)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--workers", "0"], "--workers must be at least 1"),
        (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
        (["--chunk-size", "0"], "chunk size must be a positive integer"),
        (["--time-bound", "-1"], "--time-bound must be >= 0"),
    ],
)
def test_bad_flags_are_one_line_errors(setup, capsys, extra, message):
    rules, sessions = setup
    assert main(["backtest", "--rules", str(rules), str(sessions), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and message in err[-1]


def test_missing_session_folder(setup, tmp_path, capsys):
    rules, _ = setup
    assert main(["backtest", "--rules", str(rules), str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_unreachable_scheduler_is_a_usage_error(setup, capsys):
    rules, sessions = setup
    assert main(["backtest", "--rules", str(rules), str(sessions), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "cannot connect" in capsys.readouterr().err


def test_agent_mode_flags(setup, capsys):
    rules, sessions = setup
    assert main(["backtest", "--rules", str(rules), str(sessions), "--workers", "1", "--mode", "agent",
                 "--repeat-mode", "after-gap", "--repeat-gap", "0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert next(r for r in data["rules"] if r["rule"] == "no-unwrap")["turns"] == 2
    assert main(["backtest", "--rules", str(rules), str(sessions), "--repeat-gap", "3"]) == 2
    assert "--mode agent only" in capsys.readouterr().err


def test_a_rule_past_the_time_bound_is_reported_and_disabled(setup, capsys):
    rules, sessions = setup
    (rules / "slow.md").write_text("---\ncondition: '(a+)+$'\nscope: text\n---\nslow\n")
    write_session(sessions / "three.jsonl", [[text("a" * 40 + "! and z.unwrap()")]])
    assert main(["backtest", "--rules", str(rules), str(sessions), "--workers", "1", "--time-bound", "1"]) == 0
    out = capsys.readouterr().out
    assert f"rule slow disabled: exceeded the 1s time bound (catastrophic backtracking?) at session {sessions / 'three.jsonl'}" in out
    assert "never fired: quiet\n" in out  # the disabled rule is not reported as never firing
    assert main(["backtest", "--rules", str(rules), str(sessions), "--workers", "1", "--time-bound", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["rule"], Path(d["session"]).name) for d in data["disabled"]] == [("slow", "three.jsonl")]
    assert next(r for r in data["rules"] if r["rule"] == "no-unwrap")["sessions"] == 2


def test_compare_two_rule_sets(setup, tmp_path, capsys):
    rules, sessions = setup
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "no-unwrap.md").write_text("---\ncondition: '\\.unwrap\\(\\)'\nscope: text\n---\nUse ?.\n")
    assert main(["backtest", "--rules", str(rules), "--compare", str(draft), str(sessions), "--workers", "1",
                 "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    cmp = data["compare"]
    assert cmp["counts"] == {"newly_fires": 0, "stops_firing": 1, "interrupt_changed": 0}
    assert cmp["stops_firing"][0]["turn"] == 1 and cmp["stops_firing"][0]["source"] == "tool"
    assert data["draft"]["rulesFrom"] == str(draft) and data["base"]["hits"] == 2
    assert main(["backtest", "--rules", str(rules), "--compare", str(draft), str(sessions), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "0 turn(s) newly fire, 1 stop firing" in out
    assert "no-unwrap" in out and f"{sessions / 'one.jsonl'} turn 1" in out


def test_compare_and_out_exclude_each_other(setup, tmp_path, capsys):
    rules, sessions = setup
    assert main(["backtest", "--rules", str(rules), "--compare", str(rules), str(sessions),
                 "--out", str(tmp_path / "o")]) == 2
    assert "--out and --compare" in capsys.readouterr().err
