"""Loading answers as the agent's loader and SessionManager do (session-loader.ts, session-manager.ts,
session-migrations.ts of omp 18.3.4), and the places where the workbench deliberately differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.deviations import BEHAVIOUR_DEVIATIONS
from workbench.cli import main
from workbench.errors import SessionFileError
from workbench.sessions import SessionTree, build_session_context, load_session, parse_session_text
from workbench.tree import TreeList

ROOT = Path(__file__).resolve().parents[2]
HEADER = {"type": "session", "version": 3, "id": "S", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def _text(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _msg(eid: str, parent: str | None, role: str = "user", text: str = "x", ts: int = 1) -> dict:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-01-01T00:00:{ts:02d}.000Z",
            "message": {"role": role, "content": text, "timestamp": ts}}


UNUSABLE = {
    "empty": ("", "empty-file"),
    "blank-lines": ("\n \n\r\n", "empty-file"),
    "header-less": (_text(_msg("u1", None)), "no-header"),
    "header-without-string-id": (_text({"type": "session", "id": 7}, _msg("u1", None)), "no-header"),
    "malformed-only": ("{not json\n[1,\n", "no-header"),
    "header-after-a-bad-line": ("oops\n" + _text(HEADER, _msg("u1", None)), None),
}


@pytest.mark.parametrize("name", sorted(UNUSABLE))
def test_unusable_text_gives_no_entries_and_says_why(name):
    text, kind = UNUSABLE[name]
    session = parse_session_text(text, path="f.jsonl", strict=False)
    if kind is None:
        # A bad first line is skipped like any bad line: the header after it still counts.
        assert [e.id for e in session.entries] == ["u1"]
        assert [d.kind for d in session.diagnostics] == ["malformed"]
        return
    assert session.entries == () and dict(session.header) == {}
    assert kind in [d.kind for d in session.diagnostics]
    assert SessionTree(session).get_tree() == [] and SessionTree(session).leaf_id is None
    assert build_session_context(session).messages == ()
    assert TreeList(session, flavor="omp18").lines() == ["No entries found", "(0/0)"]
    with pytest.raises(SessionFileError):
        parse_session_text(text, path="f.jsonl")


def test_missing_file_gives_no_entries_unless_strict(tmp_path):
    path = tmp_path / "gone.jsonl"
    session = load_session(path, strict=False)
    assert session.entries == () and [d.kind for d in session.diagnostics] == ["missing-file"]
    with pytest.raises(SessionFileError, match="file not found"):
        load_session(path)
    # A directory is an error in the agent too (EISDIR is rethrown), so it stays one here.
    with pytest.raises(SessionFileError, match="directory"):
        load_session(tmp_path, strict=False)


def test_cli_keeps_the_error_for_an_unusable_file(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for path in (empty, tmp_path / "gone.jsonl"):
        assert main(["tree", str(path)]) != 0
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("error: ") and str(path) in err


def test_every_behaviour_deviation_names_a_test_that_exists():
    for name, entry in BEHAVIOUR_DEVIATIONS.items():
        assert {"reference", "workbench", "why", "test"} <= set(entry), name
        file, _, func = entry["test"].partition("::")
        assert f"def {func}(" in (ROOT / file).read_text(encoding="utf-8"), name


# ----- placement ----------------------------------------------------------------------------------

def test_orphan_and_self_parent_keep_their_parent_id_and_are_roots_in_file_order():
    text = _text(HEADER, _msg("r", None, ts=1), _msg("orphan", "lost", ts=2), _msg("self", "self", ts=3),
                 _msg("kid", "orphan", ts=4))
    session = parse_session_text(text)
    assert [e.parent_id for e in session.entries] == [None, "lost", "self", "orphan"]
    assert [e.raw["parentId"] for e in session.entries] == [None, "lost", "self", "orphan"]
    tree = SessionTree(session)
    assert [n.entry.id for n in tree.get_tree()] == ["r", "orphan", "self"]
    assert [c.entry.id for c in tree.get_tree()[1].children] == ["kid"]
    # getBranch walks parentId until an id is missing or repeats: the orphan's branch starts at itself.
    assert [e.id for e in tree.get_branch("kid")] == ["orphan", "kid"]
    assert [e.id for e in tree.get_branch("self")] == ["self"]
    assert [d.kind for d in session.diagnostics] == ["missing-parent"]


def test_non_string_parent_id_is_kept_as_written_and_reads_as_a_root():
    session = parse_session_text(_text(HEADER, _msg("r", None), {**_msg("n", None), "parentId": 5}))
    entry = session.entries[1]
    assert entry.raw["parentId"] == 5 and entry.parent_id is None
    assert [n.entry.id for n in SessionTree(session).get_tree()] == ["r", "n"]


def test_label_on_a_missing_entry_keeps_its_target():
    label = {"type": "label", "id": "l1", "parentId": "u1", "timestamp": "2026-01-01T00:00:05.000Z",
             "targetId": "ghost", "label": "keep"}
    session = parse_session_text(_text(HEADER, _msg("u1", None), label))
    tree = SessionTree(session)
    assert session.entries[1].target_id == "ghost"
    assert tree.labels == {"ghost": "keep"} and tree.get_label("ghost") == "keep"
    tl = TreeList(session, flavor="omp18", filter_mode="all")
    assert tl.display_text("l1") == "[label: keep]"


def test_duplicate_id_places_the_later_entry_under_both_parents():
    # getTree builds its node map by id: the later entry's node is placed once per entry with that id.
    text = _text(HEADER, _msg("u1", None, ts=1), _msg("a", "u1", "user", "first", ts=2), _msg("u2", "u1", ts=3),
                 _msg("a", "u2", "user", "second", ts=4))
    tree = SessionTree(parse_session_text(text))
    root = tree.get_tree()[0]
    kids = {c.entry.id: c for c in root.children}
    assert set(kids) == {"a", "u2"}
    assert kids["a"].entry.raw["message"]["content"] == "second"
    assert [c.entry.raw["message"]["content"] for c in kids["u2"].children] == ["second"]


# ----- migrations ---------------------------------------------------------------------------------

V1 = [{"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/p"},
      {"type": "message", "timestamp": "t1", "message": {"role": "user", "content": "a", "timestamp": 1}},
      {"type": "message", "timestamp": "t2", "message": {"role": "hookMessage", "customType": "h", "content": "b",
                                                         "display": True, "timestamp": 2}},
      {"type": "compaction", "timestamp": "t3", "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 9}]


def test_v1_migration_ids_are_the_same_on_every_load(tmp_path):
    text = _text(*V1)
    path = tmp_path / "v1.jsonl"
    path.write_text(text, encoding="utf-8")
    loads = [parse_session_text(text), parse_session_text(text, path="other"), load_session(path),
             load_session(path, strict=False)]
    ids = [[e.id for e in s.entries] for s in loads]
    assert all(i == ids[0] for i in ids)
    assert all(len(i) == 8 and all(c in "0123456789abcdef" for c in i) for i in ids[0])
    first = loads[0]
    assert [e.parent_id for e in first.entries] == [None, ids[0][0], ids[0][1]]
    assert first.entries[2].get("firstKeptEntryId") == ids[0][1]
    assert "firstKeptEntryIndex" not in first.entries[2].obj and "firstKeptEntryIndex" in first.entries[2].raw


@pytest.mark.parametrize("version", [None, 1, 2, "2", 2.0])
def test_hook_message_gets_the_custom_role_below_version_3(version):
    header = {**V1[0]} if version is None else {**V1[0], "version": version}
    records = [header, *V1[1:3]]
    if version not in (None, 1):
        records = [header, {**V1[1], "id": "m1", "parentId": None}, {**V1[2], "id": "m2", "parentId": "m1"}]
    session = parse_session_text(_text(*records))
    assert [e.role for e in session.entries] == ["user", "custom"]
    assert session.entries[1].raw["message"]["role"] == "hookMessage"  # the file's text is untouched
    assert session.header["version"] == 3
    context = build_session_context(session, flavor="omp18")
    assert [m["role"] for m in context.messages] == ["user", "custom"]
    if version not in (None, 1):
        assert [e.id for e in session.entries] == ["m1", "m2"]  # v2 files keep their ids


def test_version_3_and_non_numeric_versions_are_not_migrated():
    records = [{**V1[0], "version": 3}, {**V1[2], "id": "m", "parentId": None}]
    assert parse_session_text(_text(*records)).entries[0].role == "hookMessage"
    # "abc" is NaN in JS: neither below 2 nor below 3, so nothing is migrated.
    nan = parse_session_text(_text({**V1[0], "version": "abc"}, {**V1[2], "id": "m", "parentId": None}))
    assert nan.entries[0].role == "hookMessage" and nan.entries[0].id == "m"


def test_newer_version_and_unknown_types_are_flagged():
    records = [{**HEADER, "version": 4}, _msg("u1", None),
               {"type": "context_edit", "id": "c1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z"},
               {"type": "context_edit", "id": "c2", "parentId": "c1", "timestamp": "2026-01-01T00:00:03.000Z"}]
    session = parse_session_text(_text(*records), path="new.jsonl")
    kinds = [(d.line, d.kind) for d in session.diagnostics]
    assert kinds == [(1, "newer-version"), (3, "unknown-type")]
    assert "2 entries" in session.diagnostics[1].message
    assert [e.id for e in session.entries] == ["u1", "c1", "c2"]  # kept and shown
    assert TreeList(session, flavor="omp18", filter_mode="all").display_text("c1") == "[context edit]"


def test_a_plain_string_message_reads_as_the_agent_shows_it_and_is_explained():
    text = _text(HEADER, {"type": "message", "id": "s1", "parentId": None,
                 "timestamp": "2026-01-01T00:00:00Z", "message": "just text"})
    session = parse_session_text(text)
    (diag,) = [d for d in session.diagnostics if d.kind == "message-not-object"]
    assert diag.is_notice and "'just text'" in diag.message and "[undefined]" in diag.message
    assert diag.line == 2
