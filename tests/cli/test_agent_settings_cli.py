"""The agent's config layers through the CLI: ``ttsr.*`` from the project's and the user's files."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_replay import RULE
from workbench.cli import main


@pytest.fixture
def project(tmp_path):
    rules = tmp_path / "proj" / ".omp" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-unwrap.md").write_text(RULE)
    (tmp_path / "home").mkdir()
    return tmp_path / "proj"


def _stream(tmp_path, cwd):
    lines = [
        {"type": "stream", "version": 1, "cwd": str(cwd)},
        {"type": "turn_start"},
        {"type": "message_start", "role": "assistant"},
        {"type": "text_delta", "contentIndex": 0, "delta": "let v = r.unwrap();"},
        {"type": "message_end", "stopReason": "stop"},
        {"type": "turn_end"},
    ]
    path = tmp_path / "run.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def _replay(tmp_path, project, capsys, *extra):
    code = main(["replay", str(_stream(tmp_path, project)), "--rules", str(project),
                 "--home", str(tmp_path / "home"), "--omp-package", "none", "--json", *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_a_rule_in_the_projects_disabled_rules_no_longer_aborts(tmp_path, project, capsys):
    assert "abort" in [e["type"] for e in _replay(tmp_path, project, capsys)["events"]]
    (project / ".omp" / "config.yml").write_text("ttsr:\n  disabledRules: [no-unwrap]\n")
    out = _replay(tmp_path, project, capsys)
    assert [e["type"] for e in out["events"]] == []
    assert out["status"] != "aborted"


def test_user_interrupt_mode_applies_and_a_flag_overrides_it(tmp_path, project, capsys):
    user = tmp_path / "home" / ".omp" / "agent"
    user.mkdir(parents=True)
    (user / "config.yml").write_text("ttsr:\n  interruptMode: never\n")
    assert "abort" not in [e["type"] for e in _replay(tmp_path, project, capsys)["events"]]
    out = _replay(tmp_path, project, capsys, "--interrupt-mode", "always")
    assert "abort" in [e["type"] for e in out["events"]]


def test_rules_list_drops_rules_the_project_disables_and_the_flag_adds_to_them(tmp_path, project, capsys):
    (project / ".omp" / "rules" / "other.md").write_text("---\ndescription: other\n---\nbody\n")
    (project / ".omp" / "config.yml").write_text("ttsr:\n  disabledRules: [no-unwrap]\n  builtinRules: false\n")
    main(["rules", "list", "--cwd", str(project), "--home", str(tmp_path / "home"), "--omp-package", "none",
          "--disable-rule", "other", "--json"])
    data = json.loads(capsys.readouterr().out)
    bucket = {r["name"]: (r["bucket"], r["reason"]) for r in data["rules"]}
    assert bucket["no-unwrap"] == ("dropped", "listed in disabledRules")
    assert bucket["other"] == ("dropped", "listed in disabledRules")
    assert data["builtinSource"]["enabled"] is False
    assert data["builtinSource"]["offBy"] == "ttsr.builtinRules: false"


SCOPED = """---
description: No unwrap in scouts
condition: '\\.unwrap\\('
agents: [scout]
---
Scouts propagate errors.
"""


def _session_file(tmp_path, cwd, agent):
    ts = "2026-01-01T00:00:00.000Z"
    lines = [{"type": "session", "version": 3, "id": "s1", "cwd": str(cwd), "timestamp": ts}]
    parent = None
    if agent is not None:
        lines.append({"type": "session_init", "id": "i1", "parentId": None, "timestamp": ts, "agent": agent,
                      "systemPrompt": "", "task": "look", "tools": []})
        parent = "i1"
    lines += [
        {"type": "message", "id": "u1", "parentId": parent, "timestamp": ts,
         "message": {"role": "user", "content": "go", "timestamp": 1}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts,
         "message": {"role": "assistant", "content": [{"type": "text", "text": "let v = r.unwrap();"}],
                     "stopReason": "stop", "timestamp": 2}},
    ]
    path = tmp_path / f"session-{agent}.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_agents_scoped_rule_fires_only_for_its_agent(tmp_path, project, capsys):
    (project / ".omp" / "rules" / "no-unwrap.md").write_text(SCOPED)
    assert "abort" not in [e["type"] for e in _replay(tmp_path, project, capsys)["events"]]
    assert "abort" in [e["type"] for e in _replay(tmp_path, project, capsys, "--agent", "scout")["events"]]


def test_agent_name_comes_from_the_sessions_session_init(tmp_path, project, capsys):
    (project / ".omp" / "rules" / "no-unwrap.md").write_text(SCOPED)
    for agent, fires in ((None, False), ("scout", True), ("reviewer", False)):
        main(["replay", str(_session_file(tmp_path, project, agent)), "--rules", str(project),
              "--home", str(tmp_path / "home"), "--omp-package", "none", "--json"])
        out = json.loads(capsys.readouterr().out)
        assert ("abort" in [e["type"] for e in out["events"]]) is fires, agent


def test_provider_switches_from_the_user_config_and_flags(tmp_path, project, capsys):
    home = tmp_path / "home"
    (home / ".cursor" / "rules").mkdir(parents=True)
    (home / ".cursor" / "rules" / "cu.mdc").write_text("---\ndescription: cursor user\n---\ncu\n")
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".cursor" / "rules" / "cp.mdc").write_text("---\ndescription: cursor project\n---\ncp\n")

    def names(*extra):
        main(["rules", "list", "--cwd", str(project), "--home", str(home), "--omp-package", "none", "--json", *extra])
        return {r["name"] for r in json.loads(capsys.readouterr().out)["rules"]}

    assert {"cp"} <= names() and "cu" not in names()
    (home / ".omp" / "agent").mkdir(parents=True)
    (home / ".omp" / "agent" / "config.yml").write_text("enabledProviders: [cursor]\ndisabledExtensions: ['rule:cp']\n")
    assert "cu" in names() and "cp" not in names()
    assert not {"cu", "cp"} & names("--disable-provider", "cursor")


def test_replay_delivers_the_installed_agents_interrupt_template(tmp_path, project, capsys):
    from tests.rules.test_agent_texts import fake_package

    pkg = fake_package(tmp_path / "pkg")
    code = main(["replay", str(_stream(tmp_path, project)), "--rules", str(project), "--home", str(tmp_path / "home"),
                 "--omp-package", str(pkg), "--json"])
    assert code == 0
    out = capsys.readouterr().out
    assert "AGENT ttsr-interrupt.md" in out
    own = _replay(tmp_path, project, capsys)
    assert "AGENT ttsr-interrupt.md" not in json.dumps(own)


def test_json_outputs_carry_settings_agent_providers_and_templates(tmp_path, project, capsys):
    (project / ".omp" / "config.yml").write_text("ttsr:\n  repeatGap: 4\n")
    out = _replay(tmp_path, project, capsys, "--agent", "scout")
    gap = out["settings"]["ttsr"]["repeatGap"]
    assert (gap["value"], gap["source"], gap["file"]) == (4, "project", str(project / ".omp" / "config.yml"))
    assert out["settings"]["ttsr"]["judge"]["source"] == "default"
    assert out["settings"]["judgeState"]["active"] is False
    assert out["agent"] == {"name": "scout", "source": "flag", "why": "--agent"}
    cursor = next(p for p in out["providers"] if p["id"] == "cursor")
    assert cursor["ran"] and not cursor["userLevel"]
    assert out["templates"]["kind"] == "workbench"

    main(["rules", "list", "--cwd", str(project), "--home", str(tmp_path / "home"), "--omp-package", "none", "--json"])
    listed = json.loads(capsys.readouterr().out)
    assert listed["settings"]["ttsr"]["repeatGap"]["value"] == 4
    assert listed["agent"]["name"] == "main" and listed["agent"]["source"] == "default"
    assert {p["id"] for p in listed["providers"]} >= {"native", "claude-plugins", "cursor"}

    main(["rules", "list", "--cwd", str(project), "--home", str(tmp_path / "home"), "--omp-package", "none"])
    text = capsys.readouterr().out
    assert f"setting repeatGap = 4 (project file {project / '.omp' / 'config.yml'})" in text
    assert "agent: main (default" in text


def test_backtest_json_carries_the_settings(tmp_path, project, capsys):
    (project / ".omp" / "config.yml").write_text("ttsr:\n  interruptMode: never\n")
    session = _session_file(tmp_path, project, None)
    code = main(["backtest", str(session), "--rules", str(project), "--home", str(tmp_path / "home"),
                 "--omp-package", "none", "--workers", "1", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["ttsr"]["interruptMode"]["value"] == "never"
    assert out["settings"]["ttsr"]["interruptMode"]["source"] == "project"
    assert out["agent"]["name"] == "per session"


def test_backtest_derives_the_agent_per_session_unless_given(tmp_path, project, capsys):
    (project / ".omp" / "rules" / "no-unwrap.md").write_text(SCOPED)
    sessions = [str(_session_file(tmp_path, project, agent)) for agent in (None, "scout", "reviewer")]

    def fired_in(*extra):
        assert main(["backtest", *sessions, "--rules", str(project), "--home", str(tmp_path / "home"),
                     "--omp-package", "none", "--no-builtin", "--workers", "1", "--json", *extra]) == 0
        rule = next(r for r in json.loads(capsys.readouterr().out)["rules"] if r["rule"] == "no-unwrap")
        return rule["sessions"], rule["first"]["session"].rsplit("-", 1)[-1] if rule["first"] else None

    assert fired_in() == (1, "scout.jsonl")  # from each session's session_init, else main
    assert fired_in("--agent", "scout") == (3, "None.jsonl")
    assert fired_in("--agent", "main") == (0, None)


def test_rules_scan_with_agent_leaves_out_rules_for_other_agents(tmp_path, project, capsys):
    (project / ".omp" / "rules" / "no-unwrap.md").write_text(SCOPED.replace("description: No unwrap in scouts\n", "description: d\nscope: tool:write(*.rs)\n"))
    src = project / "a.rs"
    src.write_text("fn f() { r.unwrap(); }\n")
    base = ["rules", "scan", str(src), "--cwd", str(project), "--home", str(tmp_path / "home"), "--omp-package", "none",
            "--no-builtin", "--json"]
    assert main([*base, "--agent", "scout"]) == 1
    assert json.loads(capsys.readouterr().out)["hits"]
    assert main([*base, "--agent", "main"]) == 0
    capsys.readouterr()
