"""SessionDoc: the open file, re-read as an agent appends, partial last lines held back."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from workbench.sessions import loader
from workbench.ui.session_doc import SessionDoc, row_view

FIXTURES = Path(__file__).with_name("fixtures")


def _copy(tmp_path: Path, name: str = "branched.jsonl") -> Path:
    target = tmp_path / name
    shutil.copy(FIXTURES / name, target)
    return target


def _msg(entry_id: str, parent: str, text: str) -> str:
    return json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-05T12:00:00Z",
                       "message": {"role": "user", "content": text}})


def test_rows_split_prefix_from_text(tmp_path):
    doc = SessionDoc(_copy(tmp_path))
    rows = [row_view(r) for r in doc.tree_list("default", "", None).rows()]
    labelled = next(r for r in rows if r.label == "milestone")
    assert labelled.text == "user: try approach A"
    assert labelled.prefix.strip() in ("└─", "├─")
    assert not labelled.active
    assert next(r for r in rows if r.text == "user: try approach B").active


@pytest.fixture(params=["whole", "windows"])
def road(request, monkeypatch):
    """Both ways a file is read: whole (small files) and a window at a time (``FileLines``, big ones)."""
    if request.param == "windows":
        monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
        monkeypatch.setattr(loader, "WINDOW_BYTES", 100)
    return request.param


def test_refresh_follows_appends_and_waits_for_newline(tmp_path, road):
    path = _copy(tmp_path)
    doc = SessionDoc(path)
    n = doc.entry_count
    assert doc.refresh() is False
    line = _msg("n1", "e09", "appended")
    with path.open("a") as fh:
        fh.write(line[:20])
    assert doc.refresh() is False and doc.partial_tail and doc.entry_count == n
    with path.open("a") as fh:
        fh.write(line[20:] + "\n")
    assert doc.refresh() is True and not doc.partial_tail
    assert doc.entry_count == n + 1 and doc.entry("n1") is not None


def test_a_partial_last_line_is_located_as_the_cli_locates_it(tmp_path, road):
    path = _copy(tmp_path)
    lines = path.read_text(encoding="utf-8").count("\n")
    with path.open("a") as fh:
        fh.write('{"type":"message","id":"n1",')
    doc = SessionDoc(path)
    assert doc.partial_tail == (lines + 1, 29)  # the line after the last newline, where its JSON stops
    entries = doc.entry_count
    with path.open("a") as fh:  # more of the same line: the entries stay, the place moves on
        fh.write('"parentId":')
    # `workbench tree` on this file: "line 11, column 40: Expecting value"
    assert doc.refresh() is False and doc.partial_tail == (lines + 1, 40) and doc.entry_count == entries
    lone = tmp_path / "lone.jsonl"  # no newline at all: the one line is read, and reported cut short
    lone.write_text(json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}),
                    encoding="utf-8")
    single = SessionDoc(lone)
    assert single.partial_tail is not None and single.partial_tail[0] == 1
    assert single.session.header["id"] == "s"


def test_filter_search_and_selection_carry_over(tmp_path):
    doc = SessionDoc(_copy(tmp_path))
    tl = doc.tree_list("user-only", "approach", "e05")
    assert tl.selected_id == "e05"
    assert [r.id for r in tl.rows()] == ["e08", "e05"]


def test_context_at_a_leaf(tmp_path):
    doc = SessionDoc(_copy(tmp_path))
    ctx = doc.context("e06")
    assert [m["role"] for m in ctx.messages] == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]


def test_deep_prefixes_are_capped_at_the_inner_levels():
    from workbench.ui.session_doc import cap_prefix

    deep = "│  " * 12 + "├─ "
    capped = cap_prefix(deep, levels=4)
    assert capped == "…  " + "│  " * 2 + "├─ "
    assert cap_prefix("├─ ", levels=4) == "├─ "


def test_omp18_and_auto_flavours_read_the_file_as_the_agent_that_wrote_it():
    from pathlib import Path

    from workbench.ui.session_doc import SessionDoc

    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "omp18-billing.jsonl"
    auto = SessionDoc(sample, "auto")
    auto.refresh()
    assert auto.resolved == "omp18"
    plain = SessionDoc(sample, "omp18")
    plain.refresh()
    assert [r.text for r in plain.base.rows()] == [r.text for r in auto.base.rows()]


def test_a_row_matched_by_hidden_text_says_by_which_words():
    from workbench.ui.session_doc import hidden_match

    output = 'toolResult [{"email": "ada@example.com", "name": "Ada"}, {"email": "Bob@Example.com", "name": "Bob"}]'
    why = hidden_match("[bash: head -c 300 fixtures/users.json]", output, "bob")
    assert "Bob@Example.com" in why and why.startswith("…")
    assert not why.startswith('…a"')  # cut at a word
    # every word on the row: nothing to explain
    assert hidden_match("[bash: head -c 300 fixtures/users.json]", output, "users HEAD") == ""
    # matched but not letter for letter (omp's fuzzy word search): said so
    assert hidden_match("[bash: ls]", "colour", "color") == 'a fuzzy match for "color"'


def test_a_big_session_leaves_its_tool_results_in_the_file_and_shows_the_same(tmp_path, monkeypatch):
    # What the app does to a file of 32 MB or more, on a small one: the tree, the entry, the
    # conversation and the branch usage are those of the session read whole.
    from workbench.sessions import OnDisk
    from workbench.sessions.records import LAZY_LINE_BYTES
    from workbench.sessions.synthetic import generate_session_text
    from workbench.ui.entry_html import conversation_html, entry_html
    from workbench.ui.tree_detail import branch_usage_html, conversation_tail_html

    path = tmp_path / "big.jsonl"
    path.write_text(generate_session_text(300, tool_result_bytes=LAZY_LINE_BYTES), encoding="utf-8")
    whole = SessionDoc(path)
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    left = SessionDoc(path)
    on_disk = [e for e in left.session.entries if type(e.record) is OnDisk]
    assert len(on_disk) > 50 and not any(type(e.record) is OnDisk for e in whole.session.entries)
    for mode in ("default", "no-tools", "all"):
        for query in ("", "module3", "compute"):
            a, b = left.tree_list(mode, query, None), whole.tree_list(mode, query, None)
            assert [r.to_dict() for r in a.rows()] == [r.to_dict() for r in b.rows()]
    for entry in on_disk[::25]:
        assert entry_html(entry.raw, line=entry.line) == entry_html(whole.entry(entry.id).raw, line=entry.line)
        assert conversation_tail_html(left, entry.id) == conversation_tail_html(whole, entry.id)
        assert branch_usage_html(left, entry.id) == branch_usage_html(whole, entry.id)
    leaf = left.leaf()
    assert conversation_html(left.context(leaf).messages) == conversation_html(whole.context(leaf).messages)


def test_a_big_file_opened_again_reads_its_kept_first_pass(tmp_path, monkeypatch):
    # (a big file: every file takes the window road here; the cache is the suite's own, under HOME)
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    monkeypatch.setattr(loader, "WINDOW_BYTES", 1 << 20)
    path = _copy(tmp_path)
    old = path.stat().st_mtime - 60  # written a minute ago: settled, so its pass is kept
    os.utime(path, (old, old))
    passes = []
    real = loader._add_line_starts
    monkeypatch.setattr(loader, "_add_line_starts", lambda *a: (passes.append(a[3]), real(*a)))
    first = SessionDoc(path)
    made = len(passes)
    again = SessionDoc(path)
    assert made and len(passes) == made, "the second open made the first pass again"
    listed = [[row_view(r) for r in d.tree_list("default", "", None).rows()] for d in (first, again)]
    assert listed[0] == listed[1] and listed[0]
    assert again.session.line_offsets == first.session.line_offsets
