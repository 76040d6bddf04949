"""The Entry view's subagent links: a task result's buttons open the children, a child's opens its parent."""

from __future__ import annotations

from tests.sessions.subagent_family import write_family
from workbench.ui.background import Background
from workbench.ui.session_doc import SessionDoc
from workbench.ui.tree_detail import TreeDetail


def _detail(opened: list[str]) -> TreeDetail:
    return TreeDetail(Background(), lambda _: None, on_open=opened.append)


def _buttons(detail: TreeDetail) -> list:
    out = []
    for obj in detail.links.objects:
        out.extend(getattr(obj, "objects", [obj]))
    return [b for b in out if hasattr(b, "clicks")]


def test_a_task_result_opens_its_child_and_the_child_its_parent(tmp_path):
    paths = write_family(tmp_path)
    opened: list[str] = []
    detail = _detail(opened)
    doc = SessionDoc(paths["parent"], "auto")
    detail.show(doc, "r-task")
    [button] = _buttons(detail)
    assert button.label == "↓ Open subagent 0-Scout (scout)"
    notes = " ".join(getattr(o, "object", "") or "" for o in detail.links.objects)
    assert "1 file(s) not found: 1-Gone (reviewer)" in notes and "find the bug" in notes
    button.clicks += 1
    assert opened == [str(paths["child"])]
    detail.show(doc, "u1")
    assert _buttons(detail) == []  # an entry that names no subagent has no links
    child = SessionDoc(paths["child"], "auto")
    detail.show(child, "c2")
    [back] = _buttons(detail)
    assert back.label == "↑ Open parent session support-parent.jsonl"
    back.clicks += 1
    assert opened[-1] == str(paths["parent"])


def test_a_fork_names_its_source_as_forked_from(tmp_path):
    import json

    paths = write_family(tmp_path)
    fork = tmp_path / "fork.jsonl"
    fork.write_text(json.dumps({"type": "session", "version": 3, "id": "F", "cwd": "/", "timestamp": "2026-11-30T11:00:00Z",
                                "parentSession": str(paths["parent"])}) + "\n" + json.dumps(
        {"type": "message", "id": "f1", "parentId": None, "timestamp": "2026-11-30T11:00:01Z",
         "message": {"role": "user", "content": "again"}}) + "\n", encoding="utf-8")
    opened: list[str] = []
    detail = _detail(opened)
    detail.show(SessionDoc(fork, "auto"), "f1")
    notes = " ".join(getattr(o, "object", "") or "" for o in detail.links.objects)
    assert "Forked from <b>support-parent.jsonl</b>" in notes and "subagent's session" not in notes
    [back] = _buttons(detail)
    back.clicks += 1
    assert opened == [str(paths["parent"])]


def test_the_same_links_drawn_again_keep_their_buttons(tmp_path):
    # the entry drawn again (a live session read again) keeps the widgets, so that a click on its way
    # never meets a replaced button; another entry gets its own
    paths = write_family(tmp_path)
    detail = _detail([])
    detail.show(SessionDoc(paths["parent"], "auto"), "r-task")
    [button] = _buttons(detail)
    detail.show(SessionDoc(paths["parent"], "auto"), "r-task")
    assert _buttons(detail) == [button] and _buttons(detail)[0] is button
    detail.show(SessionDoc(paths["parent"], "auto"), "u1")
    assert _buttons(detail) == []
    detail.show(SessionDoc(paths["parent"], "auto"), "r-task")
    [again] = _buttons(detail)
    assert again is not button and again.label == button.label
