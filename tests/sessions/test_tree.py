from __future__ import annotations

import pytest

from workbench.errors import NotFoundError
from workbench.sessions import SessionTree, load_session


def _ids(nodes):
    return [(n.entry.id, _ids(n.children)) if n.children else n.entry.id for n in nodes]


def test_leaf_is_last_entry_and_branch_follows_parents(fixture_path):
    tree = SessionTree(load_session(fixture_path("v3_branched_labels.jsonl")))
    assert tree.leaf_id == "l3"
    assert [e.id for e in tree.get_branch()] == ["u1", "a1", "u2b", "a2b", "l1", "l2", "l3"]
    assert [e.id for e in tree.get_branch("a2a")] == ["u1", "a1", "u2a", "a2a"]
    assert tree.get_branch("missing") == []


def test_get_tree_children_by_timestamp_and_labels(fixture_path):
    tree = SessionTree(load_session(fixture_path("v3_branched_labels.jsonl")))
    roots = tree.get_tree()
    assert _ids(roots) == [("u1", [("a1", [("u2a", ["a2a"]), ("u2b", [("a2b", [("l1", [("l2", ["l3"])])])])])])]
    # l3 cleared a1's label (label key absent); u2a keeps plan-a.
    assert tree.labels == {"u2a": "plan-a"}
    assert roots[0].children[0].label is None
    assert roots[0].children[0].children[0].label == "plan-a"


def test_children_sorted_by_timestamp_not_file_order():
    entries = [
        {"type": "message", "id": "r", "parentId": None, "timestamp": "2025-01-01T00:00:01Z", "message": {"role": "user"}},
        {"type": "message", "id": "late", "parentId": "r", "timestamp": "2025-01-01T00:00:30Z", "message": {"role": "user"}},
        {"type": "message", "id": "early", "parentId": "r", "timestamp": "2025-01-01T00:00:10Z", "message": {"role": "user"}},
        {"type": "message", "id": "tie", "parentId": "r", "timestamp": "2025-01-01T00:00:10Z", "message": {"role": "user"}},
    ]
    assert _ids(SessionTree(entries).get_tree()) == [("r", ["early", "tie", "late"])]


def test_orphans_and_self_parent_are_roots_in_file_order(fixture_path):
    tree = SessionTree(load_session(fixture_path("missing_parent.jsonl")))
    assert _ids(tree.get_tree()) == [("u1", ["a1"]), ("o1", ["o2"])]
    selfp = SessionTree([{"type": "x", "id": "s", "parentId": "s", "timestamp": "t"}])
    assert _ids(selfp.get_tree()) == ["s"]


def test_cycle_is_cut_and_everything_stays_reachable(fixture_path):
    tree = SessionTree(load_session(fixture_path("cycle.jsonl")))
    roots = tree.get_tree()
    seen = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        seen.append(node.entry.id)
        stack.extend(node.children)
    assert sorted(seen) == ["c1", "c2", "k", "r"]
    assert roots[0].entry.id == "r"
    # get_branch from inside the loop terminates.
    assert {e.id for e in tree.get_branch("k")} == {"c1", "c2", "k"}


def test_visible_leaf_skips_trailing_label_and_custom(fixture_path):
    tree = SessionTree(load_session(fixture_path("v3_branched_labels.jsonl")))
    assert tree.visible_leaf() == "a2b"
    assert tree.leaf_for_selector("pi") == "l3"


def test_navigate_to_user_message_prefills_editor_and_moves_to_parent(fixture_path):
    tree = SessionTree(load_session(fixture_path("v3_branched_labels.jsonl")), leaf="a2b")
    result = tree.navigate("u2a")
    assert result.new_leaf_id == "a1"
    assert result.editor_text == "branch A question"
    assert result.common_ancestor_id == "a1"
    assert result.entries_to_summarize == ("u2b", "a2b")
    assert result.summary_entry is None
    assert tree.leaf_id == "a2b"  # navigate is pure
    tree.apply_navigation(result)
    assert tree.leaf_id == "a1"


