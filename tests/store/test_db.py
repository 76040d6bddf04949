"""The DuckDB store: bulk ingest, re-ingest, queries, Parquet output, file locking."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.errors import NotFoundError, StoreError
from workbench.sessions import session_files
from workbench.store import Store


def jl(*records: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


HEADER_V3 = {"type": "session", "version": 3, "id": "sess-branched", "timestamp": "2026-01-01T00:00:00.000Z",
             "cwd": "/home/u/proj", "title": "Branched work"}


def msg(eid: str, parent: str | None, role: str, content, ts: str = "2026-01-01T00:00:01.000Z", **extra) -> dict:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts,
            "message": {"role": role, "content": content, **extra}}


# A v3 session with two branches, labels (one cleared, one overwritten), a compaction, a model change,
# a TTSR injection (both entry kinds), a bash execution and a branch summary.
BRANCHED_V3 = jl(
    HEADER_V3,
    msg("u1", None, "user", "Fix the Loader please"),
    msg("a1", "u1", "assistant", [{"type": "thinking", "thinking": "hmm"},
                                  {"type": "text", "text": "Reading "}, {"type": "text", "text": "the file"},
                                  {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}}],
        stopReason="toolUse"),
    msg("t1", "a1", "toolResult", [{"type": "text", "text": "if (t) clearTimeout(t);\nconsole.log(x)"}],
        toolCallId="c1", toolName="read", isError=False),
    {"type": "label", "id": "l1", "parentId": "t1", "timestamp": "2026-01-01T00:00:02.000Z",
     "targetId": "u1", "label": "start"},
    {"type": "label", "id": "l2", "parentId": "l1", "timestamp": "2026-01-01T00:00:03.000Z",
     "targetId": "a1", "label": "first"},
    {"type": "label", "id": "l3", "parentId": "l2", "timestamp": "2026-01-01T00:00:04.000Z",
     "targetId": "a1", "label": "second"},
    {"type": "label", "id": "l4", "parentId": "l3", "timestamp": "2026-01-01T00:00:05.000Z",
     "targetId": "u1", "label": ""},
    {"type": "custom_message", "id": "cm1", "parentId": "l4", "timestamp": "2026-01-01T00:00:06.000Z",
     "customType": "ttsr-injection", "content": "<system-interrupt>no console.log</system-interrupt>",
     "display": False, "details": {"rules": ["no-console-log", "prefer-const"]}},
    {"type": "ttsr_injection", "id": "ti1", "parentId": "cm1", "timestamp": "2026-01-01T00:00:07.000Z",
     "injectedRules": ["no-console-log", "prefer-const"]},
    {"type": "model_change", "id": "mc1", "parentId": "ti1", "timestamp": "2026-01-01T00:00:08.000Z",
     "provider": "anthropic", "modelId": "claude-x"},
    {"type": "compaction", "id": "co1", "parentId": "mc1", "timestamp": "2026-01-01T00:00:09.000Z",
     "summary": "Compacted LOADER talk", "firstKeptEntryId": "t1", "tokensBefore": 1500},
    msg("b1", "co1", "bashExecution", None, command="ls -la", output="x", exitCode=0),
    # second branch from a1
    {"type": "branch_summary", "id": "bs1", "parentId": "a1", "timestamp": "2026-01-01T00:00:10.000Z",
     "fromId": "a1", "summary": "Tried another way"},
    msg("u2", "bs1", "user", [{"type": "text", "text": "Other approach"}, {"type": "image", "data": "AA"}]),
)

V1_SESSION = jl(
    {"type": "session", "id": "sess-v1", "timestamp": "2025-06-01T00:00:00.000Z", "cwd": "/tmp"},
    {"type": "message", "timestamp": "2025-06-01T00:00:01.000Z", "message": {"role": "user", "content": "old hello"}},
    {"type": "message", "timestamp": "2025-06-01T00:00:02.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "old reply"}]}},
    {"type": "compaction", "timestamp": "2025-06-01T00:00:03.000Z", "summary": "s", "firstKeptEntryIndex": 2,
     "tokensBefore": 10},
)

MALFORMED_LINE = (
    json.dumps({"type": "session", "version": 3, "id": "sess-broken", "timestamp": "2026-02-01T00:00:00Z"}) + "\n"
    + json.dumps(msg("m1", None, "user", "before the break")) + "\n"
    + '{"type":"message","id":"m2", "message": {"role":\n'
    + '{"type":"label","id":"x1"}{"type":"label","id":"x2"}\n'
    + json.dumps(msg("m3", "m1", "user", "after the break")) + "\n"
)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    (root / "--home-u-proj--").mkdir(parents=True)
    (root / "--home-u-proj--" / "branched.jsonl").write_text(BRANCHED_V3)
    (root / "old" / "deep").mkdir(parents=True)
    (root / "old" / "deep" / "v1.jsonl").write_text(V1_SESSION)
    (root / "broken.jsonl").write_text(MALFORMED_LINE)
    (root / "notes.jsonl").write_text('{"hello": "world"}\n')
    (root / "ignored.txt").write_text("not a session file")
    return root


def by_kind(errors: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in errors:
        out.setdefault(e["kind"], []).append(e)
    return out


def test_folders_are_walked_for_jsonl_files_recursively(archive: Path):
    names = sorted(p.name for p in session_files([archive]))
    assert names == ["branched.jsonl", "broken.jsonl", "notes.jsonl", "v1.jsonl"]
    with pytest.raises(NotFoundError):
        session_files([archive / "missing"])


def test_bulk_ingest_of_a_mixed_folder_reports_every_problem_with_file_and_line(archive: Path):
    with Store() as store:
        summary = store.ingest([archive])
        assert summary.files == 4 and summary.skipped_files == 0
        assert summary.sessions == 3  # notes.jsonl is not a session
        errors = store.ingest_errors()
        kinds = by_kind(errors)
        broken = str((archive / "broken.jsonl").resolve())
        assert [(e["path"], e["line"]) for e in kinds["malformed"]] == [(broken, 3)]
        assert [(e["path"], e["line"]) for e in kinds["two-objects"]] == [(broken, 4)]
        assert kinds["not-a-session"][0]["path"].endswith("notes.jsonl")
        assert len(summary.errors) == len(errors)
        assert any(str(e).startswith(f"{broken}:3: malformed") for e in summary.errors)

        sessions = {s["session_id"]: s for s in store.sessions()}
        assert set(sessions) == {"sess-branched", "sess-v1", "sess-broken"}
        assert sessions["sess-broken"]["entry_count"] == 2 and sessions["sess-broken"]["error_count"] == 2
        assert [e["line"] for e in store.entries("sess-broken")] == [2, 5]
        assert store.stats()["entries"] == 14 + 3 + 2


def test_well_formed_v3_takes_the_duckdb_road_and_the_rest_the_session_parser(archive: Path):
    with Store() as store:
        summary = store.ingest([archive])
        modes = {Path(r["path"]).name: r["mode"] for r in store.read_table("files")}
    assert modes == {"branched.jsonl": "fast", "v1.jsonl": "python", "broken.jsonl": "python", "notes.jsonl": "failed"}
    assert summary.fallback_files == 3


def test_v1_entries_get_ids_in_memory_and_form_one_chain(archive: Path):
    with Store() as store:
        store.ingest([archive / "old"])
        rows = store.entries("sess-v1")
        session = store.session("sess-v1")
    assert [r["line"] for r in rows] == [2, 3, 4]
    assert all(isinstance(r["id"], str) and r["id"] for r in rows)
    assert [r["parent_id"] for r in rows] == [None, rows[0]["id"], rows[1]["id"]]
    assert session["version"] == 1
    # raw stays the line as written: the v1 line has no id
    assert "id" not in json.loads(rows[0]["raw"])
    assert rows[0]["text"] == "old hello" and rows[1]["role"] == "assistant"


def test_session_row_counts_branches_labels_and_injections(archive: Path):
    with Store() as store:
        store.ingest([archive / "--home-u-proj--"])
        s = store.session("sess-branched")
    assert s["title"] == "Branched work" and s["cwd"] == "/home/u/proj" and s["version"] == 3
    assert s["created"] == "2026-01-01T00:00:00.000Z"
    assert s["entry_count"] == 14
    assert s["branch_count"] == 2  # leaves: b1 and u2
    assert s["label_count"] == 1  # u1's label was cleared, a1 keeps "second"
    assert s["injection_count"] == 2
    assert s["error_count"] == 0


def test_entries_have_typed_columns_search_text_and_the_raw_line(archive: Path):
    with Store() as store:
        store.ingest([archive / "--home-u-proj--"])
        rows = {r["id"]: r for r in store.entries(str(archive / "--home-u-proj--" / "branched.jsonl"))}
    lines = BRANCHED_V3.splitlines()
    assert rows["a1"]["line"] == 3 and rows["a1"]["raw"] == lines[2]
    assert rows["a1"]["parent_id"] == "u1" and rows["a1"]["role"] == "assistant"
    assert rows["a1"]["text"] == "Reading the file"  # thinking and tool calls are not search text
    assert rows["a1"]["label"] == "second" and rows["u1"]["label"] is None
    assert rows["u2"]["text"] == "Other approach"
    assert rows["b1"]["text"] == "ls -la"
    assert rows["co1"]["text"] == "compaction Compacted LOADER talk"
    assert rows["mc1"]["text"] == "model claude-x" and rows["mc1"]["role"] is None
    assert rows["cm1"]["custom_type"] == "ttsr-injection"
    assert rows["ti1"]["text"] == "ttsr injection no-console-log prefer-const"
    assert rows["t1"]["timestamp"] == "2026-01-01T00:00:01.000Z"


def test_duckdb_road_and_parser_road_give_the_same_rows(tmp_path: Path):
    path = tmp_path / "branched.jsonl"
    path.write_text(BRANCHED_V3)
    with Store() as fast, Store() as slow:
        fast.ingest([path])
        slow.ingest([path], _fast=False)
        assert fast.read_table("files")[0]["mode"] == "fast"
        assert slow.read_table("files")[0]["mode"] == "python"
        fast_rows = fast.entries("sess-branched")
        slow_rows = slow.entries("sess-branched")
        assert [json.loads(r["raw"]) for r in fast_rows] == [json.loads(r["raw"]) for r in slow_rows]
        for r in fast_rows + slow_rows:
            r["raw"] = json.loads(r["raw"])
        assert fast_rows == slow_rows
        assert fast.sessions() == slow.sessions()


def test_blank_lines_and_crlf_keep_physical_line_numbers(tmp_path: Path):
    path = tmp_path / "blank.jsonl"
    lines = BRANCHED_V3.splitlines()
    path.write_text(lines[0] + "\r\n\r\n" + lines[1] + "\r\n   \n" + lines[2] + "\r\n")
    with Store() as store:
        store.ingest([path])
        rows = store.entries("sess-branched")
    assert [(r["id"], r["line"]) for r in rows] == [("u1", 3), ("a1", 5)]


def test_reingest_replaces_a_changed_file_and_skips_unchanged_ones(archive: Path, tmp_path: Path):
    db = tmp_path / "store.duckdb"
    target = archive / "broken.jsonl"
    with Store(db) as store:
        store.ingest([archive])
        before = store.stats()
        again = store.ingest([archive])
        assert again.skipped_files == 4 and again.entries == 0 and store.stats() == before
        # fix the file: the broken lines go, one entry is added
        target.write_text(jl(
            {"type": "session", "version": 3, "id": "sess-broken", "timestamp": "2026-02-01T00:00:00Z"},
            msg("m1", None, "user", "before the break"), msg("m3", "m1", "user", "after the break"),
            msg("m4", "m3", "user", "a new question"),
        ))
        os.utime(target, ns=(1_800_000_000_000_000_000, 1_800_000_000_000_000_000))
        third = store.ingest([archive], progress=None)
        assert third.skipped_files == 3 and third.sessions == 1
        assert [(r["id"], r["line"]) for r in store.entries("sess-broken")] == [("m1", 2), ("m3", 3), ("m4", 4)]
        assert [r["mode"] for r in store.read_table("files") if r["path"] == str(target.resolve())] == ["fast"]
        assert [e for e in store.ingest_errors() if e["path"] == str(target.resolve())] == []
        assert store.session("sess-broken")["error_count"] == 0
        assert len([r for r in store.read_table("files") if r["path"] == str(target.resolve())]) == 1
        assert store.stats()["sessions"] == 3


def test_search_is_case_insensitive_across_sessions_with_a_snippet(archive: Path):
    with Store() as store:
        store.ingest([archive])
        hits = store.search("LOADER")
        assert {(h["session_id"], h["entry_id"]) for h in hits} == {("sess-branched", "u1"), ("sess-branched", "co1")}
        hit = store.search("cleartimeout")[0]
        assert hit["entry_id"] == "t1" and "clearTimeout(t)" in hit["snippet"]
        assert {h["session_id"] for h in store.search("break")} == {"sess-broken"}
        assert {h["session_id"] for h in store.search("old")} == {"sess-v1"}
        assert len(store.search("e", limit=3)) == 3
        assert store.search("   ") == []
        assert store.search("100%") == []  # no LIKE wildcards


def test_injections_list_each_one_with_its_rules(archive: Path):
    with Store() as store:
        store.ingest([archive])
        inj = store.injections()
    assert [(i["session_id"], i["entry_id"], i["type"], i["rules"]) for i in inj] == [
        ("sess-branched", "cm1", "custom_message", ["no-console-log", "prefer-const"]),
        ("sess-branched", "ti1", "ttsr_injection", ["no-console-log", "prefer-const"]),
    ]


def test_labels_resolve_globally_last_write_wins(archive: Path):
    with Store() as store:
        store.ingest([archive])
        labels = store.labels()
    assert [(x["session_id"], x["entry_id"], x["label"]) for x in labels] == [("sess-branched", "a1", "second")]


def test_session_lookup_by_id_path_or_prefix(archive: Path):
    with Store() as store:
        store.ingest([archive])
        assert store.session("sess-v1")["session_id"] == "sess-v1"
        assert store.session(archive / "old" / "deep" / "v1.jsonl")["session_id"] == "sess-v1"
    with Store() as store:
        store.ingest([archive])
        with pytest.raises(NotFoundError, match="ambiguous"):
            store.session("sess-br")
        with pytest.raises(NotFoundError, match="nope"):
            store.session("nope")


def test_parquet_output_is_partitioned_by_session(archive: Path, tmp_path: Path):
    out = tmp_path / "pq"
    with Store() as store:
        summary = store.ingest([archive], parquet=out)
    assert summary.parquet == str(out.resolve())
    parts = sorted(p.name for p in (out / "entries").iterdir())
    assert parts == ["session_id=sess-branched", "session_id=sess-broken", "session_id=sess-v1"]
    assert all(list((out / "entries" / p).glob("*.parquet")) for p in parts)
    for name in ("sessions", "files", "ingest_errors"):
        assert (out / f"{name}.parquet").stat().st_size > 0


def test_file_db_persists_and_memory_db_does_not(archive: Path, tmp_path: Path):
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        store.ingest([archive])
        stats = store.stats()
    with Store(db) as store:
        assert store.stats() == stats and stats["sessions"] == 3
        assert store.search("LOADER")
    with Store() as mem:
        assert mem.stats() == {"files": 0, "sessions": 0, "entries": 0, "errors": 0, "bytes": 0}


def test_a_db_file_held_by_another_process_is_a_clear_store_error(tmp_path: Path):
    db = tmp_path / "locked.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from workbench.store import Store
            s = Store({str(db)!r})
            print("ready", flush=True)
            sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreError, match="in use by another process"):
            Store(db)
    finally:
        holder.communicate("\n", timeout=30)


def test_progress_is_reported_per_file(archive: Path):
    calls: list[tuple[int, int]] = []
    with Store() as store:
        store.ingest([archive], progress=lambda done, total, path: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_write_rows_and_read_table_for_other_features(tmp_path: Path):
    rows = [{"rule": "no-console-log", "session": "s1", "hits": 2, "names": ["a", "b"]},
            {"rule": "prefer-const", "session": "s2", "hits": 0, "names": []}]
    with Store() as store:
        assert store.write_rows("backtest_hits", rows) == 2
        store.write_rows("backtest_hits", [{"rule": "x", "session": "s3", "hits": 5}])
        back = store.read_table("backtest_hits")
        assert [(r["rule"], r["hits"]) for r in back] == [("no-console-log", 2), ("prefer-const", 0), ("x", 5)]
        assert json.loads(back[0]["names"]) == ["a", "b"] and back[2]["names"] is None
        store.write_rows("backtest_hits", rows[:1], replace=True)
        assert len(store.read_table("backtest_hits")) == 1
        assert "backtest_hits" in store.tables()
        target = store.export_table_parquet("backtest_hits", tmp_path / "out" / "hits.parquet")
        assert Path(target).stat().st_size > 0
        with pytest.raises(StoreError):
            store.write_rows("entries", rows)
        with pytest.raises(StoreError):
            store.write_rows("bad name; drop", rows)
        with pytest.raises(NotFoundError):
            store.read_table("nothing_here")


# Content shapes the search text must treat alike on both roads: a long tool output (cut at 200
# characters), text past the fourth block, no text at all, array content in a custom message,
# non-ASCII text, and a pi session name.
EDGE_SHAPES = jl(
    {"type": "session", "version": 3, "id": "sess-shapes", "timestamp": "2026-03-01T00:00:00Z"},
    msg("t1", None, "toolResult", [{"type": "text", "text": "x" * 250 + " NEEDLE deep in the output"}]),
    msg("a1", "t1", "assistant", [{"type": "thinking", "thinking": "t"}] * 5 + [{"type": "text", "text": "late text"}]),
    msg("a2", "a1", "assistant", [{"type": "toolCall", "id": "c", "name": "bash", "arguments": {}}]),
    msg("u1", "a2", "user", [{"type": "image", "data": "AA", "mimeType": "image/png"}]),
    msg("u2", "u1", "user", "Grüße — ünïcödé ✓ " + "y" * 300),
    {"type": "custom_message", "id": "cm", "parentId": "u2", "timestamp": "2026-03-01T00:00:01Z",
     "customType": "note", "content": [{"type": "text", "text": "array "}, {"type": "text", "text": "content"}]},
    {"type": "session_info", "id": "si", "parentId": "cm", "timestamp": "2026-03-01T00:00:02Z", "name": "Shapes"},
    {"type": "thinking_level_change", "id": "th", "parentId": "si", "timestamp": "2026-03-01T00:00:03Z",
     "thinkingLevel": None},
    {"type": "ttsr_injection", "id": "ti", "parentId": "th", "timestamp": "2026-03-01T00:00:04Z"},
    {"type": "future_entry", "id": "fe", "parentId": "ti", "timestamp": "2026-03-01T00:00:05Z"},
)


def test_search_text_shapes_agree_between_roads_and_deep_search_reads_raw(tmp_path: Path):
    path = tmp_path / "shapes.jsonl"
    path.write_text(EDGE_SHAPES, encoding="utf-8")
    with Store() as fast, Store() as slow:
        fast.ingest([path])
        slow.ingest([path], _fast=False)
        assert fast.read_table("files")[0]["mode"] == "fast"
        texts = {r["id"]: r["text"] for r in fast.entries("sess-shapes")}
        assert texts == {r["id"]: r["text"] for r in slow.entries("sess-shapes")}
        assert fast.sessions() == slow.sessions()
        assert texts["t1"] == "x" * 200
        assert texts["a1"] == "late text" and texts["a2"] is None and texts["u1"] is None
        assert texts["u2"].startswith("Grüße — ünïcödé ✓ ") and len(texts["u2"]) == 200
        assert texts["cm"] == "note array content"
        assert texts["si"] == "session info Shapes" and texts["th"] == "thinking"
        assert texts["ti"] == "ttsr injection" and texts["fe"] == "future entry"
        assert fast.session("sess-shapes")["title"] == "Shapes"
        assert fast.search("needle") == []
        deep = fast.search("needle", deep=True)
        assert [h["entry_id"] for h in deep] == ["t1"] and "NEEDLE" in deep[0]["snippet"]


def test_a_file_with_bad_bytes_goes_the_parser_road_alone(tmp_path: Path):
    (tmp_path / "good.jsonl").write_text(BRANCHED_V3)
    lines = MALFORMED_LINE.splitlines(keepends=True)
    (tmp_path / "bytes.jsonl").write_bytes(lines[0].encode() + b'{"type":"message","id":"q","parentId":null,'
                                           b'"message":{"role":"user","content":"caf\xe9"}}\n')
    with Store() as store:
        summary = store.ingest([tmp_path, tmp_path / "good.jsonl"])  # the file named twice counts once
        modes = {Path(r["path"]).name: r["mode"] for r in store.read_table("files")}
        assert modes == {"good.jsonl": "fast", "bytes.jsonl": "python"}
        assert summary.files == 2
        assert [(e.line, e.kind) for e in summary.errors] == [(2, "invalid-utf8")]
        assert store.entries("sess-broken")[0]["text"] == "caf\ufffd"


def test_a_batch_duckdb_cannot_read_is_split_until_the_bad_file_is_alone(tmp_path: Path, monkeypatch):
    import workbench.store.db as store_module

    for i in range(4):
        (tmp_path / f"s{i}.jsonl").write_text(BRANCHED_V3.replace("sess-branched", f"sess-{i}"))
    real = store_module.Store._ingest_fast
    seen: list[int] = []

    def reader_that_chokes_on_s2(self, batch, summary):
        seen.append(len(batch))
        if any(s.path.endswith("s2.jsonl") for s in batch):
            raise store_module._ReadFailed("simulated reader failure")
        return real(self, batch, summary)

    monkeypatch.setattr(store_module.Store, "_ingest_fast", reader_that_chokes_on_s2)
    with Store() as store:
        store.ingest([tmp_path])
        modes = {Path(r["path"]).name: r["mode"] for r in store.read_table("files")}
        assert store.stats()["entries"] == 4 * 14
    assert modes == {"s0.jsonl": "fast", "s1.jsonl": "fast", "s2.jsonl": "python", "s3.jsonl": "fast"}
    assert seen == [4, 2, 2, 1, 1]


def _flush_threshold(store: Store) -> str:
    return store._con.execute("SELECT current_setting('allocator_bulk_deallocation_flush_threshold')").fetchone()[0]


def test_a_store_gives_freed_memory_back_at_once_only_when_asked():
    """The served app's store returns what DuckDB frees at once (docs/large-sessions.md, "DuckDB's
    freed memory"); the command line's keeps DuckDB's default, which ingests faster."""
    with Store() as plain, Store(give_back_memory=True) as giving:
        assert _flush_threshold(plain) == "512.0 MiB"  # DuckDB's default
        assert _flush_threshold(giving) == "976.5 KiB"  # 1 MB
