"""Files read as the agents read them: the one flavour decision per file, a second header, bad lines."""

from __future__ import annotations

import json

import pytest

from workbench.sessions import build_session_context, choose_flavor, parse_session_text
from workbench.tree.treelist import TreeList

V4 = "5b0e2f4c-91d7-4c6a-a3e8-0d7f1b9c2e64"
V7 = "0199b7a2-55e0-7c1d-a4f3-81e9d2b60c47"


def _text(*records: dict, sid: str = "S", **header: object) -> str:
    head = {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p", **header}
    return "\n".join(json.dumps(r) for r in (head, *records)) + "\n"


def _chain(*bodies: dict) -> list[dict]:
    out, parent = [], None
    for i, body in enumerate(bodies, start=1):
        out.append({"id": f"e{i}", "parentId": parent, "timestamp": f"2026-01-01T00:00:{i:02d}.000Z", **body})
        parent = f"e{i}"
    return out


CUSTOM = ({"type": "custom", "customType": "x"}, {"type": "custom", "customType": "y"})


def test_a_pi_file_of_custom_entries_is_pi_by_its_header_id_and_tree_and_context_agree():
    session = parse_session_text(_text(*_chain(*CUSTOM), sid=V4))
    guess = choose_flavor("auto", session)
    assert (guess.flavor, guess.unmarked) == ("pi", False) and "version 4 UUID" in guess.note
    tl = TreeList(session, flavor=guess.flavor)
    ctx = build_session_context(session, flavor=guess.flavor)
    assert tl.leaf_id == ctx.leaf_id == "e2"


@pytest.mark.parametrize(("body", "why"), [
    ({"type": "compaction", "summary": "s", "firstKeptEntryId": "e1", "tokensBefore": 1, "fromHook": True}, "fromHook"),
    ({"type": "usage"}, "usage"),
    ({"type": "context_edit", "targetId": "e1"}, "context_edit"),
    ({"type": "message", "message": {"role": "system", "content": "x"}}, "system"),
])
def test_every_mark_of_pi_counts(body, why):
    guess = choose_flavor("auto", parse_session_text(_text(*_chain({"type": "custom"}, body))))
    assert guess.flavor == "pi" and why in guess.reason and guess.line == 3


def test_no_mark_follows_the_current_release_and_says_so():
    guess = choose_flavor("auto", parse_session_text(_text(*_chain(*CUSTOM))))
    assert guess.flavor == "omp18" and guess.unmarked
    assert guess.note == "detected: no mark: read as omp 18.3 (the current release)"


def test_a_mark_of_omp_without_its_version_reads_as_the_current_release():
    guess = choose_flavor("auto", parse_session_text(_text(*_chain(*CUSTOM), sid=V7)))
    assert guess.flavor == "omp18" and not guess.unmarked and "version 7 UUID" in guess.reason


def test_a_given_flavour_is_the_decision_and_omp17_is_omp():
    session = parse_session_text(_text(*_chain(*CUSTOM), sid=V4))
    assert choose_flavor("omp17", session).flavor == "omp" and choose_flavor("omp17", session).given


def test_a_second_header_is_dropped_with_a_notice_naming_its_line():
    records = _chain({"type": "message", "message": {"role": "user", "content": "a"}})
    second = {"type": "session", "version": 3, "id": "T", "timestamp": "2026-01-02T00:00:00.000Z", "cwd": "/p"}
    later = {"type": "message", "id": "u2", "parentId": "e1", "timestamp": "2026-01-02T00:00:01.000Z",
             "message": {"role": "user", "content": "b"}}
    session = parse_session_text(_text(*records, second, later))
    assert [e.id for e in session.entries] == ["e1", "u2"]
    notes = [d for d in session.diagnostics if d.kind == "second-header"]
    assert [(d.line, "line 3" in d.message) for d in notes] == [(3, True)]


def test_a_second_header_stays_out_of_a_v1_chain():
    text = (json.dumps({"type": "session", "id": "S", "timestamp": "2026-01-01T00:00:00.000Z"}) + "\n"
            + json.dumps({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "a"}}) + "\n"
            + json.dumps({"type": "session", "id": "T", "timestamp": "t"}) + "\n"
            + json.dumps({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "b"}}) + "\n")
    session = parse_session_text(text)
    first, second = session.entries
    assert second.parent_id == first.id


def test_a_cut_last_line_names_one_line_and_column_and_may_still_be_written():
    text = _text(*_chain({"type": "message", "message": {"role": "user", "content": "a"}}))
    session = parse_session_text(text + '{"type":"message","id":"x","par')
    (diag,) = session.diagnostics
    assert diag.kind == "truncated" and diag.line == 3
    assert "line 3, column" in diag.message and "line 1" not in diag.message
    assert "may still be being written" in diag.message


def test_a_bad_middle_line_has_the_file_line_and_no_written_hint():
    lines = _text(*_chain({"type": "custom"}, {"type": "custom"})).splitlines()
    lines[1] = '{"type":"custom", nope}'
    (diag,) = [d for d in parse_session_text("\n".join(lines) + "\n").diagnostics if d.kind == "malformed"]
    assert diag.line == 2 and "at line 2, column 19" in diag.message and "written" not in diag.message


@pytest.mark.parametrize(("flavor", "row"), [("omp", ""), ("pi", ""), ("omp18", "[future entry]")])
def test_an_unknown_entrys_notice_and_its_row_agree(flavor, row):
    session = parse_session_text(_text(*_chain({"type": "future_entry"})))
    (diag,) = [d for d in session.diagnostics if d.kind == "unknown-type"]
    tl = TreeList(session, flavor=flavor, filter_mode="all")
    assert tl.display_text("e1") == row
    said = "is empty" if row == "" else f"reads {row}"
    assert said in diag.message


def test_the_cli_choices_and_the_app_buttons_come_from_one_registry():
    from workbench.sessions.flavors import FLAVOR_BUTTONS, FLAVOR_CHOICES, FLAVOURS, flavour_aliases
    from workbench.tree import REGISTRY

    offered = [f.name for f in FLAVOURS if f.offered]
    assert [f.session for f in REGISTRY] == list(FLAVOURS)  # every version has its selector, in order
    assert set(FLAVOR_BUTTONS) == {*offered, "auto"}
    assert set(FLAVOR_CHOICES) == {*offered, *flavour_aliases(), "auto"}
    assert all(choose_flavor(name).flavor in offered for name in FLAVOR_CHOICES if name != "auto")
