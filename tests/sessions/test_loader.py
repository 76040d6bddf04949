from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from workbench.errors import SessionFileError
from workbench.sessions import (
    load_session,
    parse_session_bytes,
    parse_session_text,
    session_info,
)


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_v1_linear_file_gets_ids_and_chain_in_memory_only(fixture_path, tmp_path):
    path = tmp_path / "v1.jsonl"
    shutil.copy(fixture_path("v1_linear.jsonl"), path)
    before = _digest(path)
    session = load_session(path)
    assert _digest(path) == before  # never written
    assert session.version == 1
    assert session.header["version"] == 3
    ids = [e.id for e in session.entries]
    assert len(set(ids)) == 5 and all(len(i) == 8 for i in ids)
    assert [e.parent_id for e in session.entries] == [None, *ids[:-1]]
    assert [e.line for e in session.entries] == [2, 3, 4, 5, 6]
    # firstKeptEntryIndex 2 indexes the parsed list with the header at 0: the assistant entry.
    compaction = session.entries[2]
    assert compaction.obj["firstKeptEntryId"] == ids[1]
    assert "firstKeptEntryIndex" not in compaction.obj
    assert "firstKeptEntryIndex" in compaction.raw  # raw stays verbatim
    # v2→v3: hookMessage becomes custom in the migrated view.
    assert session.entries[3].role == "custom"
    assert session.entries[3].raw["message"]["role"] == "hookMessage"


def test_v1_ids_are_stable_across_loads(fixture_path):
    a = load_session(fixture_path("v1_linear.jsonl"))
    b = load_session(fixture_path("v1_linear.jsonl"))
    assert [e.id for e in a.entries] == [e.id for e in b.entries]


def test_title_slot_overrides_header_title(fixture_path):
    session = load_session(fixture_path("title_slot.jsonl"))
    assert session.title == "Rate limit question"
    assert session.header["title"] == "Old title"
    assert session.entries[0].line == 3  # slot on line 1, header on line 2
    # The fixture's made-up entry type is the only thing reported.
    assert [(d.line, d.kind) for d in session.diagnostics] == [(7, "unknown-type")]
    info = session_info(fixture_path("title_slot.jsonl"))
    assert (info.id, info.title, info.title_source, info.version, info.cwd) == (
        "sess-1", "Rate limit question", "user", 3, "/proj")


def test_unknown_entry_types_are_kept(fixture_path):
    session = load_session(fixture_path("title_slot.jsonl"))
    assert [e.type for e in session.entries][-2:] == ["ttsr_injection", "future_entry"]
    assert session.entries[-1].raw["payload"] == 1
    assert session.leaf_id == "f1"


def test_broken_line_is_reported_and_skipped(fixture_path):
    session = load_session(fixture_path("broken_line.jsonl"))
    assert [e.id for e in session.entries] == ["u1", "a1"]
    [diag] = session.diagnostics
    assert (diag.line, diag.kind) == (3, "malformed")
    assert diag.path.endswith("broken_line.jsonl")


def test_two_objects_on_one_line_are_kept_aside(fixture_path):
    session = load_session(fixture_path("two_objects_line.jsonl"))
    assert [e.id for e in session.entries] == ["u1", "u3"]
    assert [(d.line, d.kind) for d in session.diagnostics if d.kind == "two-objects"] == [(3, "two-objects")]
    assert [n.raw["id"] for n in session.not_loaded] == ["a1", "u2"]
    assert all(n.line == 3 for n in session.not_loaded)
    # u3's parent a1 was on the skipped line: it is an orphan now, and says so.
    assert any(d.kind == "missing-parent" and d.line == 4 for d in session.diagnostics)


def test_truncated_last_line(fixture_path):
    session = load_session(fixture_path("truncated_last_line.jsonl"))
    assert [e.id for e in session.entries] == ["u1"]
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "truncated")]


def test_invalid_utf8_is_replaced_and_reported(fixture_path):
    session = load_session(fixture_path("invalid_utf8.jsonl"))
    assert [e.id for e in session.entries] == ["u1", "a1"]
    assert "\ufffd" in session.entries[0].message["content"]
    assert [(d.line, d.kind) for d in session.diagnostics] == [(2, "invalid-utf8")]


def test_cycle_and_missing_parent_are_diagnosed(fixture_path):
    cyc = load_session(fixture_path("cycle.jsonl"))
    assert [d.kind for d in cyc.diagnostics] == ["cycle"]
    miss = load_session(fixture_path("missing_parent.jsonl"))
    assert [(d.line, d.kind) for d in miss.diagnostics] == [(4, "missing-parent")]


def test_duplicate_id_later_wins(fixture_path):
    session = load_session(fixture_path("duplicate_id.jsonl"))
    assert len(session.entries) == 3
    assert session.by_id["a1"].line == 4
    assert [(d.line, d.kind) for d in session.diagnostics] == [(4, "duplicate-id")]


