from __future__ import annotations

from workbench.sessions import SessionTree, parse_session_text
from workbench.sessions.synthetic import generate_session_text


def test_generated_session_is_a_valid_branched_session():
    session = parse_session_text(generate_session_text(300, branch_every=50), path="gen.jsonl")
    assert len(session.entries) == 300 and session.diagnostics == ()
    tree = SessionTree(session)
    branching = [e.id for e in session.entries if len(tree.get_children(e.id)) > 1]
    assert branching  # side branches exist
    assert tree.labels
