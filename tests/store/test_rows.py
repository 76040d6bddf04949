"""The Python side of ingest: file stats, the v3 header check, size batches, parser-road rows."""

from __future__ import annotations

import json
import os
from pathlib import Path

from workbench.store.rows import (
    FileStat,
    IngestSummary,
    RowBatch,
    has_v3_header,
    size_batches,
)

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
ENTRY = {"type": "message", "id": "e1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "user", "content": "hi"}}


def test_fingerprint_sees_a_same_size_rewrite_with_the_mtime_put_back(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(HEADER) + "\n")
    before = path.stat()
    first = FileStat.of(path)
    assert FileStat.of(path) == first and first.size == before.st_size
    path.write_text(json.dumps({**HEADER, "id": "s2"}) + "\n")  # same length, other bytes
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    again = FileStat.of(path)
    assert (again.size, again.mtime) == (first.size, first.mtime)
    assert again.fingerprint != first.fingerprint


def test_only_a_v3_object_header_takes_the_duckdb_road(tmp_path: Path):
    cases = {"v3": HEADER, "v1": {k: v for k, v in HEADER.items() if k != "version"},
             "bool": {**HEADER, "version": True}, "list": [HEADER], "entry": ENTRY}
    results = {}
    for name, head in cases.items():
        (tmp_path / name).write_text(json.dumps(head) + "\n")
        results[name] = has_v3_header(str(tmp_path / name))
    (tmp_path / "space").write_text(" " + json.dumps(HEADER) + "\n")
    assert results == {"v3": True, "v1": False, "bool": False, "list": False, "entry": False}
    assert not has_v3_header(str(tmp_path / "space")) and not has_v3_header(str(tmp_path / "missing"))


def test_size_batches_close_a_batch_once_it_reaches_the_limit():
    stats = [FileStat(f"f{i}", size, 0.0, "") for i, size in enumerate([5, 5, 20, 1, 1])]
    assert [[s.path for s in b] for b in size_batches(stats, 10)] == [["f0", "f1"], ["f2"], ["f3", "f4"]]


def test_row_batch_counts_a_session_and_a_file_that_is_not_one(tmp_path: Path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps(HEADER) + "\n" + json.dumps(ENTRY) + "\n")
    bad.write_text('{"hello": "world"}\n')
    batch, summary = RowBatch(), IngestSummary()
    for p in (good, bad):
        batch.add_file(FileStat.of(p), summary)
    assert (summary.sessions, summary.entries, summary.fallback_files) == (1, 1, 2)
    assert [(row["id"], row["line"], row["text"]) for row in batch.entries] == [("e1", 2, "hi")]
    assert batch.sessions[0]["session_id"] == "s1" and batch.sessions[0]["error_count"] == 0
    assert [(stat.path, sid, mode) for stat, sid, mode in batch.files] == [
        (str(good), "s1", "python"), (str(bad), None, "failed")]
    assert [e["kind"] for e in batch.errors] == ["not-a-session"] and summary.errors[0].path == str(bad)
    assert batch.bytes == good.stat().st_size + bad.stat().st_size
