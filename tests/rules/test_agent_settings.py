"""``read_agent_settings``: the agent's config layers in its order, flags above them, with provenance."""

from __future__ import annotations

import json

from workbench.rules.agent_settings import TTSR_DEFAULTS, read_agent_settings


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_nothing_configured_gives_the_defaults(tmp_path):
    s = read_agent_settings(cwd=tmp_path / "p", home=tmp_path / "h", env={})
    assert s.ttsr_mapping() == TTSR_DEFAULTS
    assert {v.source for v in s.ttsr} == {"default"}
    assert s.value("judge") == "auto"


def test_project_config_yml_beats_project_settings_json_beats_user(tmp_path):
    home, proj = tmp_path / "h", tmp_path / "p"
    _write(home / ".omp/agent/config.yml", "ttsr:\n  repeatGap: 3\n  contextMode: keep\n  repeatMode: after-gap\n")
    _write(proj / ".omp/settings.json", json.dumps({"ttsr": {"repeatGap": 5, "contextMode": "discard"}}))
    _write(proj / ".omp/config.yml", "ttsr:\n  repeatGap: 7\n")
    s = read_agent_settings(cwd=proj, home=home, env={})
    gap, mode, repeat = s.get("repeatGap"), s.get("contextMode"), s.get("repeatMode")
    assert (gap.value, gap.source, gap.file) == (7, "project", str(proj / ".omp/config.yml"))
    assert gap.shadowed == (str(proj / ".omp/settings.json"), str(home / ".omp/agent/config.yml"))
    assert (mode.value, mode.source, mode.file) == ("discard", "project", str(proj / ".omp/settings.json"))
    assert (repeat.value, repeat.source) == ("after-gap", "user")


def test_flags_are_above_every_file_and_none_means_not_given(tmp_path):
    proj = tmp_path / "p"
    _write(proj / ".omp/config.yml", "ttsr:\n  interruptMode: never\n  repeatGap: 2\n")
    s = read_agent_settings(cwd=proj, home=tmp_path / "h", env={},
                            flags={"interruptMode": "tool-only", "repeatGap": None})
    assert (s.value("interruptMode"), s.get("interruptMode").source) == ("tool-only", "flag")
    assert s.get("interruptMode").shadowed == (str(proj / ".omp/config.yml"),)
    assert (s.value("repeatGap"), s.get("repeatGap").source) == (2, "project")


def test_arrays_replace_and_a_null_above_unsets(tmp_path):
    # 18.3.4 merges the layers first: a project null replaces the user's value, and a merged null is unset.
    home, proj = tmp_path / "h", tmp_path / "p"
    _write(home / ".omp/agent/config.yml", "ttsr:\n  disabledRules: [a, b]\n  builtinRules: false\n  repeatGap: null\n")
    _write(proj / ".omp/config.yml", "ttsr:\n  disabledRules: [c]\n  builtinRules: null\n")
    s = read_agent_settings(cwd=proj, home=home, env={})
    assert s.value("disabledRules") == ["c"]
    assert (s.value("builtinRules"), s.get("builtinRules").source) == (True, "default")
    assert (s.value("repeatGap"), s.get("repeatGap").source) == (10, "default")


def test_a_value_of_the_wrong_type_gives_the_default_with_a_warning(tmp_path):
    home, proj = tmp_path / "h", tmp_path / "p"
    _write(home / ".omp/agent/config.yml", "ttsr:\n  enabled: 'yes'\n  repeatGap: '5'\n  judge: maybe\n")
    _write(proj / ".omp/config.yml", "ttsr:\n  disabledRules: style\n  contextMode: keep\n")
    s = read_agent_settings(cwd=proj, home=home, env={})
    assert (s.value("enabled"), s.get("enabled").source) == (True, "user")
    assert (s.value("repeatGap"), s.value("judge"), s.value("disabledRules")) == (10, "auto", [])
    assert s.value("contextMode") == "keep"
    assert len(s.warnings) == 4 and all("is not a valid value" in w for w in s.warnings)


