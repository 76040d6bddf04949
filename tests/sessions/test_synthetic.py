from __future__ import annotations

from workbench.sessions import SessionTree, parse_session_text
from workbench.sessions.synthetic import generate_session_text, time_tree


def test_generated_session_is_a_valid_branched_session():
    session = parse_session_text(generate_session_text(300, branch_every=50), path="gen.jsonl")
    assert len(session.entries) == 300 and session.diagnostics == ()
    tree = SessionTree(session)
    branching = [e.id for e in session.entries if len(tree.get_children(e.id)) > 1]
    assert branching  # side branches exist
    assert tree.labels


def test_time_tree_reports_every_stage():
    figures = time_tree(200)
    assert {"parse_s", "tree_s", "flatten_s", "search_s", "render_s"} <= set(figures)
    assert figures["entries"] == 200 and figures["visible"] > 0
