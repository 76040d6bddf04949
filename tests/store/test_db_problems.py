"""The store's lists of files that failed outright and of notices (what loaded but is unusual)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.errors import NOTICE_KINDS
from workbench.sessions import load_session
from workbench.store import Store

HEADER = {"type": "session", "version": 5, "id": "s-n", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def _folder(tmp_path: Path) -> Path:
    d = tmp_path / "s"
    d.mkdir()
    (d / "empty.jsonl").write_bytes(b"")
    (d / "noheader.jsonl").write_text('{"type":"message","id":"a","message":{"role":"user"}}\n')
    (d / "binary.jsonl").write_bytes(b"\x00\xff\xfe\x01\n")
    (d / "dangling.jsonl").symlink_to(d / "nowhere.jsonl")
    records = [HEADER,
               {"type": "mystery", "id": "m1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z"},
               {"type": "message", "id": "m2", "parentId": "m1", "timestamp": "2026-01-01T00:00:02.000Z",
                "message": ["not", "an", "object"]},
               {"type": "mystery", "id": "m3", "parentId": "m2", "timestamp": "2026-01-01T00:00:03.000Z"}]
    (d / "notices.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return d


@pytest.mark.parametrize("fast", [True, False])
def test_failed_files_one_row_each_with_the_reason_and_a_dangling_link_does_not_stop_the_ingest(tmp_path, fast):
    d = _folder(tmp_path)
    with Store() as store:
        summary = store.ingest([d], _fast=fast)
        assert summary.sessions == 1
        failed = {Path(r["path"]).name: r for r in store.failed_files()}
    assert sorted(failed) == ["binary.jsonl", "empty.jsonl", "noheader.jsonl", "nowhere.jsonl"]
    assert (failed["noheader.jsonl"]["line"], failed["noheader.jsonl"]["kind"]) == (1, "not-a-session")
    assert failed["nowhere.jsonl"]["kind"] == "unreadable"
    assert failed["empty.jsonl"]["message"].startswith("not a session")


@pytest.mark.parametrize("fast", [True, False])
def test_notices_match_the_parsers_on_both_roads(tmp_path, fast):
    d = _folder(tmp_path)
    with Store() as store:
        store.ingest([d], _fast=fast)
        notices = store.notices()
        # notices are not load errors: the file's error count and the errors table leave them out
        assert not {e["kind"] for e in store.ingest_errors()} & NOTICE_KINDS
        assert [s["error_count"] for s in store.sessions()] == [0]
    got = [(r["line"], r["kind"]) for r in notices]
    assert got == [(None, "newer-version"), (2, "unknown-type"), (3, "message-not-object")]
    parsed = load_session(d / "notices.jsonl")
    want = sorted((d_.line, d_.kind) for d_ in parsed.diagnostics if d_.is_notice)
    # the parser puts the newer-version notice on the header line; the store names it "header"
    assert want == [(1, "newer-version"), (2, "unknown-type"), (3, "message-not-object")]
    assert "(2 entries)" in notices[1]["message"] and "'mystery'" in notices[1]["message"]
    assert notices[2]["message"].startswith("the message is an array")
    assert {Path(r["path"]).name for r in notices} == {"notices.jsonl"}