def test_other_tools_project_settings_merge_above_omp(tmp_path):
    # The settings capability's project items in provider order: .omp (100), .claude (80), .cursor (50).
    proj = tmp_path / "p"
    _write(proj / ".omp/config.yml", "ttsr:\n  judge: 'on'\n  repeatGap: 4\n  contextMode: keep\n")
    _write(proj / ".claude/settings.json", json.dumps({"ttsr": {"judge": "off", "repeatGap": 6}}))
    _write(proj / ".cursor/settings.json", json.dumps({"ttsr": {"repeatGap": 8}}))
    _write(proj / ".gemini/settings.json", json.dumps({"ttsr": "not a group"}))
    s = read_agent_settings(cwd=proj, home=tmp_path / "h", env={})
    assert (s.value("judge"), s.get("judge").file) == ("off", str(proj / ".claude/settings.json"))
    assert (s.value("repeatGap"), s.get("repeatGap").file) == (8, str(proj / ".cursor/settings.json"))
    assert s.get("repeatGap").shadowed == (str(proj / ".claude/settings.json"), str(proj / ".omp/config.yml"))
    assert s.value("contextMode") == "keep"  # the non-object ttsr of .gemini is dropped, not merged


def test_an_empty_project_folder_is_not_read_and_a_broken_file_is_a_warning(tmp_path):
    home, proj = tmp_path / "h", tmp_path / "p"
    (proj / ".omp").mkdir(parents=True)
    _write(home / ".omp/agent/config.yml", "ttsr: [unclosed\n")
    s = read_agent_settings(cwd=proj, home=home, env={})
    assert [f.path for f in s.files] == [str(home / ".xcsh/agent/config.yml"), str(home / ".omp/agent/config.yml")]
    assert len(s.warnings) == 1 and str(home / ".omp/agent/config.yml") in s.warnings[0]


def test_seed_folder_is_read_below_omp(tmp_path):
    proj = tmp_path / "p"
    _write(proj / ".xcsh/config.yml", "ttsr:\n  repeatGap: 1\n  repeatMode: after-gap\n")
    _write(proj / ".omp/config.yml", "ttsr:\n  repeatGap: 9\n")
    s = read_agent_settings(cwd=proj, home=tmp_path / "h", env={})
    assert (s.value("repeatGap"), s.get("repeatGap").file) == (9, str(proj / ".omp/config.yml"))
    assert s.get("repeatGap").shadowed == (str(proj / ".xcsh/config.yml"),)
    assert s.get("repeatMode").file == str(proj / ".xcsh/config.yml")


def test_agent_dir_from_environment_and_flat_dotted_keys_are_no_settings(tmp_path):
    agent = tmp_path / "agentdir"
    _write(agent / "config.yml", "ttsr:\n  enabled: false\nttsr.repeatGap: 3\n")
    s = read_agent_settings(cwd=tmp_path / "p", home=tmp_path / "h", env={"PI_CODING_AGENT_DIR": str(agent)})
    assert (s.value("enabled"), s.get("enabled").file) == (False, str(agent / "config.yml"))
    assert (s.value("repeatGap"), s.get("repeatGap").source) == (10, "default")


def test_switches_and_path_scoped_provider_entries(tmp_path):
    home, proj = tmp_path / "h", tmp_path / "p"
    _write(home / ".omp/agent/config.yml",
           "enabledProviders:\n  - cursor\n  - {paths: ['" + str(proj) + "'], providers: [windsurf]}\n"
           "  - {paths: ['/elsewhere'], providers: [claude]}\ndisabledExtensions: ['rule:x']\n")
    s = read_agent_settings(cwd=proj, home=home, env={})
    assert s.names("enabledProviders") == ("cursor", "windsurf")
    assert s.names("disabledExtensions") == ("rule:x",)
    assert s.get("disabledProviders").source == "default"
    assert set(s.to_json()["switches"]) == {"enabledProviders", "disabledProviders", "disabledExtensions"}


def test_judge_auto_is_inactive_without_an_explicit_judge(tmp_path):
    from workbench.rules.agent_settings import judge_state

    proj = tmp_path / "p"
    plain = read_agent_settings(cwd=proj, home=tmp_path / "h", env={})
    state = judge_state(plain, judge_given=False)
    assert (state.mode, state.source, state.active) == ("auto", "default", False)
    _write(proj / ".omp/config.yml", "ttsr:\n  judge: 'off'\n")
    off = read_agent_settings(cwd=proj, home=tmp_path / "h", env={})
    assert judge_state(off, judge_given=False).active is False
    flagged = read_agent_settings(cwd=proj, home=tmp_path / "h", env={}, flags={"judge": "on"})
    state = judge_state(flagged, judge_given=True)
    assert (state.mode, state.source, state.active) == ("on", "flag", True)
