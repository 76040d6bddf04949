"""``--judge`` / ``--judge-model`` on ``replay`` and ``backtest``: judged rules end to end."""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer

import pytest

from tests.replay.judge.test_judges import FakeChat
from workbench.cli import main

JUDGED = """---
description: No unverified success
question: "  Does the reply claim the work is done without showing a check?  "
scope: text
---
Say how you checked before you say it works.
"""


@pytest.fixture
def project(tmp_path):
    rules = tmp_path / "proj" / ".omp" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-unverified-success.md").write_text(JUDGED)
    return tmp_path / "proj"


def stream_file(tmp_path, cwd, *replies):
    lines = [{"type": "stream", "version": 1, "cwd": str(cwd)}]
    for reply in replies:
        lines += [{"type": "turn_start"}, {"type": "message_start", "role": "assistant"},
                  {"type": "text_delta", "contentIndex": 0, "delta": reply},
                  {"type": "message_end", "stopReason": "stop"}, {"type": "turn_end"}]
    path = tmp_path / "run.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def replay(capsys, *argv):
    code = main(["replay", *map(str, argv), "--time-bound", "0"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_without_judge_the_output_says_judged_rules_are_not_delivered(tmp_path, project, capsys):
    path = stream_file(tmp_path, project, "All done, it works.")
    code, out, _ = replay(capsys, path, "--rules", project, "--home", tmp_path / "home")
    assert code == 0
    assert "judged rules: no-unverified-success; judge: none — judged rules are never delivered" in out
    assert "1 judge request(s) for 1 question(s), none sent" in out
    assert "injected: -" in out


def test_judge_yes_delivers_in_events_and_injected(tmp_path, project, capsys):
    path = stream_file(tmp_path, project, "All done, it works.")
    code, out, _ = replay(capsys, path, "--rules", project, "--home", tmp_path / "home", "--judge", "yes", "--json")
    assert code == 0
    data = json.loads(out)
    triggered = [e for e in data["events"] if e["type"] == "ttsr_triggered"]
    assert triggered == [{**triggered[0], "rules": ["no-unverified-success"], "judged": True, "interrupt": False}]
    assert "abort" not in [e["type"] for e in data["events"]]
    assert data["injected"] == ["no-unverified-success"]
    assert data["judged"]["judge"] == "fixed:yes" and data["judged"]["delivered"] == ["no-unverified-success"]
    question = data["judged"]["queue"][0]["items"][0]["request"]["questions"][0]["question"]
    assert question == "Does the reply claim the work is done without showing a check?"
    assert data["final"]["context"][-1]["customType"] == "ttsr-injection"


def test_judge_text_output_names_the_judge_and_marks_judged_events(tmp_path, project, capsys):
    path = stream_file(tmp_path, project, "Done.")
    _, out, _ = replay(capsys, path, "--rules", project, "--home", tmp_path / "home", "--judge", "no")
    assert "judge: fixed:no" in out and "delivered: -" in out
    _, out, _ = replay(capsys, path, "--rules", project, "--home", tmp_path / "home", "--judge", "yes")
    assert "ttsr_triggered rules=no-unverified-success source=text judged=true" in out


def test_judge_answer_file_by_turn(tmp_path, project, capsys):
    answers = tmp_path / "answers.yaml"
    answers.write_text("rules:\n  no-unverified-success:\n    1: yes\n", encoding="utf-8")
    path = stream_file(tmp_path, project, "Looking.", "Done, works.")
    _, out, _ = replay(capsys, path, "--rules", project, "--home", tmp_path / "home", "--judge", answers, "--json")
    data = json.loads(out)
    assert data["judged"]["judge"] == "script:answers.yaml"
    assert [e["step"] for e in data["events"] if e["type"] == "ttsr_triggered"] == [8]  # turn 1's message_end


def test_bad_judge_values_are_one_line_errors(tmp_path, project, capsys):
    path = stream_file(tmp_path, project, "x")
    code, _, err = replay(capsys, path, "--rules", project, "--judge", "perhaps")
    assert code == 2 and err.startswith("error: --judge perhaps: expected yes, no") and err.count("\n") == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  x: sometimes\n", encoding="utf-8")
    code, _, err = replay(capsys, path, "--rules", project, "--judge", bad)
    assert code == 2 and f"{bad}:2: field 'rules.x'" in err
    code, _, err = replay(capsys, path, "--rules", project, "--judge", "yes", "--judge-model", "m")
    assert code == 2 and "error: --judge-model applies to an http(s) judge only" in err


@pytest.fixture
def server():
    FakeChat.seen = []
    FakeChat.mode = "ok"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def test_http_judge_with_model_and_key_from_the_environment(tmp_path, project, capsys, server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_JUDGE_API_KEY", "k-123")
    (project / ".omp" / "rules" / "no-promise.md").write_text("---\nquestion: Does it promise anything?\n---\nNo.\n")
    path = stream_file(tmp_path, project, "I promise this works.")
    _, out, _ = replay(capsys, path, "--rules", project, "--home", tmp_path / "home", "--judge", server,
                       "--judge-model", "judge-small", "--json")
    data = json.loads(out)
    assert data["injected"] == ["no-promise"]
    (call,) = FakeChat.seen
    assert call["auth"] == "Bearer k-123" and call["body"]["model"] == "judge-small"


def test_backtest_reports_judge_calls_and_hits(tmp_path, project, capsys):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    stream = stream_file(tmp_path, project, "Done.", "Works now.", "Fixed.")
    (sessions / "a.jsonl").write_text(stream.read_text())
    base = ["backtest", "--rules", str(project), "--home", str(tmp_path / "home"), str(sessions),
            "--workers", "1", "--time-bound", "0", "--no-progress"]
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["judged"]
    rule = next(r for r in data["rules"] if r["rule"] == "no-unverified-success")
    assert data["judge"] is None and data["delivered"] is False
    assert (rule["calls"], rule["asked"], rule["yes"]) == (3, 0, 0)
    assert main([*base, "--judge", "yes"]) == 0
    out = capsys.readouterr().out
    assert "judged rules (judge: fixed:yes); 3 judge call(s), 3 answered" in out
    row = next(line for line in out.splitlines() if line.startswith("no-unverified-success"))
    assert row.split() == ["no-unverified-success", "1", "3", "3", "3", "3"]
    assert "never fired: " not in out or "no-unverified-success" not in out.split("never fired: ")[1]


def test_rules_list_marks_judged_rules(tmp_path, project, capsys):
    home = tmp_path / "home"
    home.mkdir()
    assert main(["rules", "list", "--cwd", str(project), "--home", str(home), "--json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["rules"] if r["name"] == "no-unverified-success")
    assert row["bucket"] == "ttsr" and row["judged"] is True
    assert row["question"] == "Does the reply claim the work is done without showing a check?"
    assert main(["rules", "list", "--cwd", str(project), "--home", str(home)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("no-unverified-success"))
    assert line.split()[1:3] == ["ttsr", "judged"]


def test_judge_setting_auto_off_and_an_explicit_judge_above_the_files(tmp_path, project, capsys):
    path = stream_file(tmp_path, project, "All done, it works.")
    base = (path, "--rules", project, "--home", tmp_path / "home", "--json")
    _code, out, _ = replay(capsys, *base)
    assert json.loads(out)["injected"] == []  # auto: no judge resolves without --judge
    (project / ".omp" / "config.yml").write_text("ttsr:\n  judge: 'off'\n")
    _code, out, _ = replay(capsys, *base)
    assert json.loads(out)["injected"] == []
    _code, out, _ = replay(capsys, *base, "--judge", "yes")
    assert json.loads(out)["injected"] == ["no-unverified-success"]  # the flag is above the file
