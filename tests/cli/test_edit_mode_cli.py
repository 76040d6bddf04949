"""``--edit-mode`` of ``workbench replay`` and ``workbench backtest``: the agent's default mode
(hashline) is read from the call, and the output says which mode read each call and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.backtest.test_run import write_session
from workbench.cli import main

RULE = "---\ncondition: 'console\\.log\\('\nscope: 'tool:edit(*.ts)'\n---\nUse the logger.\n"
HASHLINE = "*** Begin Patch\n[src/a.ts#1A2B]\nPUT >3:\n+console.log(value);\n*** End Patch\n"


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path]:
    rules = tmp_path / "proj" / ".omp" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-console.md").write_text(RULE)
    call = {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {"input": HASHLINE}}
    session = write_session(tmp_path / "one.jsonl", [[call]], cwd=str(tmp_path / "proj"))
    return tmp_path / "proj", session


def _replay(setup, tmp_path, capsys, *extra):
    project, session = setup
    code = main(["replay", str(session), "--rules", str(project), "--home", str(tmp_path / "home"),
                 "--no-builtin", "--json", *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_replay_reads_a_hashline_edit_and_says_why(setup, tmp_path, capsys):
    data = _replay(setup, tmp_path, capsys)
    assert [e["rules"] for e in data["events"] if e["type"] == "ttsr_triggered"] == [["no-console"]]
    assert [(m["mode"], m["reason"].split(" (")[0]) for m in data["edit_modes"]] == [
        ("hashline", "auto: hashline markers")]


def test_replay_edit_mode_set_on_the_command_line(setup, tmp_path, capsys):
    data = _replay(setup, tmp_path, capsys, "--edit-mode", "replace")
    assert [e for e in data["events"] if e["type"] == "ttsr_triggered"] == []
    assert data["edit_modes"][0] == {"stream_key": "toolcall:t1", "tool": "edit", "mode": "replace",
                                     "reason": "set by --edit-mode"}


def test_replay_text_output_names_the_mode(setup, tmp_path, capsys):
    project, session = setup
    assert main(["replay", str(session), "--rules", str(project), "--home", str(tmp_path / "home"), "--no-builtin"]) == 0
    assert "edit mode of toolcall:t1: hashline (auto: hashline markers" in capsys.readouterr().out


def test_a_bad_edit_mode_is_a_one_line_error(setup, capsys):
    project, session = setup
    with pytest.raises(SystemExit):
        main(["replay", str(session), "--rules", str(project), "--edit-mode", "diff"])
    assert "invalid choice: 'diff'" in capsys.readouterr().err


@pytest.mark.parametrize(("mode", "fired"), [("auto", 1), ("hashline", 1), ("sloppy", 0)])
def test_backtest_edit_mode(setup, tmp_path, capsys, mode, fired):
    project, session = setup
    assert main(["backtest", "--rules", str(project), str(session), "--home", str(tmp_path / "home"), "--no-builtin",
                 "--workers", "1", "--json", "--no-progress", "--edit-mode", mode]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum(r["sessions"] for r in data["rules"] if r["rule"] == "no-console") == fired
