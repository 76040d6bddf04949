"""``workbench export``: a session page, a stepper page opening at a step, and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

from workbench.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
STREAM = SAMPLES / "streams" / "prose-unwrap.stream.jsonl"


def _data(path: Path) -> dict:
    found = re.search(r'id="workbench-data">(.*?)</script>', path.read_text(), re.S)
    assert found
    return json.loads(found.group(1))


def test_export_session_and_stream(tmp_path, capsys) -> None:
    out = tmp_path / "run.html"
    code = main(["export", str(SAMPLES / "ttsr-fired.jsonl"), "--stream", str(STREAM),
                 "--rules", str(SAMPLES / "project"), "--step", "4", "--out", str(out), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["out"] == str(out) and report["session"] is True and report["steps"] > 4
    data = _data(out)
    assert data["stepper"]["open"] == 4 and data["meta"]["openAt"] == "stepper"
    assert data["session"]["rows"]["default"], "the tree rows are in the page"


def test_export_errors_are_one_line(tmp_path, capsys) -> None:
    assert main(["export", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "x.html")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["export", "--stream", str(STREAM), "--out", str(tmp_path / "x.html")]) == 2
    assert "--stream needs --rules" in capsys.readouterr().err
    assert main(["export", "--stream", str(STREAM), "--rules", str(SAMPLES / "project"), "--step", "99999",
                 "--out", str(tmp_path / "x.html")]) == 2
    assert "--step 99999" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_timeline_lists_lanes_and_session_totals(capsys) -> None:
    assert main(["timeline", str(SAMPLES / "ttsr-fired.jsonl"), "--rules", str(SAMPLES / "project"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["lanes"] and data["totals"]["messages"] > 0
    assert any(m["kind"] == "ttsr_triggered" for lane in data["lanes"] for m in lane["markers"])
    assert main(["timeline", str(SAMPLES / "ttsr-fired.jsonl"), "--rules", str(SAMPLES / "project"),
                 "--tool", "no-such-tool", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lanes"] == []
