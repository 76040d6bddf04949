"""The words of the Problems tab and the tree's status: line numbers, what a click selected, what `all` hides."""

from __future__ import annotations

from pathlib import Path

from workbench.errors import Diagnostic
from workbench.ui.session_doc import SessionDoc, partial_tail_words
from workbench.ui.tree_problems import candidates, pick_note, root_reasons, status_problems
from workbench.ui.tree_view import all_leaves_out, search_selection_note

SAMPLE = Path(__file__).parents[2] / "sample_sessions" / "broken-line.jsonl"


def _doc() -> SessionDoc:
    return SessionDoc(SAMPLE, "omp")


def test_status_names_the_first_problems_with_their_lines():
    diags = list(_doc().session.diagnostics)
    text = status_problems(diags, shown=3)
    assert text.startswith(f"{len(diags)} problem line(s): ")
    for d in diags[:3]:
        assert f"line {d.line} {d.kind}" in text
    assert f"line {diags[3].line}" not in text and f"and {len(diags) - 3} more" in text
    assert status_problems([]) == ""


def test_shown_as_a_root_names_the_entry_that_is_in_the_file():
    doc = _doc()
    ids = {e.id for e in doc.session.entries}
    roots = [d for d in doc.session.diagnostics if d.kind == "missing-parent"]
    assert roots
    for d in roots:
        own = next(e for e in doc.session.entries if e.line == d.line)
        assert f"entry {own.id!r} is shown as a root" in d.message and own.id in ids


def test_a_root_without_a_row_names_the_rows_shown_in_its_place():
    doc = _doc()
    diags = list(doc.session.diagnostics)
    reasons = root_reasons(diags, doc)
    rows = set(doc.tree_list("all", "", None).visible_ids)
    (at, words), = reasons.items()  # line 8's entry has only tool calls; line 12's has a row of its own
    assert diags[at].line == 8 and "db5982c3" in words and "9777a496" in words and "9777a496" in rows
    assert "db5982c3" not in rows
    assert doc.base.rows_in_place_of("db5982c3") == ["9777a496"]
    assert doc.base.rows_in_place_of("f21cbff9") == ["f21cbff9"]
    assert doc.base.rows_in_place_of("nope") == []


def test_candidates_start_on_the_line_then_go_back_then_forward():
    entries = list(_doc().session.entries)
    order = [e.line for e in candidates(entries, 7)]  # line 7 is malformed: no entry of its own
    assert 7 not in order and order[0] == 6 and order[:5] == sorted(order[:5], reverse=True)
    assert order[-1] == max(e.line for e in entries) and len(order) == len(entries)
    assert candidates(entries, 8)[0].line == 8


def test_pick_note_says_why_the_row_is_not_the_lines_own():
    entries = {e.line: e for e in _doc().session.entries}
    skipped = Diagnostic(message="not valid JSON", path=str(SAMPLE), line=7, kind="malformed")
    note = pick_note(skipped, None, entries[6], "all", False)
    assert "line 7 (malformed) has no entry" in note and f"{entries[6].id} on line 6" in note
    assert "filter switched to all" in note
    root = Diagnostic(message="x", path=str(SAMPLE), line=8, kind="missing-parent")
    hidden = pick_note(root, entries[8], entries[6], None, True)
    assert f"its entry {entries[8].id} is an assistant message with only tool calls" in hidden
    assert "filter switched" not in hidden
    own = pick_note(root, entries[8], entries[8], None, False)
    assert own == f"line 8 (missing-parent): selected its entry {entries[8].id}."
    assert "no row to select" in pick_note(root, entries[8], None, None, True)


def test_all_says_what_it_leaves_out():
    doc = _doc()
    everything = doc.tree_list("all", "", None)
    hidden = everything.total - everything.visible_count
    assert hidden > 0  # this sample has tool-call-only assistant messages
    assert f"{hidden:,} tool-call-only assistant message(s) hidden" in all_leaves_out(everything)
    assert all_leaves_out(doc.tree_list("default", "", None)) == ""
    assert all_leaves_out(doc.tree_list("all", "thanks", None)) == ""


def test_a_search_that_keeps_a_later_selection_says_where_it_is_and_why():
    doc = SessionDoc(Path(__file__).resolve().parents[2] / "sample_sessions" / "big-refactor.jsonl", "omp")
    found = doc.tree_list("default", "migrate", None)
    sel = found.selected_index
    assert sel is not None and sel > 0  # the agent's rule: the match nearest the leaf, not the first
    note = search_selection_note(found)
    assert f"match {sel + 1} of {found.visible_count} selected" in note
    assert "as the agent's /tree does" in note and f"{sel} above it" in note
    assert search_selection_note(found.select(found.visible_ids[0])) == ""  # on the first match: nothing to say
    assert search_selection_note(doc.tree_list("default", "", None)) == ""  # no search



def test_a_cut_off_last_line_is_named_by_line_and_column_with_a_note_that_it_may_still_be_written(tmp_path):
    cut = tmp_path / "writing.jsonl"
    cut.write_bytes(SAMPLE.read_bytes().splitlines(keepends=True)[0] + b'{"type":"message","id":"zz","par')
    doc = SessionDoc(cut, "omp")
    assert doc.partial_tail == (2, 29) and not doc.session.diagnostics  # held back, not a problem yet
    assert partial_tail_words(doc.partial_tail) == (
        "line 2 is cut short at column 29 (no newline yet): the file may still be being written; "
        "the line is read when its newline arrives")
