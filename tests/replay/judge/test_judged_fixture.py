"""The judged-rule fixture project (tests/fixtures/judged): listed, replayed with every judge kind,
stepped with ``ask`` and backtested with its judge-call count."""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.replay.judge.test_judges import FakeChat
from workbench.cli import main
from workbench.errors import JudgePending
from workbench.replay import ReplayConfig, Stepper, read_stream
from workbench.replay.judge.judges import AskJudge
from workbench.rules import load_rules

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "judged"
STREAM = FIXTURE / "session.stream.jsonl"
JUDGED = ["careful-python-edits", "no-unverified-success"]


@pytest.fixture
def home(tmp_path):
    (tmp_path / "home").mkdir()
    return str(tmp_path / "home")


def replay_json(capsys, home, *extra):
    assert main(["replay", str(STREAM), "--rules", str(FIXTURE), "--home", home, "--time-bound", "0",
                 "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_rules_are_listed_as_judged(capsys, home):
    assert main(["rules", "list", "--cwd", str(FIXTURE), "--home", home, "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["rules"]}
    assert all(rows[n]["judged"] and rows[n]["bucket"] == "ttsr" for n in JUDGED)


@pytest.mark.parametrize("judge, delivered", [
    (None, []),
    ("no", []),
    ("yes", JUDGED),
    (str(FIXTURE / "answers.yaml"), JUDGED),
])
def test_replay_with_each_fixed_and_scripted_judge(capsys, home, judge, delivered):
    data = replay_json(capsys, home, *(["--judge", judge] if judge else []))
    assert sorted(data["judged"]["delivered"]) == delivered
    assert sorted(data["injected"]) == delivered
    assert "abort" not in [e["type"] for e in data["events"]]
    assert data["judged"]["requests"] == 2


def test_replay_with_the_http_judge(capsys, home):
    FakeChat.seen, FakeChat.mode = [], "ok"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        data = replay_json(capsys, home, "--judge", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
    assert len(FakeChat.seen) == 2  # one request per output with candidates
    assert data["judged"]["asked"] == 2 and data["judged"]["delivered"] == []  # no question says "promise"


def test_stepping_with_ask_pauses_at_each_request(home):
    stream = read_stream(STREAM)
    rules = load_rules(cwd=str(FIXTURE), home=home).rules
    stepper = Stepper(stream, rules, ReplayConfig(cwd=stream.cwd, judge=AskJudge(), time_bound=None))
    answered = []
    for _ in range(5):  # bounded: two requests are expected
        try:
            stepper.snapshots()
            break
        except JudgePending as exc:  # answer it and go on
            request = exc.request
            answered.append((request.subject, [q.rule for q in request.questions]))
            stepper.answer(["yes"] * len(request.questions))
    assert answered == [("`edit` call on `src/auth/login.py`", ["careful-python-edits"]),
                        ("reply", ["no-unverified-success"])]
    assert sorted(stepper.result().injected) == JUDGED


def test_backtest_counts_judge_calls(tmp_path, capsys, home):
    sessions = tmp_path / "s"
    sessions.mkdir()
    (sessions / "one.jsonl").write_text(STREAM.read_text())
    assert main(["backtest", "--rules", str(FIXTURE), "--home", home, str(sessions), "--workers", "1",
                 "--time-bound", "0", "--no-progress", "--judge", str(FIXTURE / "answers.yaml"), "--json"]) == 0
    judged = json.loads(capsys.readouterr().out)["judged"]
    assert judged["judge"] == "script:answers.yaml" and judged["requests"] == 2
    assert {r["rule"]: (r["calls"], r["yes"]) for r in judged["rules"]} == {
        "careful-python-edits": (1, 1), "no-unverified-success": (1, 1)}
