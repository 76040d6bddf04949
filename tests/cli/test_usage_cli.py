"""``workbench usage``: one branch, or across sessions (--by, --since, --csv)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.sessions.test_branch_usage import make_family
from workbench.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_usage_json_at_a_leaf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = make_family(tmp_path)
    code, out, _ = _run(capsys, "usage", str(parent), "--leaf", "a2", "--no-children", "--json")
    data = json.loads(out)
    assert code == 0 and data["input"] == 300 and data["cost"] == 0.75 and set(data["byModel"]) == {"m1", "m2"}


def test_usage_text_names_judge_calls_and_subagents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "usage", str(make_family(tmp_path)), "--leaf", "a2")
    assert code == 0 and "no-sleep: 1 call(s)" in out and "scout1.jsonl (scout)" in out


def test_usage_unknown_leaf_and_bad_day(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = make_family(tmp_path)
    code, _, err = _run(capsys, "usage", str(parent), "--leaf", "nope")
    assert code == 2 and "nope" in err
    code, _, err = _run(capsys, "usage", str(tmp_path), "--by", "day", "--since", "30/11/2026")
    assert code == 2 and "YYYY-MM-DD" in err


def test_usage_across_sessions_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_family(tmp_path)
    code, out, _ = _run(capsys, "usage", str(tmp_path), "--by", "cwd", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    # parent: 100 + 200 + 1000; its subagent 50; the stranger file 1000 (cwd "/")
    assert code == 0 and {r["group"]: int(r["input"]) for r in rows} == {"/proj": 1350, "/": 1000}
    code, out, _ = _run(capsys, "usage", str(tmp_path), "--by", "model", "--json")
    data = json.loads(out)
    assert data["totals"]["judgeCalls"] == 2 and data["files"] == 3