def test_navigate_with_summary_appends_branch_summary_in_memory(fixture_path):
    session = load_session(fixture_path("v3_branched_labels.jsonl"))
    tree = SessionTree(session, leaf="a2b")
    result = tree.navigate("a2a", summary="tried B")
    assert result.new_leaf_id == "a2a" and result.editor_text is None
    assert result.summary_entry["fromId"] == "a2a" and result.summary_entry["parentId"] == "a2a"
    tree.apply_navigation(result)
    leaf = tree.get_leaf_entry()
    assert leaf.type == "branch_summary" and leaf.parent_id == "a2a"
    assert len(session.entries) == 9  # the loaded session itself is untouched
    assert len(tree.entries) == 10


def test_navigate_same_leaf_is_noop_and_unknown_raises(fixture_path):
    tree = SessionTree(load_session(fixture_path("v3_branched_labels.jsonl")))
    assert tree.navigate("l3").no_op
    with pytest.raises(NotFoundError, match="Entry nope not found"):
        tree.navigate("nope")


def test_label_changes_and_branch_errors():
    tree = SessionTree([], leaf=None)
    tree.append({"type": "message", "id": "m", "message": {"role": "user", "content": "x"}})
    tree.append_label_change("m", "keep")
    assert tree.get_label("m") == "keep"
    tree.append_label_change("m", None)
    assert tree.get_label("m") is None
    with pytest.raises(NotFoundError):
        tree.append_label_change("zzz", "x")
    with pytest.raises(NotFoundError):
        tree.branch("zzz")
    tree.reset_leaf()
    root2 = tree.append({"type": "message", "message": {"role": "user", "content": "y"}})
    assert root2.parent_id is None and len(tree.get_tree()) == 2


def test_create_branched_copies_path_and_reemits_labels():
    tree = SessionTree([], leaf=None)
    tree.append({"type": "message", "id": "a", "message": {"role": "user", "content": "x"}})
    tree.append({"type": "message", "id": "b", "message": {"role": "assistant", "content": []}})
    tree.append_label_change("a", "first")
    tree.branch("a")
    tree.append({"type": "message", "id": "c", "message": {"role": "user", "content": "z"}})
    tree.append_label_change("c", "other")
    fork = tree.create_branched("b")
    assert [e.id for e in fork.entries][:2] == ["a", "b"]
    assert [(e.type, e.obj.get("targetId")) for e in fork.entries[2:]] == [("label", "a")]
    assert fork.labels == {"a": "first"}


def test_interactive_navigation_to_visible_leaf_is_noop_for_omp(fixture_path):
    session = load_session(fixture_path("v3_branched_labels.jsonl"))
    assert SessionTree(session, flavor="omp").navigate("a2b", interactive=True).no_op
    assert not SessionTree(session, flavor="pi").navigate("a2b", interactive=True).no_op
    assert not SessionTree(session, flavor="omp").navigate("a2b").no_op


def test_get_children_in_file_order_and_tree_order(fixture_path):
    tree = SessionTree(load_session(fixture_path("v3_branched_labels.jsonl")))
    assert [e.id for e in tree.get_children("a1")] == ["u2a", "u2b"]
    assert [e.id for e in tree.children_in_tree_order("a1")] == ["u2a", "u2b"]
    assert tree.get_children("a2a") == [] and tree.get_children("zzz") == []
    assert tree.children_in_tree_order("zzz") == []


def test_get_children_is_file_order_not_timestamp_order():
    # The agent's getChildren reads its parent index: file order, whatever the timestamps say.
    tree = SessionTree([
        {"type": "message", "id": "r", "parentId": None, "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "message", "id": "late", "parentId": "r", "timestamp": "2026-01-01T00:00:09Z"},
        {"type": "message", "id": "early", "parentId": "r", "timestamp": "2026-01-01T00:00:01Z"},
    ])
    assert [e.id for e in tree.get_children("r")] == ["late", "early"]
    assert [e.id for e in tree.children_in_tree_order("r")] == ["early", "late"]
