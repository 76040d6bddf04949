"""The Rules tab's settings-and-switches block: values, where each came from, escaped."""

from __future__ import annotations

from workbench.rules import load_rules
from workbench.ui.agent_settings_html import agent_settings_html
from workbench.ui.rules_view import RulesView


def test_block_lists_each_setting_with_its_file_and_the_provider_switches(tmp_path):
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".omp").mkdir(parents=True)
    home.mkdir()
    (project / ".omp" / "config.yml").write_text("ttsr:\n  repeatGap: 3\n  disabledRules: ['<b>x</b>']\n")
    loaded = load_rules(cwd=project, home=home, repo_root=project, env={}, omp_package="none")
    html = agent_settings_html(project, home, loaded)
    assert "repeatGap" in html and str(project / ".omp" / "config.yml") in html
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "project folders only; user-level folder is opt-in" in html
    assert "the workbench&#x27;s own wording" in html or "the workbench's own wording" in html


def test_rules_view_shows_the_block(tmp_path):
    project = tmp_path / "p"
    (project / ".omp" / "rules").mkdir(parents=True)
    (project / ".omp" / "rules" / "r.md").write_text("---\ndescription: d\n---\nbody\n")
    (project / ".omp" / "config.yml").write_text("ttsr:\n  contextMode: keep\n")
    view = RulesView.from_folder(project)
    assert "Agent settings and switches" in view.summary.object
    assert "contextMode" in view.summary.object


def test_rule_set_follows_the_projects_discovery_switches(tmp_path):
    from workbench.ui.ruleset import RuleSet

    project = tmp_path / "p"
    (project / ".omp" / "rules").mkdir(parents=True)
    (project / ".omp" / "rules" / "kept.md").write_text("---\ndescription: k\n---\nk\n")
    (project / ".omp" / "rules" / "gone.md").write_text("---\ndescription: g\n---\ng\n")
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".cursor" / "rules" / "c.md").write_text("---\ndescription: c\n---\nc\n")
    ruleset = RuleSet(project, builtin=False)
    assert {r.name for r in ruleset.rules()} == {"kept", "gone", "c"}
    (project / ".omp" / "config.yml").write_text("disabledProviders: [cursor]\ndisabledExtensions: ['rule:gone']\n")
    assert ruleset.changed_on_disk()
    assert {r.name for r in ruleset.rules()} == {"kept"}
