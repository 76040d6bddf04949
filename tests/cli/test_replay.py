"""``workbench replay``: text and JSON output, session input, bad input."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main

RULE = """---
description: No unwrap
condition: '\\.unwrap\\('
---
Do not call .unwrap(); propagate errors with ?.
"""


@pytest.fixture
def project(tmp_path):
    rules = tmp_path / "proj" / ".omp" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-unwrap.md").write_text(RULE)
    return tmp_path / "proj"


def _stream_file(tmp_path, cwd):
    lines = [
        {"type": "stream", "version": 1, "cwd": str(cwd)},
        {"type": "turn_start"},
        {"type": "message_start", "role": "assistant"},
        {"type": "text_delta", "contentIndex": 0, "delta": "let v = r.unw"},
        {"type": "text_delta", "contentIndex": 0, "delta": "rap();"},
        {"type": "message_end", "stopReason": "stop"},
        {"type": "turn_end"},
        {"type": "turn_start"},
        {"type": "message_start", "role": "assistant"},
        {"type": "text_delta", "contentIndex": 0, "delta": "let v = r?;"},
        {"type": "message_end", "stopReason": "stop"},
        {"type": "turn_end"},
    ]
    path = tmp_path / "run.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_json_output_names_the_completing_delta(tmp_path, project, capsys):
    path = _stream_file(tmp_path, project)
    code = main(["replay", str(path), "--rules", str(project), "--home", str(tmp_path / "home"),
                 "--context-mode", "keep", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["type"] for e in out["events"]] == ["ttsr_triggered", "abort", "retry", "injection"]
    abort = out["events"][1]
    assert abort["step"] == 3 and abort["delta"] == "rap();" and abort["rules"] == ["no-unwrap"]
    assert out["injected"] == ["no-unwrap"]
    roles = [m["role"] for m in out["final"]["context"]]
    assert roles == ["assistant", "custom", "assistant"]  # keep: the partial output stays


def test_text_output_one_line_per_event(tmp_path, project, capsys):
    path = _stream_file(tmp_path, project)
    assert main(["replay", str(path), "--rules", str(project), "--interrupt-mode", "never"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[5] injection rules=no-unwrap") and "deferred=true" in lines[0]
    assert lines[-1].startswith("status: completed; injected: no-unwrap")


def test_session_input_is_derived_and_chunked(tmp_path, project, capsys):
    session = tmp_path / "s.jsonl"
    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "assistant", "stopReason": "stop", "timestamp": 1,
                     "content": [{"type": "text", "text": "call x.unwrap() here"}]}},
    ]
    session.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    before = session.read_text()
    copy = tmp_path / "copy.jsonl"
    code = main(["replay", str(session), "--rules", str(project), "--chunking", "fixed", "--chunk-size", "5",
                 "--json", "--write-session", str(copy)])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["events"][0]["delta"] == "rap()" and out["status"] == "interrupted, no recorded continuation"
    assert session.read_text() == before
    appended = [json.loads(x) for x in copy.read_text().splitlines()][2:]
    assert [e["type"] for e in appended] == ["custom_message", "ttsr_injection"] and appended[0]["parentId"] == "a1"


def test_bad_input_is_one_error_line(tmp_path, project, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"stream","version":1}\n{"type":"text_delta","contentIndex":0}\n')
    assert main(["replay", str(bad), "--rules", str(project)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {bad}:2: field 'delta': text_delta needs 'delta'"
    assert main(["replay", str(tmp_path / "missing"), "--rules", str(project)]) == 2
    assert main(["replay", str(bad), "--rules", str(tmp_path / "nodir")]) == 2


def test_resume_restores_injected_rules(tmp_path, project, capsys):
    resumed = tmp_path / "earlier.jsonl"
    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)},
        {"type": "ttsr_injection", "id": "t1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "injectedRules": ["no-unwrap"]},
    ]
    resumed.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    path = _stream_file(tmp_path, project)
    assert main(["replay", str(path), "--rules", str(project), "--resume", str(resumed), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["events"] == [] and out["injected"] == []  # spent under once before the stream starts
