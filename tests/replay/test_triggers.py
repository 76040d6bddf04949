"""The interrupt decision of spec §8.3: one interrupting rule makes the whole batch interrupt."""

from __future__ import annotations

import pytest

from tests.replay.conftest import rule
from workbench.replay import ReplayConfig, SimulatedSession

MODES = ("always", "prose-only", "tool-only", "never")


@pytest.mark.parametrize("global_mode", MODES)
@pytest.mark.parametrize("rule_mode", (None, *MODES))
@pytest.mark.parametrize("source", ("text", "thinking", "tool"))
def test_effective_mode_per_source(global_mode, rule_mode, source):
    sim = SimulatedSession([], ReplayConfig.of({"interruptMode": global_mode}, cwd="/proj"))
    mode = rule_mode or global_mode
    expected = mode == "always" or (mode == "prose-only" and source != "tool") or (mode == "tool-only" and source == "tool")
    assert sim.triggers.should_interrupt([rule("r", "x", interrupt_mode=rule_mode)], source) is expected


def test_one_interrupting_rule_interrupts_the_batch():
    sim = SimulatedSession([], ReplayConfig.of({"interruptMode": "never"}, cwd="/proj"))
    quiet, loud = rule("q", "x"), rule("l", "x", interrupt_mode="always")
    assert sim.triggers.should_interrupt([quiet], "text") is False
    assert sim.triggers.should_interrupt([quiet, loud], "text") is True
