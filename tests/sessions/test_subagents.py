"""Subagents: children of a session (named by task results, found in its artifacts folder) and the parent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.sessions.subagent_family import CHILD_USAGE, USAGE, write_family
from workbench.sessions import branch_usage, child_links, entry_links, load_session, parent_file, subagent_files
from workbench.sessions.subagents import artifacts_folder


def test_a_task_result_names_its_children_found_or_not(tmp_path):
    paths = write_family(tmp_path)
    parent = load_session(paths["parent"])
    links = child_links(parent)
    assert [(lk.agent_id, lk.agent, lk.entry_id, lk.found) for lk in links] == [
        ("0-Scout", "scout", "r-task", True), ("1-Gone", "reviewer", "r-task", False)]
    assert links[0].path == paths["child"] and links[0].description == "find the bug"
    assert entry_links(parent, parent.by_id["r-task"]) == links
    assert entry_links(parent, parent.by_id["u1"]) == ()
    assert subagent_files(parent) == [paths["child"]]


def test_the_child_links_back_even_when_the_files_were_moved(tmp_path):
    paths = write_family(tmp_path / "copied")  # the child's parentSession names another machine's path
    assert parent_file(load_session(paths["child"])) == paths["parent"]
    assert parent_file(load_session(paths["parent"])) is None
    moved = tmp_path / "elsewhere"
    shutil.move(str(tmp_path / "copied"), moved)
    child = moved / "support-parent" / "0-Scout.jsonl"
    assert parent_file(load_session(child)) == moved / "support-parent.jsonl"
    assert [lk.path for lk in child_links(load_session(moved / "support-parent.jsonl")) if lk.found] == [child]


def test_a_file_in_the_folder_that_names_another_parent_is_no_child(tmp_path):
    paths = write_family(tmp_path)
    stranger = artifacts_folder(paths["parent"]) / "stranger.jsonl"
    stranger.write_text(json.dumps({"type": "session", "version": 3, "id": "S", "cwd": "/",
                                    "parentSession": "/x/other.jsonl"}) + "\n", encoding="utf-8")
    unnamed = artifacts_folder(paths["parent"]) / "2-Extra.jsonl"
    unnamed.write_text(json.dumps({"type": "session", "version": 3, "id": "E", "cwd": "/",
                                   "parentSession": "sess-parent"}) + "\n", encoding="utf-8")  # named by id
    links = child_links(load_session(paths["parent"]))
    assert [lk.agent_id for lk in links] == ["0-Scout", "1-Gone", "2-Extra"]
    assert links[2].entry_id is None and links[2].path == unnamed


def test_usage_rolls_up_the_children_and_lists_them_apart(tmp_path):
    paths = write_family(tmp_path)
    out = branch_usage(load_session(paths["parent"])).to_json()
    own_messages = 8  # six edits, the read and the task call
    assert out["input"] == own_messages * USAGE["input"] + CHILD_USAGE["input"]
    assert out["cost"] == own_messages * USAGE["cost"]["total"] + CHILD_USAGE["cost"]["total"]
    [child] = out["children"]
    assert (child["id"], child["agent"], child["entryId"], child["input"]) == ("0-Scout", "scout", "r-task", 40)
    assert [m["id"] for m in out["childrenNotFound"]] == ["1-Gone"]
    alone = branch_usage(load_session(paths["parent"]), children=False).to_json()
    assert alone["input"] == own_messages * USAGE["input"] and "children" not in alone
    assert {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "byModel"} <= set(out)


def test_artifacts_folder_is_the_file_without_jsonl():
    assert artifacts_folder("/s/2026_abc.jsonl") == Path("/s/2026_abc")


def test_a_subagent_counts_only_on_the_branches_through_the_result_that_names_it(tmp_path):
    paths = write_family(tmp_path)
    other = {"type": "message", "id": "a-other", "parentId": "r-image", "timestamp": "2026-11-30T10:05:00.000Z",
             "message": {"role": "assistant", "model": "m1", "usage": USAGE, "content": [{"type": "text", "text": "no task"}]}}
    with paths["parent"].open("a", encoding="utf-8") as out:
        out.write(json.dumps(other) + "\n")
    parent = load_session(paths["parent"])
    through = branch_usage(parent, "r-task").to_json()
    assert [c["id"] for c in through["children"]] == ["0-Scout"]
    assert [m["id"] for m in through["childrenNotFound"]] == ["1-Gone"]
    assert through["input"] == 8 * USAGE["input"] + CHILD_USAGE["input"]
    for leaf, own in (("a-other", 8), ("a-task", 8), ("r-image", 7)):
        beside = branch_usage(parent, leaf).to_json()
        assert "children" not in beside and "childrenNotFound" not in beside, leaf
        assert beside["input"] == own * USAGE["input"], leaf
    # without a subagents' folder only the branch's own results are read: the same answers
    shutil.rmtree(paths["child"].parent)
    through = branch_usage(load_session(paths["parent"]), "r-task").to_json()
    assert "children" not in through and [m["id"] for m in through["childrenNotFound"]] == ["0-Scout", "1-Gone"]
    assert "childrenNotFound" not in branch_usage(load_session(paths["parent"]), "a-other").to_json()


def test_a_subagent_file_that_grew_is_read_again(tmp_path):
    paths = write_family(tmp_path)
    first = branch_usage(load_session(paths["parent"])).to_json()["children"][0]
    more = {"type": "message", "id": "c3", "parentId": "c2", "timestamp": "2026-11-30T10:03:04.000Z",
            "message": {"role": "assistant", "model": "m2", "usage": CHILD_USAGE, "content": [{"type": "text", "text": "more"}]}}
    with paths["child"].open("a", encoding="utf-8") as out:
        out.write(json.dumps(more) + "\n")
    again = branch_usage(load_session(paths["parent"])).to_json()["children"][0]
    assert (first["input"], again["input"]) == (CHILD_USAGE["input"], 2 * CHILD_USAGE["input"])
