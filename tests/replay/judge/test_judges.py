"""The pluggable judges: fixed, script (YAML/JSON answer files), ask, and an OpenAI-compatible HTTP
endpoint, tested against a fake server on 127.0.0.1 (never a real one)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from tests.replay.conftest import prose_turn, stream_of
from workbench.errors import JudgeError, JudgeFileError, UsageError
from workbench.replay import ReplayConfig, run_session
from workbench.replay.judge.judges import (
    API_KEY_ENV,
    AskJudge,
    FixedJudge,
    HttpJudge,
    JudgeQuestion,
    JudgeRequest,
    ScriptJudge,
    judge_from_option,
    parse_answer,
)
from workbench.rules import Rule


def request(*rules: str, turn: int = 0) -> JudgeRequest:
    return JudgeRequest(id="7:0", step=7, turn=turn, subject="reply", content="I did it.", length=9, tokens=4,
                        truncated=False, source="text",
                        questions=tuple(JudgeQuestion(f"q{i}", r, f"Is {r} broken?") for i, r in enumerate(rules)))


def test_parse_answer():
    assert [parse_answer(v) for v in ("yes", "No", True, False, 0.25, "0.8", 1)] == [1.0, 0.0, 1.0, 0.0, 0.25, 0.8, 1.0]
    for bad in ("maybe", 1.5, -0.1, None, float("nan")):
        with pytest.raises(ValueError):
            parse_answer(bad)


def test_fixed_judge_answers_every_question_alike():
    assert FixedJudge(True).answer(request("a", "b")) == [1.0, 1.0]
    assert FixedJudge(False).label == "fixed:no"


def test_script_judge_by_rule_turn_and_default(tmp_path):
    path = tmp_path / "answers.yaml"
    path.write_text("default: 0.1\nrules:\n  a: yes\n  b:\n    2: 0.9\n    default: no\n", encoding="utf-8")
    judge = ScriptJudge.load(path)
    assert judge.label == "script:answers.yaml"
    assert judge.answer(request("a", "b", "c", turn=2)) == [1.0, 0.9, 0.1]
    assert judge.answer(request("a", "b", "c", turn=0)) == [1.0, 0.0, 0.1]


def test_script_judge_reads_json(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"rules": {"a": {"0": "yes"}}}), encoding="utf-8")
    assert ScriptJudge.load(path).answer(request("a")) == [1.0]


@pytest.mark.parametrize("text, line, fld", [
    ("rules:\n  a: perhaps\n", 2, "rules.a"),
    ("rules:\n  a:\n    first: yes\n", 2, "rules.a.first"),
    ("default: yes\nanswers: {}\n", 2, "answers"),
    ("rules: [a, b]\n", 1, "rules"),
])
def test_script_errors_name_file_line_and_field(tmp_path, text, line, fld):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JudgeFileError) as info:
        ScriptJudge.load(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), line, fld)
    assert str(path) in str(info.value)


def test_script_syntax_errors_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  nope", encoding="utf-8")
    with pytest.raises(JudgeFileError, match="not valid JSON"):
        ScriptJudge.load(bad)
    with pytest.raises(JudgeFileError, match="does not exist"):
        ScriptJudge.load(tmp_path / "missing.yaml")


def test_ask_judge_waits_then_answers():
    judge = AskJudge()
    req = request("a", "b")
    assert judge.answer(req) is None and judge.waiting is req
    assert judge.supply(req, {"a": "yes", "q1": 0.3}) == (1.0, 0.3)
    assert judge.waiting is None and judge.answer(req) == (1.0, 0.3)
    with pytest.raises(UsageError, match="expected 2 answers"):
        judge.supply(req, ["yes"])
    with pytest.raises(UsageError, match="no answer for rule 'b'"):
        judge.supply(req, {"a": "yes"})


def test_judge_from_option(tmp_path):
    assert judge_from_option(None) is None
    assert judge_from_option("YES") == FixedJudge(True)
    http = judge_from_option("http://127.0.0.1:9/v1", model="m", env={API_KEY_ENV: "k"})
    assert http == HttpJudge("http://127.0.0.1:9/v1", model="m", api_key="k")
    assert http.endpoint == "http://127.0.0.1:9/v1/chat/completions"
    path = tmp_path / "a.yaml"
    path.write_text("rules: {}\n", encoding="utf-8")
    assert isinstance(judge_from_option(str(path)), ScriptJudge)
    with pytest.raises(UsageError, match="^judge maybe: expected yes, no") as caught:
        judge_from_option("maybe")
    assert caught.value.field == "judge" and caught.value.value == "maybe"
    with pytest.raises(UsageError, match="^judge_model applies to an http"):
        judge_from_option("yes", model="m")
    with pytest.raises(UsageError, match="^judge_model needs") as caught:
        judge_from_option(None, model="m")
    assert caught.value.field == "judge_model" and "--" not in str(caught.value)


# -- the HTTP judge against a fake OpenAI-compatible server -----------------------------------------


class FakeChat(BaseHTTPRequestHandler):
    """Answers yes to questions that mention 'promise', no otherwise; records what it was sent."""

    seen: ClassVar[list[dict]] = []
    mode: ClassVar[str] = "ok"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChat.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if FakeChat.mode == "error":
            self._send(500, b'{"error":"boom"}')
            return
        user = body["messages"][-1]["content"]
        answers = {}
        for line in user.split("Questions:\n", 1)[1].split("\n\n")[0].splitlines():
            key, question = line.split(": ", 1)
            answers[key] = 0.95 if "promise" in question else 0.05
        content = json.dumps(answers) if FakeChat.mode == "ok" else "I think yes"
        if FakeChat.mode == "fenced":
            content = f"```json\n{json.dumps(answers)}\n```"
        reply = {"choices": [{"message": {"role": "assistant", "content": content}}]}
        self._send(200, json.dumps(reply).encode())

    def _send(self, code, data):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # keep the test output clean
        pass


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


def test_http_judge_sends_questions_and_reads_probabilities(server):
    judge = HttpJudge(server, model="tiny", api_key="secret", timeout=5)
    req = JudgeRequest(id="1:0", step=1, turn=0, subject="reply", content="Done, I promise.", length=16,
                       tokens=5, truncated=False, source="text",
                       questions=(JudgeQuestion("q0", "a", "Does it promise?"), JudgeQuestion("q1", "b", "Rude?")))
    assert judge.answer(req) == [0.95, 0.05]
    (call,) = FakeChat.seen
    assert call["path"] == "/v1/chat/completions" and call["auth"] == "Bearer secret"
    assert call["body"]["model"] == "tiny"
    assert "Done, I promise." in call["body"]["messages"][-1]["content"]


def test_http_judge_accepts_a_fenced_reply(server):
    FakeChat.mode = "fenced"
    assert HttpJudge(server, timeout=5).answer(request("a")) == [0.05]
    assert FakeChat.seen[0]["auth"] is None


@pytest.mark.parametrize("mode, message", [("error", "HTTP 500"), ("prose", "not a JSON object")])
def test_http_judge_failures_raise_judge_error(server, mode, message):
    FakeChat.mode = mode
    with pytest.raises(JudgeError, match=message):
        HttpJudge(server, timeout=5).answer(request("a"))


def test_http_judge_unreachable():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(JudgeError, match="unreachable"):
        HttpJudge(f"http://127.0.0.1:{port}", timeout=2).answer(request("a"))


def test_replay_with_the_http_judge_delivers_only_the_yes(server):
    rules = [Rule("promise", "/p/promise.md", "No promises.", question="Does it promise anything?"),
             Rule("rude", "/p/rude.md", "Be kind.", question="Is it rude?")]
    result = run_session(stream_of(prose_turn("I promise it works.")), rules, ReplayConfig(cwd="/p", judge=HttpJudge(server, timeout=5), time_bound=None))
    assert result.injected == ("promise",)
    assert len(FakeChat.seen) == 1  # one request for the output, both questions in it
    assert result.judge_rounds[0].items[0].answers == (0.95, 0.05)


def test_a_failing_judge_is_recorded_and_the_replay_goes_on(server):
    FakeChat.mode = "error"
    rules = [Rule("promise", "/p/promise.md", "No promises.", question="Does it promise anything?")]
    result = run_session(stream_of(prose_turn("x")), rules, ReplayConfig(cwd="/p", judge=HttpJudge(server, timeout=5), time_bound=None))
    item = result.judge_rounds[0].items[0]
    assert item.status == "error" and "HTTP 500" in item.error
    assert result.status == "completed" and result.injected == ()