def test_not_a_session_names_the_file(fixture_path):
    with pytest.raises(SessionFileError) as err:
        load_session(fixture_path("not_a_session.jsonl"))
    assert "not_a_session.jsonl" in str(err.value) and "not a session" in str(err.value)


@pytest.mark.parametrize("text", ["", "\n\n", "not json\n", "[1,2]\n"])
def test_empty_or_garbage_is_not_a_session(text):
    with pytest.raises(SessionFileError):
        parse_session_text(text, path="x.jsonl")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(SessionFileError, match="not found"):
        load_session(tmp_path / "nope.jsonl")
    with pytest.raises(SessionFileError, match="directory"):
        load_session(tmp_path)


def test_non_object_record_and_missing_id_do_not_crash():
    text = "\n".join([
        json.dumps({"type": "session", "id": "s", "version": 3}),
        "42",
        json.dumps({"type": "message", "parentId": None, "message": {"role": "user", "content": "x"}}),
        json.dumps({"type": "message", "id": "b", "parentId": None, "timestamp": "t", "message": "nonsense"}),
        "{\"type\":\"message\",\"id\":\"c\",\"parentId\":null,\"x\":NaN}",
    ]) + "\n"
    session = parse_session_text(text, path="odd.jsonl")
    kinds = [(d.line, d.kind) for d in session.diagnostics]
    assert (2, "not-object") in kinds and (3, "missing-id") in kinds and (5, "malformed") in kinds
    assert len(session.entries) == 2
    assert session.entries[1].message is None and session.entries[1].role is None


def test_a_minted_id_avoids_ids_of_records_after_it():
    # Entries are made as lines are parsed: the id minted for line 3 must still avoid the id a later
    # line holds (the first candidate), so that later line's id stays its own.
    import hashlib

    taken = hashlib.sha1(b"s:3:missing:0").hexdigest()[:8]
    text = "\n".join([
        json.dumps({"type": "session", "id": "s", "version": 3}),
        json.dumps({"type": "message", "id": "a", "parentId": None, "message": {"role": "user", "content": "x"}}),
        json.dumps({"type": "message", "parentId": "a", "message": {"role": "user", "content": "y"}}),
        "[1]",
        json.dumps({"type": "message", "id": taken, "parentId": "a", "message": {"role": "user", "content": "z"}}),
    ]) + "\n"
    session = parse_session_text(text, path="minted.jsonl")
    minted = session.entries[1].id
    assert minted != taken and len(minted) == 8 and [e.id for e in session.entries] == ["a", minted, taken]
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "missing-id"), (4, "not-object")]
    assert session.by_id[taken].line == 5


def test_crlf_and_blank_lines_parse_like_the_agent():
    text = '\n{"type":"session","version":3,"id":"abc","timestamp":"t","cwd":"/tmp"}\r\n\r\n' \
        '{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi"}}\r\n\n'
    session = parse_session_text(text, path="crlf.jsonl")
    assert [e.id for e in session.entries] == ["1"]
    assert session.diagnostics == ()


def test_bytes_with_bom():
    data = b"\xef\xbb\xbf" + b'{"type":"session","id":"s","version":3}\n'
    assert parse_session_bytes(data, path="bom.jsonl").id == "s"


def test_session_name_is_last_truthy_session_info():
    lines = [{"type": "session", "id": "s", "version": 3},
             {"type": "session_info", "id": "i1", "parentId": None, "timestamp": "t", "name": "first"},
             {"type": "session_info", "id": "i2", "parentId": "i1", "timestamp": "t", "name": "second"},
             {"type": "session_info", "id": "i3", "parentId": "i2", "timestamp": "t", "name": ""}]
    session = parse_session_text("".join(json.dumps(o) + "\n" for o in lines), path="n.jsonl")
    assert session.name == "second"


def test_title_slot_with_other_key_order_and_invalid_slot():
    header = json.dumps({"type": "session", "id": "s", "version": 3, "title": "from header"})
    slot = json.dumps({"v": 1, "type": "title", "title": "from slot", "updatedAt": "2026-07-01T00:00:00Z", "pad": "  "})
    assert parse_session_text(slot + "\n" + header + "\n", path="a.jsonl").title == "from slot"
    empty = json.dumps({"type": "title", "v": 1, "title": "", "updatedAt": "x", "pad": ""})
    assert parse_session_text(empty + "\n" + header + "\n", path="b.jsonl").title is None
    bad = json.dumps({"type": "title", "v": 2, "title": "t", "updatedAt": "x", "pad": ""})
    session = parse_session_text(bad + "\n" + header + "\n", path="c.jsonl")
    assert session.title == "from header"
    assert [(d.line, d.kind) for d in session.diagnostics] == [(1, "title-slot")]
