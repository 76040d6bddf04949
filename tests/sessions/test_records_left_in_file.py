"""Tool results left in their file (``OnDisk``): the same session, tree, list and stream as a full parse.

``leave_from=0`` makes every tool result's line a candidate, so that small files exercise what the app
does to big ones (``results_left_from``); each test checks that records really were left in the file,
so none passes by having nothing to compare.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import workbench.sessions.loader as loader
from workbench.errors import SessionFileError
from workbench.replay.derive import derive_stream
from workbench.sessions import (
    OnDisk,
    SessionTree,
    build_session_context,
    load_session,
    parse_session_file,
    results_left_from,
)
from workbench.sessions.context import UnreadResult
from workbench.sessions.loader import LINE_BY_LINE_BYTES
from workbench.sessions.records import LAZY_LINE_BYTES, skim_tool_result
from workbench.sessions.synthetic import generate_session_text
from workbench.sessions.usage import usage_totals
from workbench.tree import FILTER_MODES, TreeList

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("sample_sessions/*.jsonl"), ROOT / "tests/fixtures/real/pi-mono-large-session.jsonl"])
WITH_RESULTS = [p for p in FILES if b'"toolResult"' in p.read_bytes()]


def _open(path: Path, leave_from: int | None):
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        return parse_session_file(fh, st.st_size, path=str(path), strict=False, stamp=(st.st_size, st.st_mtime_ns),
                                  leave_from=leave_from)


def _left(session) -> list:
    return [e for e in session.entries if type(e.record) is OnDisk]


def _assert_same_session(lazy, full) -> None:
    assert (lazy.header, lazy.diagnostics, lazy.not_loaded, lazy.title_slot, lazy.original_version) == (
        full.header, full.diagnostics, full.not_loaded, full.title_slot, full.original_version)
    assert len(lazy.entries) == len(full.entries)
    for a, b in zip(lazy.entries, full.entries, strict=True):
        assert (a.id, a.parent_id, a.type, a.timestamp, a.line, a.index, a.data) == (
            b.id, b.parent_id, b.type, b.timestamp, b.line, b.index, b.data)
        assert a.raw == b.raw and a.obj == b.obj and a.role == b.role and a.message == b.message
        for key in ("id", "type", "timestamp", "content", "nothing"):
            assert a.get(key, "-") == b.get(key, "-")
    assert lazy.links == full.links and list(lazy.by_id) == list(full.by_id)


@pytest.mark.parametrize("path", WITH_RESULTS, ids=lambda p: p.name)
@pytest.mark.parametrize("window", [1, 300, 4096, 1 << 26])
def test_a_session_with_results_left_in_the_file_is_the_session_a_full_parse_gives(path, window, monkeypatch):
    # windows shorter than any line (every skim on the parse's pass), about a line, and the whole file
    # (every skim on the first pass, the reads stopping short of the skimmed lines)
    monkeypatch.setattr(loader, "WINDOW_BYTES", window)
    lazy, full = _open(path, 0), _open(path, None)
    if full.original_version < 3:  # migrations copy records: none is left in the file
        assert not _left(lazy)
    else:
        assert _left(lazy), "no tool result was left in the file: nothing compared"
    assert not _left(full)
    _assert_same_session(lazy, full)
    for entry in _left(lazy):  # the head is a true part of the record
        head, raw = entry.head, entry.raw
        assert {k: raw[k] for k in head if k != "message"} == {k: v for k, v in head.items() if k != "message"}
        assert {k: raw["message"][k] for k in head["message"]} == head["message"]
        assert "content" not in head["message"]


@pytest.mark.parametrize("path", WITH_RESULTS, ids=lambda p: p.name)
@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi"])
def test_the_tree_list_is_the_same_row_for_row_and_for_every_search(path, flavor):
    lazy, full = _open(path, 0), _open(path, None)
    for mode in FILTER_MODES:
        a = TreeList(SessionTree(lazy, flavor=flavor), flavor=flavor, filter_mode=mode, search_index="off")
        b = TreeList(SessionTree(full, flavor=flavor), flavor=flavor, filter_mode=mode, search_index="off")
        assert [r.to_dict() for r in a.rows()] == [r.to_dict() for r in b.rows()]
        for query in ("read", "error", "the file", "toolResult"):
            assert a.set_search(query).visible_ids == b.set_search(query).visible_ids


@pytest.mark.parametrize("path", WITH_RESULTS, ids=lambda p: p.name)
def test_the_stepper_stream_and_the_usage_are_the_same(path):
    lazy, full = _open(path, 0), _open(path, None)
    for all_branches in (False, True):
        events = derive_stream(lazy, lazy=True, all_branches=all_branches).events
        assert list(events) == list(derive_stream(full, all_branches=all_branches).events)
    assert usage_totals(lazy.entries) == usage_totals(full.entries)


def _result_line(message: dict, **extra) -> str:
    return json.dumps({"type": "message", "id": "r", "parentId": "a", "timestamp": "2026-01-01T00:00:01Z",
                       "message": message, **extra}, ensure_ascii=False)


def _file(tmp_path: Path, *lines: str) -> Path:
    header = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"})
    user = json.dumps({"type": "message", "id": "a", "parentId": None, "message": {"role": "user", "content": "hi"}})
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([header, user, *lines]) + "\n", encoding="utf-8")
    return path


RESULT = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "x" * 50}],
          "isError": False, "timestamp": 1}


@pytest.mark.parametrize("line", [
    _result_line({**RESULT, "isError": 0.5}),  # a float is left to the usual road's exact rules
    _result_line({**RESULT, "toolName": "t" * 2000}),  # a field the tree reads, too long for the head
    _result_line({**RESULT, "content": [{"text": "no type"}]}),  # blocks the lazy stream must check
    _result_line({**RESULT, "details": {"results": [{"agentId": "x"}]}}),  # subagents are named there
    _result_line({**RESULT, "toolCallId": {"nested": True}}),
    _result_line(RESULT).replace('"isError": false', '"isError": false, "isError": true'),  # JSON.parse: last wins
    _result_line(RESULT).replace('"x', '"\\ud800x'),  # a lone surrogate escape
    _result_line(RESULT).replace('"timestamp": 1}', '"timestamp": 123456789012345678901234567890}'),
    _result_line(RESULT).replace('"timestamp": 1}', '"timestamp": 1e400}'),
    _result_line(RESULT) + _result_line(RESULT),  # two objects glued
    _result_line(RESULT)[:-3],  # cut short
    _result_line({"role": "assistant", "content": [{"type": "text", "text": "x" * 50}]}),  # not a tool result
])
def test_lines_the_skim_refuses_take_the_usual_road(tmp_path, line):
    path = _file(tmp_path, line)
    lazy, full = _open(path, 0), _open(path, None)
    assert not _left(lazy)
    _assert_same_session(lazy, full)


def test_bad_utf8_in_a_result_is_reported_as_the_usual_road_reports_it(tmp_path):
    path = _file(tmp_path, _result_line(RESULT))
    path.write_bytes(path.read_bytes().replace(b'"xxxx', b'"\xff\xfexx'))
    lazy, full = _open(path, 0), _open(path, None)
    assert not _left(lazy) and any(d.kind == "invalid-utf8" for d in lazy.diagnostics)
    _assert_same_session(lazy, full)


def _two_results(tmp_path: Path) -> Path:
    return _file(tmp_path, _result_line(RESULT), _result_line({**RESULT, "toolCallId": "c2"}, id="r2", parentId="r"))


def test_a_record_is_read_back_after_the_agent_appends_to_the_file(tmp_path):
    path = _two_results(tmp_path)
    lazy, full = _open(path, 0), _open(path, None)
    with path.open("a", encoding="utf-8") as fh:  # the agent goes on writing
        fh.write(_result_line(RESULT, id="r3") + "\n")
    assert [e.raw for e in _left(lazy)] == [e.raw for e in full.entries if e.role == "toolResult"]


def test_a_line_rewritten_in_place_is_refused_naming_it(tmp_path):
    path = _two_results(tmp_path)
    second = _left(_open(path, 0))[1]
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"toolCallId": "c2"', b'"toolCallId": "c9"'))  # same length, same inode
    with pytest.raises(SessionFileError, match="changed on disk") as err:
        second.raw  # noqa: B018 - the read is the point
    assert err.value.line == second.line == 4


def test_a_file_that_became_shorter_is_refused(tmp_path):
    path = _two_results(tmp_path)
    first = _left(_open(path, 0))[0]
    with path.open("r+b") as fh:
        fh.truncate(10)
    with pytest.raises(SessionFileError, match="became shorter"):
        first.raw  # noqa: B018


def test_a_file_replaced_by_a_new_one_is_read_as_it_was_parsed(tmp_path):
    path = _file(tmp_path, _result_line(RESULT))
    lazy = _open(path, 0)
    (entry,) = _left(lazy)
    replacement = tmp_path / "new.jsonl"
    replacement.write_text("something else entirely\n", encoding="utf-8")
    os.replace(replacement, path)  # an editor's save: a new file renamed over the old one
    assert entry.raw["message"]["toolCallId"] == "c1"


def test_the_skim_keeps_the_scalars_the_tree_reads_and_leaves_the_content():
    head = skim_tool_result(_result_line({**RESULT, "details": {"diff": "-a\n+b"}}, extra="y" * 5000).encode())
    assert head == {"type": "message", "id": "r", "parentId": "a", "timestamp": "2026-01-01T00:00:01Z",
                    "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False,
                                "timestamp": 1}}


def test_only_big_files_leave_results_in_the_app_and_a_big_generated_one_loads_the_same(tmp_path):
    assert results_left_from(LINE_BY_LINE_BYTES - 1) is None and results_left_from(LINE_BY_LINE_BYTES) == LAZY_LINE_BYTES
    path = tmp_path / "big.jsonl"
    path.write_text(generate_session_text(400, tool_result_bytes=LAZY_LINE_BYTES), encoding="utf-8")
    lazy, full = _open(path, LAZY_LINE_BYTES), load_session(path)
    assert len(_left(lazy)) > 50
    _assert_same_session(lazy, full)


@pytest.mark.parametrize("path", WITH_RESULTS, ids=lambda p: p.name)
@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi"])
def test_a_context_that_leaves_results_unread_holds_the_same_messages(path, flavor):
    lazy, full = _open(path, 0), _open(path, None)
    for leaf in [e.id for e in full.entries][-1::-7][:6]:
        unread = build_session_context(lazy, leaf, flavor=flavor, read_results=False).messages
        assert [dict(m) for m in unread] == [dict(m) for m in build_session_context(full, leaf, flavor=flavor).messages]


def test_an_unread_result_answers_its_head_without_reading_the_file(tmp_path):
    path = _two_results(tmp_path)
    lazy = _open(path, 0)
    messages = build_session_context(lazy, read_results=False).messages
    unread = [m for m in messages if isinstance(m, UnreadResult)]
    assert len(unread) == 2
    path.write_bytes(b"")  # from here on every read back fails
    assert [(m["role"], m["toolCallId"], m.get("isError")) for m in unread] == [("toolResult", "c1", False),
                                                                                ("toolResult", "c2", False)]
    with pytest.raises(SessionFileError, match="became shorter"):
        unread[0]["content"]  # noqa: B018


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_child_forked_while_a_reader_is_locked_reads_records(tmp_path):
    # the time-bound check forks the served app, whose other threads may be reading records
    entry = _left(_open(_two_results(tmp_path), 0))[0]
    reader = entry.record.reader
    with reader._lock:
        pid = os.fork()
        if pid == 0:  # the child: its copy of the lock would stay held forever without the reset
            ok = False
            try:
                ok = entry.raw["message"]["toolCallId"] == "c1"
            finally:
                os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_result_of_several_megabytes_is_left_in_the_file_too(tmp_path):
    # (skimmed with a parser of its own: a thread's parser would keep buffers that big)
    big = {**RESULT, "content": [{"type": "text", "text": "line of output\n" * 200_000}]}
    path = _file(tmp_path, _result_line(big), _result_line(RESULT, id="r2", parentId="r"))
    lazy, full = _open(path, 0), _open(path, None)
    assert len(_left(lazy)) == 2
    _assert_same_session(lazy, full)
