"""The app replays as ``workbench replay`` does: the agent from the session (``agents:`` rules) and
the Stepper's settings from the project's config layers, with a choice made in the UI above them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from workbench.replay import Stepper, derive_stream, run_session
from workbench.sessions import load_session
from workbench.ui.roots import ServedRoots
from workbench.ui.state import AppState
from workbench.ui.stepper_view import StepperView

ROOT = Path(__file__).resolve().parents[2]
SUBAGENT = ROOT / "sample_sessions" / "omp18-subagent.jsonl"
# the subagent's last reply says "One place left"; one rule is for scout (the session's agent), one not
RULES = {
    "for-scout": "---\ndescription: scout only\ncondition: \"One place left\"\nagents: [scout]\n---\nscout body\n",
    "for-reviewer": "---\ndescription: reviewer only\ncondition: \"One place left\"\nagents: [reviewer]\n---\nr\n",
    "for-all": "---\ndescription: every agent\ncondition: \"One place left\"\n---\nall body\n",
}


def _project(tmp_path: Path, config: str | None = None) -> Path:
    project = tmp_path / "project"
    (project / ".omp" / "rules").mkdir(parents=True)
    for name, text in RULES.items():
        (project / ".omp" / "rules" / f"{name}.md").write_text(text)
    if config is not None:
        (project / ".omp" / "config.yml").write_text(config)
    return project


def _state(tmp_path: Path, project: Path, **params) -> AppState:
    session = tmp_path / SUBAGENT.name
    shutil.copy(SUBAGENT, session)
    state = AppState(ServedRoots.of([tmp_path]), tab="stepper", **params)
    state.param.update(session=state.roots.display(session), rules_dir=state.roots.display(project))
    return state


def _fired(events) -> set[str]:
    return {name for ev in events if ev.type == "ttsr_triggered" for name in ev.rules} if events and hasattr(
        events[0], "type") else {name for ev in events if ev["type"] == "ttsr_triggered" for name in ev["rules"]}


def _cli_replay(source: Path, project: Path, *extra: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "workbench", "replay", str(source), "--rules", str(project),
                          "--json", *extra], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "HOME": str(project.parent / "home"), "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


def test_the_config_for_a_subagent_session_carries_its_agent(tmp_path):
    project = _project(tmp_path)
    state = _state(tmp_path, project)
    session = load_session(state.session_path())
    stream = derive_stream(session, policy=state.chunking)
    assert state.agent_of(session) == {"name": "scout", "source": "session",
                                       "why": "session_init entry names the agent"}
    assert state.replay_config(stream, session).agent == "scout"
    assert state.replay_config(stream, None).agent == "main"  # a recorded stream file: no session, main
    state.agent = "reviewer"  # the Agent box, as --agent
    assert state.replay_config(stream, session).agent == "reviewer"


def test_agents_rules_fire_in_the_app_as_in_workbench_replay(tmp_path):
    project = _project(tmp_path)
    state = _state(tmp_path, project)
    session = load_session(state.session_path())
    stream = derive_stream(session, policy=state.chunking)
    app = _fired(run_session(stream, state.rule_set().rules(), state.replay_config(stream, session)).events)
    cli = _cli_replay(state.session_path(), project)
    assert cli["agent"]["name"] == "scout"
    assert app == _fired(cli["events"])
    assert "for-scout" in app and "for-reviewer" not in app and "for-all" in app
    # the Stepper the page builds says which agent and why, and replays the same way
    view = StepperView(state=state)
    assert isinstance(view.stepper, Stepper) and view.stepper.config.agent == "scout"
    fired = {n for snap in view.stepper.snapshots() for ev in snap.events if ev.type == "ttsr_triggered" for n in ev.rules}
    assert fired == app
    assert "agent: <b>scout</b> (from session_init)" in view.position.object
    # --agent reviewer and the Agent box agree too
    state.agent = "reviewer"
    flipped = _fired(run_session(stream, state.rule_set().rules(), state.replay_config(stream, session)).events)
    assert flipped == _fired(_cli_replay(state.session_path(), project, "--agent", "reviewer")["events"])
    assert "for-reviewer" in flipped and "for-scout" not in flipped


def test_the_agent_name_shown_is_escaped(tmp_path):
    project = _project(tmp_path)
    state = _state(tmp_path, project, agent="<img src=x>")
    view = StepperView(state=state)
    assert "<img src=x>" not in view.position.object and "&lt;img src=x&gt;" in view.position.object


def test_the_settings_start_from_the_projects_config_and_a_ui_choice_wins(tmp_path):
    project = _project(tmp_path, "ttsr:\n  contextMode: keep\n  repeatMode: after-gap\n  repeatGap: 4\n"
                                 "  disabledRules: [for-all]\n")
    state = _state(tmp_path, project)
    assert (state.context_mode, state.repeat_mode, state.repeat_gap) == ("keep", "after-gap", 4)
    settings = state.settings()
    assert (settings.context_mode, settings.repeat_mode, settings.repeat_gap) == ("keep", "after-gap", 4)
    assert list(settings.disabled_rules) == ["for-all"]
    layers = state.agent_settings()
    config = str(project / ".omp" / "config.yml")
    assert (layers.get("contextMode").source, layers.get("contextMode").file) == ("project", config)
    assert layers.get("interruptMode").source == "default"
    # the disabled rule does not fire in the app's replay, as in workbench replay on the same project
    session = load_session(state.session_path())
    stream = derive_stream(session, policy=state.chunking)
    app = _fired(run_session(stream, state.rule_set().rules(), state.replay_config(stream, session)).events)
    assert app == _fired(_cli_replay(state.session_path(), project)["events"])
    assert "for-all" not in app and "for-scout" in app
    # a choice in the UI is above the file (as a flag is), and stays when the files are read again
    state.context_mode = "discard"
    state.rules_revision += 1
    assert state.context_mode == "discard" and state.settings().context_mode == "discard"
    assert state.agent_settings().get("contextMode").source == "flag"
    assert state.settings().repeat_gap == 4  # the settings not chosen still follow the file
    view = StepperView(state=state)
    note = view.position.object
    assert "contextMode &quot;discard&quot; (chosen here)" in note or 'contextMode "discard" (chosen here)' in note
    assert f"repeatGap 4 (project: {config})" in note


def test_a_constructor_setting_counts_as_chosen(tmp_path):
    project = _project(tmp_path, "ttsr:\n  contextMode: keep\n")
    state = _state(tmp_path, project, context_mode="discard")
    assert state.context_mode == "discard" and state.settings().context_mode == "discard"


def test_the_rules_tab_lists_the_buckets_for_the_replays_agent(tmp_path):
    from workbench.ui.rules_view import RulesView

    project = _project(tmp_path, "ttsr:\n  contextMode: keep\n")
    state = _state(tmp_path, project)
    StepperView(state=state)  # builds the page's replay, which the Rules tab reads
    state.tab = "rules"
    view = RulesView(state=state)
    summary = view.summary.object
    assert "agent <b>scout</b>" in summary
    dropped = summary.split("Dropped")[1]
    assert "for-reviewer" in dropped and "for-scout" not in dropped
    assert "chosen here" not in summary  # nothing chosen yet: the file's value, with its file
    state.context_mode = "discard"
    view.refresh()
    assert "chosen here (UI)" in view.summary.object


def test_a_rules_link_to_a_missing_folder_leaves_the_settings_and_raises_nothing(tmp_path):
    # seeding runs in a watcher while a link's query is applied: a bad `rules=` must not become a
    # traceback in the page (the Stepper names the folder instead)
    project = _project(tmp_path, "ttsr:\n  contextMode: keep\n")
    state = _state(tmp_path, project)
    before = state.settings()
    assert before.context_mode == "keep"
    state.apply_query({"rules": [b"no-such-folder"]})
    assert state.rules_dir == "no-such-folder"
    assert (state.context_mode, state.repeat_gap) == (before.context_mode, before.repeat_gap)
