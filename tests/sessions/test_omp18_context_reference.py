"""The omp18 context against omp 18.3.4's own ``buildSessionContext``.

``fixtures/omp18_context_reference.json`` holds sessions (samples, and seeded random trees with
resets, compactions, tool calls with and without results, failed and recovered turns, custom messages,
mode / tier / thinking / model changes) with a leaf, and the context the reference built (its
``meta`` says how it was produced, what was stubbed and which message keys are compared).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.sessions import build_session_context, load_session

HERE = Path(__file__).parent
SAMPLES = HERE.parent.parent / "sample_sessions"
DOC = json.loads((HERE / "fixtures" / "omp18_context_reference.json").read_text(encoding="utf-8"))
KEYS = DOC["meta"]["keys"]


def _project(message: dict) -> dict:
    # undefined fields are absent in the reference's JSON; the workbench may hold them as None.
    return {k: message[k] for k in KEYS if k in message and message[k] is not None}


@pytest.mark.parametrize("index", range(len(DOC["cases"])), ids=lambda i: f"case{i}")
def test_omp18_context_matches_the_reference(index):
    case = DOC["cases"][index]
    entries = list(load_session(SAMPLES / case["sample"]).entries) if "sample" in case else case["entries"]
    args = (case["leafId"],) if "leafId" in case else ()
    ctx = build_session_context(entries, *args, flavor="omp18")
    exp = case["expected"]
    assert [_project(m) for m in ctx.messages] == [_project(m) for m in exp["messages"]]
    assert ctx.thinking_level == exp["thinkingLevel"]
    assert ctx.configured_thinking_level == exp["configuredThinkingLevel"]
    assert ctx.service_tier == exp["serviceTier"]
    assert dict(ctx.models) == exp["models"]
    assert list(ctx.injected_ttsr_rules) == exp["injectedTtsrRules"]
    assert ctx.mode == exp["mode"]
