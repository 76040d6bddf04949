"""The shared state of one browser session: settings, deep links, and the replay views meet through."""

from __future__ import annotations

from workbench.replay import CHUNK_POLICIES
from workbench.rules import TTSR_DEFAULTS
from workbench.tree import FILTER_MODES
from workbench.ttsr import CONTEXT_MODES, INTERRUPT_MODES, REPEAT_MODES, TtsrSettings
from workbench.ui.roots import ServedRoots
from workbench.ui.state import AppState


def _state(tmp_path, **params):
    return AppState(ServedRoots.of([tmp_path]), **params)


def test_settings_are_one_frozen_ttsr_settings(tmp_path):
    state = _state(tmp_path, interrupt_mode="tool-only", repeat_mode="after-gap", repeat_gap=3)
    settings = state.settings()
    assert isinstance(settings, TtsrSettings)
    # the agent's whole ttsr group (judge included), as ``workbench replay`` builds it from the layers
    assert settings == TtsrSettings.from_mapping({**TTSR_DEFAULTS, "interruptMode": "tool-only",
                                                  "repeatMode": "after-gap", "repeatGap": 3})


def test_the_replay_settings_start_at_the_agents_defaults(tmp_path):
    state = _state(tmp_path)
    chosen = {"contextMode": state.context_mode, "interruptMode": state.interrupt_mode,
              "repeatMode": state.repeat_mode, "repeatGap": state.repeat_gap}
    assert chosen == {k: TTSR_DEFAULTS[k] for k in chosen}


def test_options_come_from_the_one_home_of_each_choice(tmp_path):
    p = _state(tmp_path).param
    assert list(p["interrupt_mode"].objects) == list(INTERRUPT_MODES)
    assert list(p["repeat_mode"].objects) == list(REPEAT_MODES)
    assert list(p["context_mode"].objects) == list(CONTEXT_MODES)
    assert list(p["chunking"].objects) == list(CHUNK_POLICIES)
    assert list(p["filter"].objects) == list(FILTER_MODES)


def test_a_deep_link_sets_what_it_may_and_ignores_bad_values(tmp_path):
    state = _state(tmp_path)
    state.apply_query({"step": [b"12"], "filter": [b"no-tools"], "tab": [b"stepper"], "q": [b"x y"]})
    assert (state.step, state.filter, state.tab, state.q) == (12, "no-tools", "stepper", "x y")
    state.apply_query({"step": [b"-3"], "filter": [b"everything"], "tab": [b"nope"], "leaf": [b""]})
    assert (state.step, state.filter, state.tab) == (12, "no-tools", "stepper")
    state.apply_query({"step": [b"two"]})
    assert state.step == 12


def test_views_meet_through_the_replay_parameter(tmp_path):
    state = _state(tmp_path)
    asked, seen = [], []
    state.param.watch(lambda e: asked.append(True), "replay_wanted")
    state.param.watch(lambda e: seen.append(e.new), "replay")
    state.param.trigger("replay_wanted")
    state.replay = marker = object()
    assert asked == [True] and seen == [marker] and state.replay is marker


def test_no_rule_set_until_one_is_asked_for(tmp_path):
    state = _state(tmp_path)
    assert state.current_rule_set() is None
    made = state.rule_set()
    assert state.current_rule_set() is made
