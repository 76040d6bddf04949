"""The session operations the agent exposes (SessionManager / AgentSession.navigateTree of omp 18.3.4)."""

from __future__ import annotations

import pytest

from workbench.errors import NotFoundError
from workbench.sessions import Entry, SessionTree, build_session_context


def _tree(flavor: str = "omp") -> SessionTree:
    tree = SessionTree([], leaf=None, flavor=flavor)  # type: ignore[arg-type]
    for i, role in enumerate(["user", "assistant", "user", "assistant"], start=1):
        tree.append({"type": "message", "id": f"m{i}", "message": {"role": role, "content": f"t{i}", "timestamp": i}})
    return tree


def test_branch_from_an_entry_and_from_a_given_start():
    tree = _tree()
    assert [e.id for e in tree.get_branch()] == ["m1", "m2", "m3", "m4"]
    assert [e.id for e in tree.get_branch("m2")] == ["m1", "m2"]
    assert tree.get_branch("nope") == []
    assert [e.id for e in tree.get_branch(None)] == ["m1", "m2", "m3", "m4"]  # fromId ?? leafId
    tree.branch("m2")
    assert [e.id for e in tree.get_branch()] == ["m1", "m2"]  # from the (moved) leaf


def test_leaf_entry_is_an_entry():
    tree = _tree()
    leaf = tree.get_leaf_entry()
    assert isinstance(leaf, Entry) and leaf.id == "m4" and leaf.role == "assistant"
    tree.reset_leaf()
    assert tree.get_leaf_entry() is None


def test_branch_summary_with_a_null_root_is_a_new_root():
    tree = _tree()
    entry = tree.branch_with_summary(None, "went back to the start")
    assert entry.parent_id is None and entry.get("fromId") == "root" and tree.leaf_id == entry.id
    assert [n.entry.id for n in tree.get_tree()] == ["m1", entry.id]
    assert [m["role"] for m in build_session_context(tree.entries, tree.leaf_id).messages] == ["branchSummary"]


def test_branching_from_a_missing_id_raises_the_agents_error():
    tree = _tree()
    for call in (lambda: tree.branch("nope"), lambda: tree.create_branched("nope"),
                 lambda: tree.branch_with_summary("nope", "s"), lambda: tree.append_label_change("nope", "x"),
                 lambda: tree.navigate("nope")):
        with pytest.raises(NotFoundError) as err:
            call()
        assert str(err.value) == "Entry nope not found"


def test_create_branched_keeps_the_path_and_its_labels():
    tree = _tree()
    tree.append_label_change("m1", "start")
    tree.append_label_change("m4", "end")
    fork = tree.create_branched("m2")
    assert [e.type for e in fork.entries] == ["message", "message", "label"]
    assert fork.labels == {"m1": "start"} and fork.entries[-1].parent_id == "m2"


@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi"])
def test_navigating_to_the_current_position_is_a_no_op(flavor):
    tree = _tree(flavor)
    result = tree.navigate("m4")
    assert result.no_op and result.leaf_after == "m4"
    assert result.to_dict() == {"cancelled": False}  # the agent returns exactly this
    tree.apply_navigation(result)
    assert tree.leaf_id == "m4" and len(tree.entries) == 4


def test_navigating_to_a_user_prompt_at_the_leaf_rewinds_in_omp18():
    # omp 18: a user prompt is never "already here"; selecting it puts its text back in the editor.
    tree = _tree("omp18")
    tree.branch("m3")
    result = tree.navigate("m3")
    assert not result.no_op and result.new_leaf_id == "m2" and result.editor_text == "t3"
    assert result.to_dict() == {"cancelled": False, "editorText": "t3"}
    assert _tree("omp").navigate("m4").no_op


def test_navigating_to_a_skill_prompt_in_omp18():
    tree = _tree("omp18")
    skill = tree.append({"type": "custom_message", "customType": "skill-prompt", "content": "/skill:tdd go",
                         "display": True, "attribution": "user"})
    other = tree.append({"type": "custom_message", "customType": "note", "content": "hello", "display": True})
    tree.append({"type": "message", "message": {"role": "assistant", "content": "ok", "timestamp": 9}})
    assert tree.navigate(skill.id).editor_text == "/skill:tdd go"  # a user turn: rewinds past it
    assert tree.navigate(skill.id).new_leaf_id == "m4"
    assert tree.navigate(other.id).new_leaf_id == skill.id  # other custom messages rewind too
    agent_skill = tree.append({"type": "custom_message", "customType": "skill-prompt", "content": "x",
                               "display": True, "attribution": "agent"})
    tree.append({"type": "message", "message": {"role": "assistant", "content": "ok", "timestamp": 10}})
    # An agent-invoked skill prompt is neither a user turn nor an ordinary custom message: leaf moves onto it.
    assert tree.navigate(agent_skill.id).new_leaf_id == agent_skill.id
