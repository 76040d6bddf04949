"""What the loader notes while it reads (``LoadFacts``, ``Session.parent_positions``) gives the answers the
checks and the tree compute on their own: same diagnostics, same forest, on generated files with
orphans, self-parents, forward parents and cycles, duplicate and missing ids, odd messages and types."""

from __future__ import annotations

import json
import random

import pytest

from tests.sessions.generated import tangled_records
from workbench.sessions.forest import build_positions
from workbench.sessions.loader import parse_session_text
from workbench.sessions.structure import odd_messages, structure_diagnostics, unknown_types
from workbench.sessions.tree import SessionTree


def _text(seed: int) -> str:
    rng = random.Random(f"loader-facts-{seed}")
    recs = tangled_records(rng, rng.randint(0, 60), duplicates=seed % 3 == 0, loops=seed % 2 == 0)
    for rec in recs:
        r = rng.random()
        if r < 0.05:
            rec["message"] = "a string"
        elif r < 0.08:
            rec["type"] = "weird_type"
        elif r < 0.1:
            del rec["id"]
        elif r < 0.12:
            rec["parentId"] = 7  # not a string: no parent
    lines = [json.dumps({"type": "session", "version": 3, "id": "s"})] + [json.dumps(r) for r in recs]
    if lines and rng.random() < 0.3:
        lines.insert(rng.randint(1, len(lines)), rng.choice(["[1, 2]", '"text"', "{bad"]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(60))
def test_checks_with_the_loaders_facts_are_the_checks_alone(seed):
    session = parse_session_text(_text(seed))
    entries, by_id = list(session.entries), session.by_id
    alone = (structure_diagnostics(session.path, entries, by_id) + unknown_types(session.path, entries)
             + odd_messages(session.path, entries))
    found = [d for d in session.diagnostics if d.kind in ("missing-parent", "cycle", "unknown-type", "message-not-object")]
    assert found == sorted(alone, key=lambda d: d.line)


@pytest.mark.parametrize("seed", range(60))
def test_forest_from_the_loaders_parents_is_the_looked_up_forest(seed):
    session = parse_session_text(_text(seed))
    entries = list(session.entries)
    assert session.links is not None
    assert build_positions(entries, session.links) == build_positions(entries)
    assert SessionTree(session).positions() == build_positions(entries)
