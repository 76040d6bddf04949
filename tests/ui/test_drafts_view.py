"""The Drafts tab from Python: save an edit after its diff, keep drafts, compare a draft's backtest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from tests.backtest.test_run import text, write_session
from workbench.ui import notify
from workbench.ui.app import Server, build_views
from workbench.ui.drafts_view import CURRENT

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def app(tmp_path):
    target = tmp_path / "served"
    shutil.copytree(FIXTURES, target)
    write_session(target / "expect.jsonl", [[text("I will call cfg.expect('x') here.")], [text("and r.unwrap() too")]])
    server = Server([target], uploads=False)
    state = server.new_state()
    state.rules_dir = "project"
    views = build_views(server, state)
    state.tab = "rules"
    rules = views["rules"]
    rules.rule_select.value = "no-unwrap"
    original = state.rule_set().source_text("no-unwrap")
    rules.apply_edit(original.replace('"\\\\.unwrap\\\\("', '"\\\\.(unwrap|expect)\\\\("'))
    state.tab = "drafts"
    return views["drafts"], state, target, original


def test_save_shows_the_diff_and_writes_only_on_confirm(app):
    view, state, target, original = app
    rule_file = target / "project" / ".omp" / "rules" / "no-unwrap.md"
    assert view.edited.options == ["no-unwrap"]
    view.edited.value = "no-unwrap"
    view.preview_save()
    assert rule_file.read_text(encoding="utf-8") == original
    assert "(unwrap|expect)" in view.diff.object and 'class="del"' in view.diff.object
    view.confirm_save()
    assert "(unwrap|expect)" in rule_file.read_text(encoding="utf-8")
    assert "no-unwrap" not in state.rule_set().overrides  # the file says it now
    assert view.edited.options == []


def test_compare_lists_the_turn_that_newly_fires_with_a_deep_link(app):
    view, state, _, _ = app
    view.compare()
    counts = view.comparison["counts"]
    assert counts == {"newly_fires": 1, "stops_firing": 0, "interrupt_changed": 0}
    row = view.changes.value.iloc[0]
    assert (row["change"], row["session"], row["rule"], row["turn"]) == ("newly fires", "expect.jsonl", "no-unwrap", 0)
    query = parse_qs(row["link"][1:])
    assert query["session"] == ["expect.jsonl"] and query["tab"] == ["stepper"] and query["step"] == [str(row["step"])]
    assert "1 newly fire" in view.status.object

    class Click:
        row = 0

    view._on_change_click(Click())
    assert (state.session, state.step, state.tab) == ("expect.jsonl", int(row["step"]), "stepper")


def test_named_drafts_in_memory_and_under_dot_workbench(app):
    view, state, target, _ = app
    view.draft_name.value = "wider"
    view.keep()
    assert view.draft_select.value == "wider"
    view.draft_name.value = "kept on disk"
    view.persist.value = True
    view.keep()
    stored = json.loads((target / ".workbench" / "drafts" / "kept_on_disk.json").read_text(encoding="utf-8"))
    assert stored["name"] == "kept on disk" and "(unwrap|expect)" in stored["rules"]["no-unwrap"]
    # the draft stays comparable after the edit is reverted in the Rules tab
    state.rule_set().revert("no-unwrap")
    view.draft_select.value = "wider"
    view.compare()
    assert view.comparison["counts"]["newly_fires"] == 1
    view.draft_select.value = CURRENT
    view.compare()
    level, message = notify.history()[-1]
    assert level == "error" and "changes no rule" in message


def test_a_saved_then_opened_change_shows_its_step_not_one_clamped_by_the_old_stream(app):
    # open_step sets step, tab and session in one update: the step watcher ran with the previous
    # session's (shorter) stepper still installed and clamped the step to it, and the tab watcher's
    # rebuild (the save had left the stepper dirty) used up the one-shot goal, so the session
    # watcher's rebuild went back to step 0
    view, state, _, _ = app
    view.compare()
    view.edited.value = "no-unwrap"
    view.preview_save()
    view.confirm_save()
    row = view.changes.value.iloc[0]
    step = int(row["step"])
    seen: list[int] = []
    state.param.watch(lambda e: seen.append(e.new), "step")

    class Click:
        row = 0

    view._on_change_click(Click())
    assert (state.session, state.tab, state.step) == ("expect.jsonl", "stepper", step)
    assert seen == [step]  # never moved elsewhere on the way
    replay = state.replay
    assert replay is not None and "no-unwrap" in replay.seek(step).matched


def test_the_edited_rule_stays_chosen_after_keep_as_draft(app):
    view, state, _, _ = app
    assert view.edited.value == "no-unwrap"  # the only edit is chosen, not a blank select
    view.draft_name.value = "wider"
    view.keep()
    state.tab = "rules"
    state.tab = "drafts"
    assert view.edited.value == "no-unwrap"


def test_changes_table_waits_for_a_comparison_and_says_does_not_fire(app):
    view, _, _, _ = app
    assert not view.changes.visible  # no empty table with a pager before Compare
    view.compare()
    assert view.changes.visible
    # the turn newly fires: under the saved rules the rule did not fire there, said in words
    assert view.changes.value.iloc[0]["interrupts"] in ("does not fire → yes", "does not fire → no")
