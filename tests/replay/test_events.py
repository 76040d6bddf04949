"""Replay events and results as JSON (the CLI's ``--json`` shape)."""

from __future__ import annotations

from types import MappingProxyType

from workbench.replay import ReplayEvent, ReplayResult


def test_event_json_always_names_the_delta_and_flattens_detail():
    abort = ReplayEvent(7, "abort", ("a", "b"), delta="rap(", source="text", reason="TTSR matched rules: a, b",
                        detail=MappingProxyType({"dropped_calls": ["t1"]}))
    assert abort.to_json() == {"step": 7, "type": "abort", "rules": ["a", "b"], "delta": "rap(", "source": "text",
                               "reason": "TTSR matched rules: a, b", "dropped_calls": ["t1"]}
    assert ReplayEvent(9, "retry", ("a",)).to_json() == {"step": 9, "type": "retry", "rules": ["a"], "delta": None}


def test_result_json_has_events_injected_and_final_context():
    result = ReplayResult((ReplayEvent(1, "injection", ("a",), content="x"),), ("a",),
                          ({"role": "custom", "content": "x"},), "completed", 2, ())
    out = result.to_json()
    assert out["injected"] == ["a"] and out["final"] == {"context": [{"role": "custom", "content": "x"}]}
    assert [e["type"] for e in out["events"]] == ["injection"] and out["status"] == "completed"
