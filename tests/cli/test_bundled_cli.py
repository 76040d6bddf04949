"""The bundled rules on the command line: which files are in use, ``--omp-package``, ``--no-builtin``."""

from __future__ import annotations

import json

import pytest

from tests.rules.test_builtin import fake_package
from workbench.cli import main
from workbench.rules import OMP_PACKAGE_ENV


@pytest.fixture(autouse=True)
def _no_installation(monkeypatch):
    # Whatever is installed on this machine, these tests choose the source themselves.
    monkeypatch.setenv(OMP_PACKAGE_ENV, "none")


@pytest.fixture
def dirs(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    return home, project


def _run(capsys, *argv, code=0):
    got = main(list(argv))
    out = capsys.readouterr()
    assert got == code, out.err
    return out


def test_list_marks_the_bundled_rules_and_the_workbench_files_by_default(capsys, dirs):
    home, project = dirs
    data = json.loads(_run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home), "--json").out)
    builtin = [r for r in data["rules"] if r["provider"] == "builtin-defaults"]
    assert len(builtin) == 27 and {r["providerName"] for r in builtin} == {"Builtin Defaults"}
    source = data["builtinSource"]
    assert (source["kind"], source["foundBy"], source["count"], source["enabled"]) == ("workbench", "workbench", 27, True)
    assert all(r["bundledFile"] == f"{source['folder']}/{r['name']}.md" for r in builtin)
    assert all(r["bundledFile"] is None for r in data["rules"] if r["provider"] != "builtin-defaults")
    text = _run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home)).out
    assert "bundled rules (builtin-defaults): the workbench's own rewording" in text


def test_list_reads_an_installation_named_by_option_or_environment(capsys, dirs, tmp_path, monkeypatch):
    home, project = dirs
    package = fake_package(tmp_path / "omp", version="18.3.4")
    data = json.loads(_run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home),
                           "--omp-package", str(package), "--json").out)
    source = data["builtinSource"]
    assert (source["kind"], source["foundBy"], source["version"], source["package"]) == (
        "omp-package", "option", "18.3.4", str(package))
    ioutil = next(r for r in data["rules"] if r["name"] == "go-ioutil")
    assert ioutil["provider"] == "builtin-defaults" and ioutil["path"] == "builtin-defaults:go-ioutil.md"
    assert ioutil["bundledFile"].startswith(str(package))
    monkeypatch.setenv(OMP_PACKAGE_ENV, str(package))
    text = _run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home)).out
    assert f"oh-my-pi 18.3.4 files at {package}" in text and f"(from {OMP_PACKAGE_ENV})" in text
    shown = _run(capsys, "rules", "show", "go-ioutil", "--cwd", str(project), "--home", str(home)).out
    assert "Installed body of go-ioutil." in shown and "bundledFile: " + str(package) in shown


def test_a_bad_omp_package_is_a_one_line_error(capsys, dirs, tmp_path):
    home, project = dirs
    err = _run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home),
               "--omp-package", str(tmp_path / "nope"), code=2).err
    assert err.startswith(f"error: --omp-package {tmp_path / 'nope'}: not an oh-my-pi agent package")
    assert err.count("\n") == 1


def test_list_no_builtin_says_the_bundled_rules_are_off(capsys, dirs):
    home, project = dirs
    data = json.loads(_run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home), "--no-builtin",
                           "--json").out)
    assert data["builtinSource"]["enabled"] is False
    assert {r["bucket"] for r in data["rules"] if r["provider"] == "builtin-defaults"} == {"dropped"}
    text = _run(capsys, "rules", "list", "--cwd", str(project), "--home", str(home), "--no-builtin").out
    assert "bundled rules (builtin-defaults): switched off (--no-builtin)" in text


