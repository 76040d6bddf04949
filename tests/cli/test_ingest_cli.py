"""``workbench ingest``: summary text, --json, --db, --parquet, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.store import Store

HEADER = {"type": "session", "version": 3, "id": "cli-sess", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
ENTRY = {"type": "message", "id": "e1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "user", "content": "hello from the cli"}}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    root.mkdir()
    (root / "good.jsonl").write_text(json.dumps(HEADER) + "\n" + json.dumps(ENTRY) + "\n")
    (root / "sub").mkdir()
    (root / "sub" / "bad.jsonl").write_text(
        json.dumps({**HEADER, "id": "cli-bad"}) + "\n" + "{oops\n" + json.dumps(ENTRY) + "\n")
    return root


def test_text_summary_names_files_sessions_entries_and_errors_with_file_line(folder: Path, capsys):
    assert main(["ingest", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "files: 2 (2 read, 0 unchanged, 1 via the session parser)" in out
    assert "sessions: 2  entries: 2  errors: 1" in out
    assert "MB/s" in out
    bad = (folder / "sub" / "bad.jsonl").resolve()
    assert f"{bad}:2: malformed" in out


def test_without_db_the_output_says_nothing_was_saved(folder: Path, tmp_path: Path, capsys):
    assert main(["ingest", str(folder)]) == 0
    assert "in memory only, nothing was saved" in capsys.readouterr().out
    assert main(["ingest", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["db"] == ":memory:" and data["saved"] is False
    db = tmp_path / "kept.duckdb"
    assert main(["ingest", str(folder), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "nothing was saved" not in out and f"store: {db} (2 sessions, 2 entries in total)" in out


def test_help_explains_db_with_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["ingest", "--help"])
    out = capsys.readouterr().out
    assert "--db FILE" in out and "--db sessions.duckdb" in out and "nothing is saved" in out


def test_json_output_and_a_db_file_that_keeps_the_rows(folder: Path, tmp_path: Path, capsys):
    db = tmp_path / "w.duckdb"
    assert main(["ingest", str(folder), "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"] == 2 and data["entries"] == 2 and data["totals"]["sessions"] == 2
    assert data["saved"] is True
    assert [(e["line"], e["kind"]) for e in data["errors"]] == [(2, "malformed")]
    assert main(["ingest", str(folder), "--db", str(db), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["skipped_files"] == 2 and again["entries"] == 0
    with Store(db) as store:
        assert [h["entry_id"] for h in store.search("FROM THE CLI")] == ["e1", "e1"]


def test_parquet_flag_writes_partitions(folder: Path, tmp_path: Path, capsys):
    out = tmp_path / "pq"
    assert main(["ingest", str(folder / "good.jsonl"), "--parquet", str(out)]) == 0
    assert "parquet: " in capsys.readouterr().out
    assert (out / "entries" / "session_id=cli-sess").is_dir()


def test_a_missing_path_is_a_one_line_error(tmp_path: Path, capsys):
    assert main(["ingest", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nowhere" in err and err.count("\n") == 1


def test_a_folder_without_any_session_exits_non_zero_with_one_error_line(tmp_path: Path, capsys):
    (tmp_path / "notes.jsonl").write_text('{"a": 1}\n')
    assert main(["ingest", str(tmp_path)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no session file among") and "notes.jsonl" in err[0]
