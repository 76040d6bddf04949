"""What an edit did, per edit mode: the removed and added lines of each file, from the call alone."""

from __future__ import annotations

import pytest

from workbench.edits import edit_diff, line_diff
from workbench.edits.diff import NO_OLD_HASHLINE, NO_OLD_WRITE


def _rows(diff, path=None):
    f = diff.files[0] if path is None else next(f for f in diff.files if f.path == path)
    return [(line.kind, line.text) for line in f.lines]


def test_replace_is_a_line_diff_of_old_and_new():
    d = edit_diff("edit", {"path": "a.py", "old_string": "x = 1\ny = 2\nz = 3\n", "new_string": "x = 1\ny = 20\nz = 3\n"})
    assert d.mode == "replace" and d.files[0].path == "a.py" and d.files[0].old_known
    assert _rows(d) == [("context", "x = 1"), ("removed", "y = 2"), ("added", "y = 20"), ("context", "z = 3")]
    assert (d.files[0].added, d.files[0].removed) == (1, 1)


def test_pis_edit_tool_is_a_line_diff_of_its_old_and_new_text():
    # pi's edit tool is {path, oldText, newText} (every edit call of a pi session): the same diff as
    # omp's replace, not an empty file part
    d = edit_diff("edit", {"path": "/w/a.ts", "oldText": "a\n  get m(): M[];\nb", "newText": "a\n  get m(): AM[];\nb"})
    assert d.mode == "replace" and d.files[0].path == "/w/a.ts" and d.files[0].old_known
    assert _rows(d) == [("context", "a"), ("removed", "  get m(): M[];"), ("added", "  get m(): AM[];"), ("context", "b")]
    # a new text alone (the old one not streamed yet) is all added lines
    assert _rows(edit_diff("edit", {"path": "a.ts", "newText": "x"})) == [("added", "x")]


def test_replace_batch_form_marks_each_replacement():
    d = edit_diff("edit", {"path": "a.py", "edits": [{"old_string": "a", "new_string": "b"},
                                                     {"old_string": "c", "new_string": "d", "replace_all": True}]})
    assert _rows(d) == [("hunk", "replacement 1"), ("removed", "a"), ("added", "b"),
                        ("hunk", "replacement 2 (every occurrence)"), ("removed", "c"), ("added", "d")]


def test_patch_reads_the_unified_rows_and_the_file_operations():
    d = edit_diff("edit", {"path": "u.py", "edits": [{"diff": "--- a/u.py\n+++ b/u.py\n@@ def f():\n-    return 1\n+    return 2\n     pass"}]})
    assert d.mode == "patch"
    assert _rows(d) == [("hunk", "@@ def f():"), ("removed", "    return 1"), ("added", "    return 2"), ("context", "    pass")]
    created = edit_diff("edit", {"path": "n.py", "edits": [{"op": "create", "diff": "a\nb\n"}]})
    assert created.files[0].change == "add" and _rows(created) == [("added", "a"), ("added", "b")]
    moved = edit_diff("edit", {"path": "o.py", "edits": [{"rename": "p.py"}]})
    assert (moved.files[0].change, moved.files[0].to) == ("move", "p.py")
    assert edit_diff("edit", {"path": "d.py", "edits": [{"op": "delete"}]}).files[0].change == "delete"


def test_apply_patch_gives_one_part_per_file():
    payload = ("*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** Update File: src/app.py\n*** Move to: src/main.py\n"
               "@@ def greet():\n-print('Hi')\n+print('Hello')\n*** Delete File: old.txt\n*** End Patch")
    d = edit_diff("apply_patch", {"input": payload})
    assert d.mode == "apply_patch"
    assert [(f.path, f.change, f.to) for f in d.files] == [("hello.txt", "add", None), ("src/app.py", "move", "src/main.py"),
                                                           ("old.txt", "delete", None)]
    assert _rows(d, "hello.txt") == [("added", "Hello")]
    assert _rows(d, "src/app.py") == [("hunk", "@@ def greet():"), ("removed", "print('Hi')"), ("added", "print('Hello')")]


def test_hashline_shows_anchors_and_new_lines_and_says_the_old_text_is_not_known():
    payload = "*** Begin Patch\n[src/a.ts#1A2B]\nPUT 3.=4:\n+three\n++plus\nCUT 7.=9 @moved\nPUT >$:\n+tail\n[b.ts]\nREM\n*** End Patch"
    d = edit_diff("edit", {"input": payload})
    assert d.mode == "hashline"
    a = d.files[0]
    assert a.path == "src/a.ts" and not a.old_known and a.note == NO_OLD_HASHLINE and a.removed == 0
    kinds = _rows(d)
    assert kinds[0][0] == "hunk" and "replaces lines 3–4" in kinds[0][1]
    assert kinds[1:3] == [("added", "three"), ("added", "+plus")]
    assert "deletes lines 7–9, kept as @moved" in kinds[3][1] and "appends at the end" in kinds[4][1]
    assert kinds[5] == ("added", "tail")
    assert (d.files[1].path, d.files[1].change) == ("b.ts", "delete")


@pytest.mark.parametrize(("op", "words"), [("PUT <5:", "inserts before line 5"), ("PUT >5:", "inserts after line 5"),
                                           ("PUT 5*:", "replaces the block at line 5"),
                                           ("PUT >5 @r", "pastes @r after line 5")])
def test_hashline_ops_in_words(op, words):
    d = edit_diff("edit", {"input": f"[x.py]\n{op}\n+y"})
    assert words in d.files[0].lines[0].text


def test_sloppy_find_replace_and_insert():
    payload = "*** Edit File: s.py\n*** Find\nold()\n*** Replace\nnew()\n*** Find\nanchor\n*** Insert After\nadded\n"
    d = edit_diff("edit", {"input": payload})
    assert d.mode == "sloppy"
    assert _rows(d) == [("removed", "old()"), ("added", "new()"), ("context", "anchor"), ("added", "added")]
    before = edit_diff("edit", {"input": "*** Edit File: t.py\n*** Find\nhere\n*** Insert Before\nfirst"})
    assert _rows(before) == [("added", "first"), ("context", "here")]


def test_write_is_the_whole_new_content_with_a_note():
    d = edit_diff("write", {"path": "w.txt", "content": "one\ntwo\n"})
    f = d.files[0]
    assert (d.tool, f.change, f.old_known, f.note) == ("write", "write", False, NO_OLD_WRITE)
    assert _rows(d) == [("added", "one"), ("added", "two")]


def test_other_tools_and_odd_arguments_give_no_diff():
    assert edit_diff("read", {"path": "x"}) is None
    assert edit_diff("edit", "not an object") is None
    assert edit_diff("edit", {"input": ""}).files == ()  # nothing named yet


def test_a_set_mode_is_honoured():
    payload = {"input": "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}
    assert edit_diff("edit", payload).mode == "apply_patch"
    assert edit_diff("edit", payload, edit_mode="hashline").mode == "hashline"


def test_line_diff_and_the_text_form():
    assert [r.kind for r in line_diff("a\nb", "a\nc")] == ["context", "removed", "added"]
    d = edit_diff("edit", {"path": "a", "old_string": "x", "new_string": "y"})
    assert d.files[0].text() == "-x\n+y"
    h = edit_diff("edit", {"input": "[a]\nPUT 1.=1:\n+z"})
    assert h.files[0].text().startswith("@@ PUT 1.=1:") and h.files[0].text().endswith("\n+z")
    assert d.to_json()["files"][0]["lines"] == [{"kind": "removed", "text": "x"}, {"kind": "added", "text": "y"}]
