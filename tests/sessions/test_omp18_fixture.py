"""A small file with one of every entry type omp 18.3 writes (``fixtures/omp18_every_type.jsonl``), read
the way omp 18.3 reads it: rows per filter, search, context; expected values recorded from the
reference (``omp18_every_type.expected.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.sessions import build_session_context, detect_flavor, load_session
from workbench.sessions.structure import KNOWN_TYPES18
from workbench.tree import TreeList

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "omp18_every_type.expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def session():
    return load_session(FIXTURES / "omp18_every_type.jsonl")


def test_loads_cleanly_and_reads_as_omp18(session):
    assert session.diagnostics == ()
    assert {e.type for e in session.entries} == set(KNOWN_TYPES18)
    assert session.title == "Every omp 18 entry"
    guess = detect_flavor(session)
    assert guess.flavor == "omp18" and guess.reason == "header field providerPromptCacheKey"


@pytest.mark.parametrize("name", sorted(EXPECTED["filters"]))
def test_rows_per_filter(session, name):
    mode, _, typed = name.partition("+")
    state = TreeList(session, flavor="auto", filter_mode=mode, height=60, width=120, home="/home/u")
    for ch in typed:
        state = state.press(ch)
    want = EXPECTED["filters"][name]
    assert state.lines() == want["lines"]
    assert state.selected_id == want["selected"]


def test_context_at_the_leaf(session):
    ctx = build_session_context(session, flavor="omp18")
    want = EXPECTED["context"]
    keys = ("role", "content", "summary", "customType", "stopReason", "toolCallId", "fromId", "tokensBefore",
            "shortSummary", "method", "tokensAfter", "display", "attribution")
    got = [{k: m[k] for k in keys if m.get(k) is not None} for m in ctx.messages]
    assert got == [{k: v for k, v in m.items() if v is not None} for m in want["messages"]]
    assert (ctx.thinking_level, ctx.configured_thinking_level, ctx.service_tier, ctx.mode) == \
        (want["thinkingLevel"], want["configuredThinkingLevel"], want["serviceTier"], want["mode"])
    assert dict(ctx.models) == want["models"] and list(ctx.injected_ttsr_rules) == want["injectedTtsrRules"]
