"""The Tree tab's detail pane: entry, conversation at the leaf, raw JSON, problems."""

from __future__ import annotations

import shutil
from pathlib import Path

from workbench.ui.background import Background
from workbench.ui.session_doc import SessionDoc
from workbench.ui.tree_detail import TreeDetail, conversation_tail_html

FIXTURES = Path(__file__).with_name("fixtures")


def _doc(tmp_path, name="branched.jsonl") -> SessionDoc:
    shutil.copy(FIXTURES / name, tmp_path / name)
    return SessionDoc(tmp_path / name, "omp")


def test_an_entry_shows_with_its_raw_json_and_the_conversation_at_it(tmp_path):
    picked: list = []
    detail = TreeDetail(Background(), picked.append)
    doc = _doc(tmp_path)
    entry = detail.show(doc, "e09")
    assert entry is not None and entry.id == "e09"
    assert "Approach B" in detail.entry.object and "e09" in detail.raw.object
    assert "message(s) the model would see with <b>e09</b>" in detail.conversation.object


def test_a_deferred_conversation_waits_until_it_is_asked_for(tmp_path):
    detail = TreeDetail(Background(), lambda _: None)
    doc = _doc(tmp_path)
    detail.deferred = True
    detail.show(doc, "e09")
    assert "Building the conversation" in detail.conversation.object
    assert "counting…" in detail.entry.object and "wb-branch-usage\"" not in detail.entry.object
    detail.release(doc, deferred=True)
    assert "message(s) the model would see" in detail.conversation.object
    assert "Usage on this branch" in detail.entry.object and "counting…" not in detail.entry.object
    assert "Approach B" in detail.entry.object  # the card is drawn again with its usage


def test_held_and_deferred_branch_views_wait_for_both_releases(tmp_path):
    """The search index's hold and the first render's deferral are separate waits: the usage and the
    conversation follow only once neither is left, and a release with nothing held builds nothing."""
    detail = TreeDetail(Background(), lambda _: None)
    doc = _doc(tmp_path)
    detail.deferred = detail.held = True
    detail.show(doc, "e09")
    detail.release(doc, held=True)
    assert "Building the conversation" in detail.conversation.object and "counting…" in detail.entry.object
    detail.release(doc, deferred=True)
    assert "message(s) the model would see" in detail.conversation.object
    detail.conversation.object = "kept"
    detail.release(doc, held=True)  # nothing was waiting: no second build
    assert detail.conversation.object == "kept"


def test_no_entry_says_what_to_do_and_clears_the_rest(tmp_path):
    detail = TreeDetail(Background(), lambda _: None)
    assert detail.show(_doc(tmp_path), "no-such-id") is None
    assert "Select an entry" in detail.entry.object and detail.raw.object == detail.conversation.object == ""


def test_the_problems_tab_counts_bad_lines_and_joins_the_page_when_opened(tmp_path):
    detail = TreeDetail(Background(), lambda _: None)
    (tmp_path / "bad.jsonl").write_text((FIXTURES / "branched.jsonl").read_text() + "{not json\n")
    detail.show_problems(SessionDoc(tmp_path / "bad.jsonl", "omp"))
    assert detail.tabs._names[3] == "Problems (1)"
    assert not detail._problems_tab.objects  # not in the page until its tab is opened
    detail.tabs.active = 3
    assert detail.problems.table in detail._problems_tab.select(type(detail.problems.table))
    detail.show_problems(None)
    assert detail.tabs._names[3] == "Problems"


def test_a_long_conversation_draws_only_its_tail(tmp_path, monkeypatch):
    from workbench.ui import tree_detail

    doc = _doc(tmp_path)
    whole = conversation_tail_html(doc, "e09")
    count = len(doc.context("e09").messages)
    assert count > 2 and "not drawn" not in whole
    monkeypatch.setattr(tree_detail, "CONVERSATION_TAIL", 2)
    tail = conversation_tail_html(doc, "e09")
    assert f"… {count - 2:,} earlier message(s) not drawn; the last 2 follow" in tail
    assert len(tail) < len(whole)


def test_the_entry_shows_the_usage_of_its_branch_only(tmp_path):
    detail = TreeDetail(Background(), lambda _: None)
    detail.show(_doc(tmp_path), "e09")
    # root→e09 is e01 e02 e03 e04 e08 e09: assistants e02, e04, e09 (e06 is on the other branch),
    # each 1200 in, 85 out, 1285 total, $0.0049
    html = detail.entry.object
    assert "3 assistant message(s)" in html and "input 3,600" in html and "output 255" in html
    assert "total 3,855" in html and "cost $0.0147" in html


def test_a_result_whose_file_changed_since_it_opened_says_so_instead_of_raising(tmp_path, monkeypatch):
    # a big session's tool results are read back from the file when shown (docs/large-sessions.md)
    from workbench.sessions import OnDisk, loader
    from workbench.sessions.records import LAZY_LINE_BYTES
    from workbench.sessions.synthetic import generate_session_text

    path = tmp_path / "big.jsonl"
    path.write_text(generate_session_text(40, tool_result_bytes=LAZY_LINE_BYTES), encoding="utf-8")
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    doc = SessionDoc(path, "omp")
    left = next(e for e in doc.session.entries if type(e.record) is OnDisk)
    detail = TreeDetail(Background(), lambda _: None)
    assert detail.show(doc, left.id) is left and "wb-pre" in detail.raw.object
    other = next(e for e in doc.session.entries if type(e.record) is OnDisk and e is not left)
    path.write_bytes(path.read_bytes()[:100])  # cut short by someone else
    assert detail.show(doc, other.id) is None
    assert "Cannot show this entry" in detail.entry.object and "became shorter" in detail.entry.object
    assert detail.raw.object == ""
