"""The views driven from Python (no browser): keys, labels, stepping, rule edits, adding paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.errors import AccessError
from workbench.ui import notify
from workbench.ui.app import Server, build_views
from workbench.ui.roots import ServedRoots
from workbench.ui.rules_view import RulesView
from workbench.ui.state import URL_KEYS, AppState
from workbench.ui.stepper_view import StepperView
from workbench.ui.tree_view import TreeView

FIXTURES = Path(__file__).with_name("fixtures")




@pytest.fixture
def tree(served):
    return TreeView.from_path(served / "branched.jsonl")


def _texts(view):
    return [r[4] for r in view.rows.rows]


def test_tree_starts_at_the_leaf_with_rows(tree):
    assert tree.state.leaf == "e09"
    assert "user: try approach B" in _texts(tree)
    assert "e09" in tree.detail.entry.object and "Approach B" in tree.detail.entry.object


def test_keys_from_the_browser_drive_filter_search_and_selection(tree):
    tree._on_message({"kind": "key", "key": "alt+u"})
    assert tree.state.filter == "user-only"
    assert _texts(tree) == ["user: fix the login bug", "user: try approach B", "user: try approach A"]
    tree._on_message({"kind": "key", "key": "arrowup"})
    assert tree.state.leaf == "e01"
    tree._on_message({"kind": "key", "key": "ctrl+o"})
    assert tree.state.filter == "labeled-only"
    tree._on_message({"kind": "key", "key": "alt+d"})
    for ch in "approach":
        tree._on_message({"kind": "type", "text": ch})
    assert tree.state.q == "approach" and tree.search.value == "approach"
    texts = _texts(tree)
    assert texts and all("approach" in t.lower() for t in texts)  # rows are shown, and every one matches
    tree._on_message({"kind": "key", "key": "escape"})
    assert tree.state.q == ""


def test_label_edit_appends_a_label_entry(tree, served):
    tree._on_message({"kind": "label", "id": "e04", "value": "  cause  "})
    last = json.loads((served / "branched.jsonl").read_text().splitlines()[-1])
    assert (last["type"], last["targetId"], last["label"]) == ("label", "e04", "cause")
    row = next(r for r in tree.rows.rows if r[0] == "e04")
    assert row[3] == "cause"


def test_bad_label_target_is_a_notification_not_an_exception(tree):
    tree._on_message({"kind": "label", "id": "nope", "value": "x"})
    assert notify.history()[-1][0] == "error" and "nope" in notify.history()[-1][1]


def test_search_matching_nothing_explains_itself(tree):
    tree.state.q = "zzzzqqq"
    assert tree.rows.rows == [] and "No entries match" in tree.rows.empty_text


def test_flavour_switch_reloads(tree):
    tree.state.flavour = "pi"
    assert tree.doc.flavour == "pi" and tree.rows.rows


def test_stepper_next_trigger_and_both_retries(served):
    view = StepperView.from_paths(served / "project" / "unwrap.stream.jsonl", served / "project")
    view.next_trigger()
    assert view.state.step == 6
    assert "no-unwrap" in view.rules.object and "wb-row-trigger" in view.rules.object
    assert "res.unwrap();" in view.keep.object and "res.unwrap();" not in view.discard.object
    assert "system-interrupt" in view.discard.object
    view.go(-5)
    assert view.state.step == 0
    view.go(10_000)
    assert view.state.step == len(view.stepper) - 1


def test_stepper_next_trigger_while_other_work_runs_says_so(served, monkeypatch):
    from types import SimpleNamespace

    import workbench.ui.replay_model as model

    view = StepperView.from_paths(served / "project" / "unwrap.stream.jsonl", served / "project")
    said = []
    monkeypatch.setattr(model, "notify", lambda text, *args: said.append(text))
    view.replay._task = SimpleNamespace(finished=False, cancelled=False, what="Checking rule time bounds")
    view.next_trigger()
    assert view.state.step == 0  # nothing moved, and the click was answered
    assert said and "Checking rule time bounds" in said[0] and "click again" in said[0]


def test_stepper_derives_a_stream_from_the_open_session(served):
    view = StepperView.from_paths(served / "branched.jsonl", served / "project", chunking="fixed")
    assert view.stepper is not None and len(view.stepper) > 0
    assert "re-chunked by fixed" in view.position.object


def test_stepper_build_reports_phases_then_counted_events(served):
    view = StepperView.from_paths(served / "project" / "unwrap.stream.jsonl", served / "project")
    n = len(view.stepper)
    heard = []
    stepper, _label, error, moved = view.replay._prepare(n - 1, lambda pct, text: heard.append((pct, text)))
    assert error is None and moved is None and len(stepper._snapshots) == n  # the target step is computed up front
    percents = [pct for pct, _ in heard]
    assert percents == sorted(percents) and percents[0] == 0 and percents[-1] == 100
    assert any("time bounds" in text for _, text in heard)
    assert any(f"up to step {n - 1}" in text for _, text in heard)
    assert view.progress.visible is False  # built inline (no server): the bar is not left on screen


def test_rule_edit_reruns_the_stream_and_lists_fires(served):
    view = RulesView.from_folder(served / "project", served / "project" / "unwrap.stream.jsonl")
    view.rule_select.value = "no-any"
    assert "does not fire" in view.fires.object
    view.apply_edit(view.editor.value.replace(':\\\\s*any\\\\b', "let v"))
    assert "fires at" in view.fires.object and "no-any (edited)" in view.summary.object
    assert (served / "project" / ".omp" / "rules" / "no-any.md").read_text().count("any\\\\b") == 1  # file untouched
    view._revert()
    assert "does not fire" in view.fires.object


def test_app_views_share_one_state_and_refuse_outside_paths(served, tmp_path):
    server = Server([served], uploads=False)
    state = server.new_state()
    views = build_views(server, state)
    assert set(views) == {"sessions", "tree", "stepper", "rules", "backtest", "playground", "drafts", "timeline", "usage"}
    assert not any(type(v).__name__ == "Alert" for v in views.values())
    assert {s.path for s in server.catalog.summaries()} == {"branched.jsonl", "script_content.jsonl"}
    (tmp_path / "outside.jsonl").write_text("{}\n")
    with pytest.raises(AccessError):
        state.open_session(tmp_path / "outside.jsonl")
    views["sessions"]._path.value = str(tmp_path / "outside.jsonl")
    views["sessions"]._on_add()
    assert "outside the served folders" in notify.history()[-1][1]


def test_url_keys_cover_the_deep_link_fields():
    assert {"session", "leaf", "filter", "q", "stream", "step"} <= set(URL_KEYS)
    state = AppState(ServedRoots.of([FIXTURES]))
    for name in URL_KEYS.values():
        assert name in state.param


def test_upload_lands_under_the_uploads_root_by_base_name_only(served):
    server = Server([served])
    state = server.new_state()
    view = build_views(server, state)["sessions"]
    data = (served / "branched.jsonl").read_bytes()
    view._upload.param.update(filename=["../../evil.jsonl"], value=[data])
    saved = list(server.upload_dir.rglob("*.jsonl"))
    assert [p.name for p in saved] == ["evil.jsonl"]
    assert saved[0].resolve().is_relative_to(server.upload_dir.resolve())
    assert any(s.path.endswith("evil.jsonl") for s in server.catalog.summaries())


@pytest.mark.parametrize("make", [
    lambda d: TreeView.from_path(d / "branched.jsonl"),
    lambda d: StepperView.from_paths(d / "project" / "unwrap.stream.jsonl", d / "project"),
    lambda d: RulesView.from_folder(d / "project"),
])
def test_views_render_as_notebook_cells(served, make):
    import panel as pn
    from bokeh.document import Document

    view = make(served)
    model = pn.panel(view).get_root(Document())
    assert model is not None and model.id


def test_search_across_sessions_opens_the_hit_in_the_tree(served):
    from types import SimpleNamespace

    server = Server([served], uploads=False)
    state = server.new_state()
    view = build_views(server, state)["sessions"]
    view._search.value = "approach B"
    hits = view._hits.value
    assert list(hits["session"]) and set(hits["session"]) == {"branched.jsonl"}
    first = hits.iloc[0]
    view._on_hit_click(SimpleNamespace(row=0))
    assert (state.session, state.leaf, state.tab) == ("branched.jsonl", str(first["id"]), "tree")


def test_a_file_that_is_not_a_session_is_reported_in_place(served):
    (served / "notes.jsonl").write_text('{"a": 1}\n')
    view = TreeView.from_path(served / "branched.jsonl")
    view.state.session = "notes.jsonl"
    assert view.rows.rows == [] and "Cannot open this session" in view.rows.empty_text
    assert "not a session" in notify.history()[-1][1]
    view.state.session = "branched.jsonl"
    assert view.rows.rows


def test_backtest_counts_hits_and_opens_one_in_the_stepper(served):
    from types import SimpleNamespace

    from workbench.ui.backtest_view import BacktestView

    lines = (served / "branched.jsonl").read_text().splitlines()
    extra = json.loads(lines[-1])
    extra.update(id="u01", parentId="e09", message={"role": "assistant", "stopReason": "stop",
                                                   "content": [{"type": "text", "text": "let v = res.unwrap();"}]})
    extra.pop("targetId", None), extra.pop("label", None)
    extra["type"] = "message"
    (served / "unwrap.jsonl").write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    server = Server([served], uploads=False)
    state = server.new_state()
    state.rules_dir = "project"
    view = BacktestView(state=state, catalog=server.catalog)
    view.run()
    summary = view.summary.value.set_index("rule")
    assert summary.loc["no-unwrap", "sessions"] == 1 and summary.loc["no-unwrap", "turns"] == 1
    assert list(view.hits.value["session"]) == ["unwrap.jsonl"]
    step = int(view.hits.value.iloc[0]["step"])
    view._on_hit_click(SimpleNamespace(row=0))
    assert (state.session, state.step, state.tab, state.stream) == ("unwrap.jsonl", step, "stepper", "")
    stepper = StepperView(state=state)
    assert "no-unwrap" in stepper.stepper.seek(step).matched


def test_page_builds_a_tab_only_when_it_is_first_shown(served):
    import panel as pn

    from workbench.ui.app import build_page

    page = build_page(Server([served], uploads=False))
    try:
        state = page.state
        assert state.tab == "sessions" and set(page.views) == {"sessions"}  # first view: no tree, graph, stepper
        state.tab = "tree"
        assert set(page.views) == {"sessions", "tree"}
        assert page.views["tree"].rows.rows  # built over the open session when opened
        state.tab = "rules"  # the Rules tab re-runs the state's replay model: no Stepper view needed
        assert set(page.views) == {"sessions", "tree", "rules"}
        replay = state.replay
        assert replay is not None and len(replay) > 0
        state.tab = "stepper"  # built after the replay it shows: it draws the one already there
        stepper = page.views["stepper"]
        assert stepper.stepper is replay and state.replay is replay
        assert f"/ {len(replay) - 1} · event" in stepper.position.object and stepper.slider.end == len(replay) - 1
    finally:
        pn.state.kill_all_servers()


def test_rule_editor_shows_a_bad_regex_and_broken_yaml_under_the_editor_naming_the_rule(served):
    view = RulesView.from_folder(served / "project", served / "project" / "unwrap.stream.jsonl")
    view.rule_select.value = "no-any"
    view.apply_edit('---\ndescription: x\ncondition: "(unclosed"\n---\nbody')
    status = view.editor_status.object
    assert "no-any" in status and "(unclosed" in status and "Invalid regular expression" in status
    view.apply_edit("---\ncondition: [unclosed\n---\nbody")
    status = view.editor_status.object
    assert "no-any" in status and "YAML" in status and "line 2" in status
    view._revert()


def test_open_step_in_a_longer_session_is_not_clamped_by_the_shorter_one_on_screen(served):
    # open_step sets step, tab and session in one update; the step watcher runs before the session
    # watcher's rebuild, while the old session's stepper is still installed: it must not clamp the
    # asked-for step to the old stream's last step
    server = Server([served], uploads=False)
    state = server.new_state()
    state.param.update(session="script_content.jsonl", rules_dir="project", tab="stepper")
    view = StepperView(state=state)
    short = len(view.stepper)
    longer = len(StepperView.from_paths(served / "branched.jsonl", served / "project").stepper)
    assert short < longer - 1
    seen: list[int] = []
    state.param.watch(lambda e: seen.append(e.new), "step")
    state.open_step(longer - 1, session="branched.jsonl", stream="")
    assert state.step == longer - 1 and seen == [longer - 1]
    assert len(view.stepper) == longer and f"step <b>{longer - 1}</b>" in view.position.object


def test_every_view_takes_a_batched_update_of_the_state(served):
    # param hands a watcher of several parameters one event per parameter changed in the same update
    # (open_step, a share link): a watcher written for one event raised TypeError with two
    import param

    server = Server([served], uploads=False)
    state = server.new_state()
    views = build_views(server, state)
    state.param.update(session="branched.jsonl", rules_dir="project", tab="rules")
    changes: dict[str, object] = {"session": "script_content.jsonl", "stream": "project/unwrap.stream.jsonl",
                                  "rules_dir": "", "q": "unwrap", "rules_revision": 1, "catalog_revision": 1,
                                  "revision": 1}
    for name, p in state.param.objects("existing").items():
        if isinstance(p, param.Selector) and len(p.objects) > 1:  # every selector moves, tab included
            changes[name] = next(o for o in p.objects if o != getattr(state, name))
    state.param.update(**changes)
    assert {k: getattr(state, k) for k in changes} == changes
    state.open_step(2, session="branched.jsonl", stream="")  # a backtest hit in another session
    assert (state.session, state.stream, state.step, state.tab) == ("branched.jsonl", "", 2, "stepper")
    assert len(views["stepper"].stepper) > 2