def _go_edit_stream(tmp_path, cwd):
    args = json.dumps({"path": "main.go", "old_string": 'import "os"', "new_string": 'import "io/ioutil"'})
    lines = [
        {"type": "stream", "version": 1, "cwd": str(cwd)},
        {"type": "turn_start"},
        {"type": "message_start", "role": "assistant"},
        {"type": "toolcall_start", "contentIndex": 0, "id": "call_1", "name": "edit"},
        *({"type": "toolcall_delta", "contentIndex": 0, "delta": args[i:i + 15]} for i in range(0, len(args), 15)),
        {"type": "toolcall_end", "contentIndex": 0, "toolCall": {"type": "toolCall", "id": "call_1", "name": "edit",
                                                                  "arguments": json.loads(args)}},
        {"type": "message_end", "stopReason": "toolUse"},
        {"type": "tool_result", "toolCallId": "call_1", "toolName": "edit", "content": [{"type": "text", "text": "ok"}]},
        {"type": "turn_end"},
    ]
    path = tmp_path / "go.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_replay_fires_a_bundled_rule_says_which_files_and_no_builtin_turns_them_off(capsys, dirs, tmp_path):
    home, project = dirs
    stream = _go_edit_stream(tmp_path, project)
    base = ["replay", str(stream), "--rules", str(project), "--home", str(home)]
    out = json.loads(_run(capsys, *base, "--json").out)
    assert out["injected"] == ["go-ioutil"]  # interruptMode never: a reminder, no abort
    assert "abort" not in [e["type"] for e in out["events"]]
    assert out["builtinSource"]["kind"] == "workbench"
    text = _run(capsys, *base).out.splitlines()
    assert text[-1].startswith("status: completed; injected: go-ioutil")
    assert text[-1].endswith("bundled rules: the workbench's own")

    off = json.loads(_run(capsys, *base, "--no-builtin", "--json").out)
    assert off["injected"] == [] and off["events"] == [] and off["builtinSource"]["enabled"] is False
    assert _run(capsys, *base, "--no-builtin").out.splitlines()[-1].endswith("bundled rules: off")

    package = fake_package(tmp_path / "omp", version="18.3.4")
    line = _run(capsys, *base, "--omp-package", str(package)).out.splitlines()[-1]
    assert line.endswith(f"bundled rules: oh-my-pi 18.3.4 ({package})")


def _go_session(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    entries = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "read the file"}]}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "assistant", "stopReason": "toolUse", "content": [
             {"type": "toolCall", "id": "c1", "name": "write",
              "arguments": {"path": "main.go", "content": 'package main\n\nimport "io/ioutil"\n'}}]}},
    ]
    (folder / "go.jsonl").write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return folder


def test_backtest_counts_a_bundled_rule_unless_no_builtin(capsys, dirs, tmp_path):
    home, project = dirs
    sessions = _go_session(tmp_path)
    base = ["backtest", "--rules", str(project), "--home", str(home), str(sessions), "--workers", "1", "--json"]
    fired = {r["rule"]: r for r in json.loads(_run(capsys, *base).out)["rules"]}
    assert fired["go-ioutil"]["turns"] == 1
    off = json.loads(_run(capsys, *base, "--no-builtin").out)
    assert "go-ioutil" not in {r["rule"] for r in off["rules"]}
    package = fake_package(tmp_path / "omp")
    via = {r["rule"]: r for r in json.loads(_run(capsys, *base, "--omp-package", str(package)).out)["rules"]}
    assert via["go-ioutil"]["turns"] == 1


def test_rules_test_runs_the_bundled_examples_and_scan_finds_a_bundled_hit(capsys, dirs):
    home, project = dirs
    out = _run(capsys, "rules", "test", "--cwd", str(project), "--home", str(home)).out
    assert "54 examples in 27 rule(s): 54 passed, 0 failed" in out
    (project / "main.go").write_text('package main\n\nimport "io/ioutil"\n')
    hits = _run(capsys, "rules", "scan", str(project), "--cwd", str(project), "--home", str(home), code=1).out
    assert "go-ioutil" in hits
    clean = _run(capsys, "rules", "scan", str(project), "--cwd", str(project), "--home", str(home), "--no-builtin").out
    assert "0 hits" in clean
