"""load_rules over temp project trees: every provider, priority, shadowing, validation, warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.rules import PROVIDERS, load_rules

RULE = "---\ndescription: {desc}\n---\n{body}\n"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def tree(tmp_path):
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    return tmp_path, home, project


def load(home: Path, project: Path, **kwargs):
    kwargs.setdefault("env", {})
    return load_rules(cwd=project, home=home, **kwargs)


def names(result):
    return [r.name for r in result.rules]


def test_provider_order_is_priority_then_registration():
    assert [p.id for p in PROVIDERS] == [
        "native", "omp-plugins", "claude-plugins", "agents", "cursor", "windsurf", "cline", "github",
        "builtin-defaults",
    ]


def test_native_project_and_user_dirs_omp_before_xcsh(tree):
    _, home, project = tree
    write(project, ".xcsh/rules/a.md", RULE.format(desc="x", body="xcsh"))
    write(project, ".omp/rules/b.mdc", RULE.format(desc="o", body="omp"))
    write(project, ".omp/rules/.hidden.md", RULE.format(desc="h", body="hidden"))
    write(project, ".omp/rules/notes.txt", "ignored")
    write(home, ".xcsh/agent/rules/u.md", RULE.format(desc="u", body="user"))
    result = load(home, project, providers=["native"])
    assert names(result) == ["b", "a", "u"]  # 18.3.4 reads only .omp: it ranks above the seeds' .xcsh
    levels = {r.name: r.source.level for r in result.rules}
    assert levels == {"a": "project", "b": "project", "u": "user"}
    assert all(r.source.provider_name == "OMP" for r in result.rules)
    assert result.rules[1].source.path == str(project / ".xcsh/rules/a.md")


def test_omp_rule_shadows_its_xcsh_namesake(tree):
    _, home, project = tree
    write(project, ".xcsh/rules/same.md", RULE.format(desc="x", body="xcsh"))
    write(project, ".omp/rules/same.md", RULE.format(desc="o", body="omp"))
    result = load(home, project, providers=["native"])
    assert [r.source.path for r in result.rules] == [str(project / ".omp/rules/same.md")]
    loser = next(i for i in result.items if i.shadowed)
    assert loser.path == str(project / ".xcsh/rules/same.md")
    assert loser.shadowed_by == str(project / ".omp/rules/same.md")


def test_sticky_rules_files_are_always_apply_and_skipped_only_when_zero_length(tree):
    _, home, project = tree
    write(home, ".omp/agent/RULES.md", "---\nalwaysApply: false\n---\nUser sticky.")
    write(project, ".omp/RULES.md", "# Project\nAlways say hi.\n")
    result = load(home, project, providers=["native"], agent_dir=home / ".omp/agent")
    by_name = {r.name: r for r in result.rules}
    assert by_name["RULES"].always_apply is True and by_name["RULES"].source.level == "user"
    assert by_name["RULES@project"].always_apply is True and by_name["RULES@project"].source.level == "project"
    assert "Always say hi." in by_name["RULES@project"].content
    write(project, ".omp/RULES.md", "")
    assert "RULES@project" not in names(load(home, project, providers=["native"]))
    # The reference tests `!content` on the raw text: blanks are content, and become a blank rule.
    write(project, ".omp/RULES.md", "  \n")
    blank = {r.name: r for r in load(home, project, providers=["native"]).rules}["RULES@project"]
    assert blank.content == "  \n" and blank.always_apply is True
    # Frontmatter only: the rule is built with an empty body, then validation drops it, with a warning.
    write(project, ".omp/RULES.md", "---\ndescription: nothing else\n---\n")
    result = load(home, project, providers=["native"])
    assert "RULES@project" not in names(result)
    assert f"[OMP] Invalid item at {project / '.omp/RULES.md'}: Rule must have content" in result.warnings


def test_user_and_project_rules_md_both_survive_deduplication_with_their_paths_and_levels(tree):
    # The reference's builtin-rules-md test: both sticky rules in the public capability result.
    _, home, project = tree
    user = write(home, ".omp/agent/RULES.md", "User sticky rule: keep the checklist.\n")
    proj = write(project, ".omp/RULES.md", "Project sticky rule: release notes.\n")
    result = load(home, project, agent_dir=home / ".omp/agent", exclude_providers=["builtin-defaults"])
    sticky = {i.rule.name: i for i in result.items if i.path in (str(user), str(proj))}
    assert sorted(sticky) == ["RULES", "RULES@project"]
    assert all(i.active and not i.shadowed for i in sticky.values())
    for name, path, level in (("RULES", user, "user"), ("RULES@project", proj, "project")):
        rule = sticky[name].rule
        assert (rule.path, rule.source.path, rule.source.level, sticky[name].level) == (str(path), str(path), level, level)
        assert rule.always_apply is True and rule.source.provider == "native"
    assert sticky["RULES"].rule.content != sticky["RULES@project"].rule.content


def test_no_rules_md_means_no_sticky_rule(tree):
    _, home, project = tree
    write(home, ".omp/agent/rules/other.md", "# Unrelated rule\n")
    write(project, ".omp/rules/local.md", "# Local\n")
    (project / ".omp" / "RULES.md").mkdir()  # a folder of that name is not a file
    result = load(home, project, agent_dir=home / ".omp/agent", exclude_providers=["builtin-defaults"])
    assert not [r for r in result.items if r.rule.name.startswith("RULES")]
    assert sorted(names(result)) == ["local", "other"]


def test_project_rules_md_walk_stops_at_the_nearest_config_folder(tree):
    # The nearest non-empty .omp wins even without a RULES.md of its own: a higher one is not read.
    _, home, project = tree
    write(project, ".omp/RULES.md", "repo-wide")
    sub = project / "packages" / "app"
    write(sub, ".omp/rules/app.md", "# App rule\n")
    result = load(home, sub, providers=["native"])
    assert names(result) == ["app"]
    # An empty .omp folder on the way does not count: the walk goes on to the repo's.
    (sub / ".omp" / "rules" / "app.md").unlink()
    (sub / ".omp" / "rules").rmdir()
    result = load(home, sub, providers=["native"])
    assert [(r.name, r.path, r.source.level) for r in result.rules] == [
        ("RULES@project", str(project / ".omp" / "RULES.md"), "project")
    ]


def test_project_rules_md_walk_ends_at_the_repo_root(tree):
    tmp, home, project = tree
    write(tmp, ".omp/RULES.md", "above the repository")
    assert names(load(home, project, providers=["native"])) == []
    # Without a repository the walk goes to the file system root, as the reference's does.
    (project / ".git").rmdir()
    result = load(home, project, providers=["native"])
    assert [(r.name, r.path) for r in result.rules] == [("RULES@project", str(tmp / ".omp" / "RULES.md"))]


def test_project_rules_md_found_walking_up_to_the_repo_root(tree):
    _, home, project = tree
    write(project, ".omp/RULES.md", "from root")
    sub = project / "pkg" / "deep"
    sub.mkdir(parents=True)
    result = load(home, sub, providers=["native"])
    assert names(result) == ["RULES@project"]


def test_pi_config_dir_renames_the_native_folder(tree):
    _, home, project = tree
    write(project, ".mine/rules/a.md", "body")
    write(project, ".omp/rules/b.md", "body")
    assert names(load(home, project, providers=["native"], env={"PI_CONFIG_DIR": ".mine"})) == ["a"]


def test_agents_walk_up_and_user_dirs(tree):
    _, home, project = tree
    sub = project / "sub"
    write(sub, ".agent/rules/near.md", "near")
    write(project, ".agents/rules/root.md", "root")
    write(home, ".agent/rules/user.md", "user")
    result = load(home, sub, providers=["agents"], repo_root=project)
    assert names(result) == ["near", "root", "user"]
    assert [r.source.level for r in result.rules] == ["project", "project", "user"]


def test_cursor_user_then_project_and_windsurf_global_rules(tree):
    _, home, project = tree
    write(home, ".cursor/rules/c-user.mdc", "---\nalwaysApply: true\n---\ncu")
    write(project, ".cursor/rules/c-proj.md", "cp")
    write(home, ".codeium/windsurf/memories/global_rules.md", "be kind")
    write(project, ".windsurf/rules/w.md", "w")
    write(project, ".windsurf/rules/skip.mdc", "not loaded by windsurf")
    result = load(home, project, providers=["cursor", "windsurf"])
    assert names(result) == ["c-user", "c-proj", "global_rules", "w"]


def test_a_blank_windsurf_global_rules_file_is_still_a_rule(tree):
    # 18.3.4 tests the raw text (`if (content)`), and without frontmatter the body is kept untrimmed.
    _, home, project = tree
    write(home, ".codeium/windsurf/memories/global_rules.md", "  \n\n")
    result = load(home, project, providers=["windsurf"])
    assert names(result) == ["global_rules"] and result.rules[0].content == "  \n\n"
    write(home, ".codeium/windsurf/memories/global_rules.md", "")
    assert names(load(home, project, providers=["windsurf"])) == []


def test_cline_nearest_directory_or_file(tree):
    _, home, project = tree
    write(project, ".clinerules/one.md", "one")
    sub = project / "a"
    sub.mkdir()
    assert names(load(home, sub, providers=["cline"])) == ["one"]
    write(sub, ".clinerules", "single file")
    result = load(home, sub, providers=["cline"])
    assert names(result) == ["clinerules"]
    assert result.rules[0].source.provider_name == "Cline"


def test_github_instructions_apply_to(tree):
    _, home, project = tree
    write(project, ".github/instructions/py.instructions.md", "---\napplyTo: '*.py, src/**'\n---\npy")
    write(project, ".github/instructions/nested/all.instructions.md", "---\napplyTo: '**'\n---\nall")
    write(project, ".github/instructions/bare.instructions.md", "bare")
    write(project, ".github/instructions/readme.md", "not an instructions file")
    extra = project / "extra"
    write(extra, ".github/instructions/x.instructions.md", "---\napplyTo: [a.ts]\ndescription: mine\n---\nx")
    result = load(home, project, providers=["github"], env={"COPILOT_CUSTOM_INSTRUCTIONS_DIRS": str(extra)})
    by_name = {r.name: r for r in result.rules}
    assert sorted(by_name) == ["all", "bare", "py", "x"]
    assert by_name["py"].globs == ("*.py", "src/**") and by_name["py"].always_apply is False
    assert by_name["py"].description == "GitHub Copilot instructions for *.py, src/**"
    assert by_name["all"].always_apply is True and by_name["all"].globs is None
    assert by_name["bare"].description == "GitHub Copilot instructions without applyTo metadata"
    assert by_name["x"].description == "mine" and by_name["x"].source.level == "user"
    bare_path = project / ".github/instructions/bare.instructions.md"
    assert any(f"Missing applyTo in {bare_path}" in w for w in result.warnings)


def test_plugins_and_builtin_rules(tree):
    _, home, project = tree
    write(tree[0], "plugin/rules/p.md", "plugin rule")
    result = load(home, project, providers=["omp-plugins", "builtin-defaults"], plugin_roots=[tree[0] / "plugin"])
    assert names(result)[0] == "p"
    builtin = [r for r in result.rules if r.source.provider == "builtin-defaults"]
    assert builtin, "the project ships bundled rules"
    for rule in builtin:
        assert rule.path == f"builtin-defaults:{rule.name}.md"
        assert rule.interrupt_mode == "never" and rule.scope and rule.source.level == "user"
        assert rule.condition or rule.ast_condition


def test_name_shadowed_across_providers_first_wins_and_is_marked(tree):
    _, home, project = tree
    write(project, ".omp/rules/same.md", RULE.format(desc="native", body="native body"))
    write(project, ".cursor/rules/same.mdc", RULE.format(desc="cursor", body="cursor body"))
    write(project, ".windsurf/rules/same.md", RULE.format(desc="windsurf", body="windsurf body"))
    result = load(home, project)
    assert [r.description for r in result.rules if r.name == "same"] == ["native"]
    items = [i for i in result.items if i.rule.name == "same"]
    assert [i.provider for i in items] == ["native", "cursor", "windsurf"]
    assert items[0].active and not items[0].shadowed
    assert all(i.shadowed_by == str(project / ".omp/rules/same.md") for i in items[1:])
    assert all(i.shadowed_by_provider == "native" for i in items[1:])


def test_invalid_winner_still_shadows_then_disappears(tree):
    _, home, project = tree
    write(project, ".omp/rules/empty.md", "---\ndescription: nothing below\n---\n")
    write(project, ".cursor/rules/empty.md", "cursor has a body")
    result = load(home, project, providers=["native", "cursor"])
    assert "empty" not in names(result)
    path = project / ".omp/rules/empty.md"
    assert f"[OMP] Invalid item at {path}: Rule must have content" in result.warnings
    assert [i.shadowed for i in result.items] == [False, True]


def test_broken_file_does_not_stop_the_others(tree):
    _, home, project = tree
    write(project, ".omp/rules/a-broken.md", "---\ndescription: [unclosed\n---\nstill a body")
    (project / ".omp/rules/b-binary.md").write_bytes(b"\xff\xfe\x00bad")
    write(project, ".omp/rules/c-good.md", RULE.format(desc="fine", body="good"))
    result = load(home, project, providers=["native"])
    assert names(result) == ["a-broken", "c-good"]
    broken = str(project / ".omp/rules/a-broken.md")
    assert any(w.startswith("[OMP] Failed to parse YAML frontmatter") and broken in w for w in result.warnings)
    assert f"[OMP] Failed to read file: {project / '.omp/rules/b-binary.md'}" in result.warnings


def test_disabled_extensions_and_excluded_providers(tree):
    _, home, project = tree
    write(project, ".omp/rules/a.md", "a")
    write(project, ".omp/rules/b.md", "b")
    result = load(home, project, exclude_providers=["builtin-defaults"], disabled_extensions=["rule:a"])
    assert names(result) == ["b"]


def test_nothing_is_read_from_an_unrelated_home(tree, monkeypatch):
    root, home, project = tree
    other = root / "elsewhere"
    write(other, ".cursor/rules/leak.md", "should not be seen")
    monkeypatch.setenv("HOME", str(other))
    assert "leak" not in names(load(home, project))


def test_agent_dir_from_environment(tree):
    root, home, project = tree
    write(root, "custom-agent/rules/from-env.md", "env agent")
    write(home, ".omp/agent/rules/default.md", "default agent")
    env = {"PI_CODING_AGENT_DIR": str(root / "custom-agent")}
    assert names(load(home, project, providers=["native"], env=env)) == ["from-env"]
    assert names(load(home, project, providers=["native"])) == ["default"]


def test_agents_walk_stops_at_home_and_skips_home_itself(tmp_path):
    home = tmp_path / "home"
    cwd = home / "work" / "proj"  # no git repository anywhere
    write(cwd, ".agent/rules/proj.md", "p")
    write(home / "work", ".agents/rules/work.md", "w")
    write(home, ".agent/rules/user.md", "u")
    write(tmp_path, ".agent/rules/above-home.md", "never read")
    result = load_rules(cwd=cwd, home=home, env={}, providers=["agents"])
    assert names(result) == ["proj", "work", "user"]
    assert [r.source.level for r in result.rules] == ["project", "project", "user"]


def test_provider_that_raises_becomes_a_warning(tree, monkeypatch):
    _, home, project = tree
    write(project, ".omp/rules/ok.md", "fine")
    from workbench.rules import discovery

    def explode(ctx, warnings):
        raise RuntimeError("boom")

    broken = [p if p.id != "cursor" else discovery.RuleProvider("cursor", "Cursor", 50, explode) for p in discovery.PROVIDERS]
    monkeypatch.setattr(discovery, "PROVIDERS", tuple(broken))
    result = load(home, project, providers=["native", "cursor"])
    assert names(result) == ["ok"]
    assert "[Cursor] Failed to load: boom" in result.warnings


def test_boundary_stops_every_upward_walk(tmp_path):
    # No .git anywhere: without a boundary each walk goes up to "/" and finds the outer files.
    home = tmp_path / "home"
    home.mkdir()
    outer = tmp_path / "outer"
    served = outer / "served"
    cwd = served / "proj"
    write(outer, ".clinerules/outside-cline.md", "outside")
    write(outer, ".agent/rules/outside-agent.md", "outside")
    write(outer, ".omp/RULES.md", "outside sticky")
    write(cwd, "readme.txt", "no rules of its own")
    providers = ["cline", "agents", "native"]
    unbounded = names(load_rules(cwd=cwd, home=home, env={}, providers=providers))
    assert sorted(unbounded) == ["RULES@project", "outside-agent", "outside-cline"]
    assert names(load_rules(cwd=cwd, home=home, env={}, providers=providers, boundary=served)) == []
    # inside the boundary the walks still work, up to and including the boundary folder itself
    write(served, ".clinerules", "at the boundary")
    write(served, ".agents/rules/at-boundary.md", "at the boundary")
    bounded = load_rules(cwd=cwd, home=home, env={}, providers=providers, boundary=served)
    assert sorted(names(bounded)) == ["at-boundary", "clinerules"]


def test_boundary_also_limits_the_repo_root_search(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(tmp_path / "repo", ".omp/RULES.md", "repo sticky")
    cwd = tmp_path / "repo" / "inner" / "pkg"
    cwd.mkdir(parents=True)
    assert names(load_rules(cwd=cwd, home=home, env={}, providers=["native"])) == ["RULES@project"]
    assert names(load_rules(cwd=cwd, home=home, env={}, providers=["native"],
                            boundary=tmp_path / "repo" / "inner")) == []


def test_enabled_false_drops_a_discovered_rule_before_deduplication(tmp_path) -> None:
    # oh-my-pi 18.3 (discoverRuleFromMarkdown): a file with `enabled: false` is never a rule, so it
    # shadows nothing and the lower-priority rule of the same name wins.
    from workbench.rules import load_rules

    project = tmp_path / "proj"
    (project / ".omp" / "rules").mkdir(parents=True)
    (project / ".omp" / "rules" / "style.md").write_text("---\nenabled: false\ncondition: foo\n---\nnative\n")
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".cursor" / "rules" / "style.mdc").write_text("---\ncondition: bar\n---\ncursor\n")
    result = load_rules(cwd=project, home=tmp_path / "home", providers=["native", "cursor"])
    assert [(r.name, r.content.strip()) for r in result.rules] == [("style", "cursor")]
    (dropped,) = [i for i in result.items if i.disabled]
    assert dropped.provider == "native" and not dropped.active and "enabled: false" in dropped.disabled


def test_foreign_user_folders_are_opt_in(tree):
    _, home, project = tree
    write(home, ".cursor/rules/c-user.mdc", "---\nalwaysApply: true\n---\ncu")
    write(project, ".cursor/rules/c-proj.md", "cp")
    write(home, ".codeium/windsurf/memories/global_rules.md", "be kind")
    write(home, ".agents/rules/ag-user.md", "ag")
    off = load(home, project, exclude_providers=["builtin-defaults"])
    assert names(off) == ["ag-user", "c-proj"]
    switch = {p.id: p for p in off.providers}
    assert not switch["cursor"].user_level and "opt-in" in switch["cursor"].why
    assert switch["agents"].user_level
    cursor = load(home, project, exclude_providers=["builtin-defaults"], enabled_providers=["cursor"])
    assert names(cursor) == ["ag-user", "c-user", "c-proj"]
    every = load(home, project, exclude_providers=["builtin-defaults"], enabled_providers=["*"])
    assert "global_rules" in names(every)


def test_disabled_providers_leave_a_provider_out(tree):
    _, home, project = tree
    write(project, ".cursor/rules/c.md", "---\ndescription: c\n---\nc")
    write(project, ".omp/rules/o.md", "---\ndescription: o\n---\no")
    result = load(home, project, disabled_providers=["cursor", "builtin-defaults"])
    assert names(result) == ["o"]
    assert {p.id: p.why for p in result.providers}["cursor"] == "in disabledProviders"
    assert result.bundled is None


def _registry(path: Path, plugins: dict) -> None:
    import json

    write(path.parent, path.name, json.dumps({"version": 2, "plugins": plugins}))


def test_claude_plugins_rules_user_scope_opt_in_and_project_scope_for_its_project(tree):
    tmp, home, project = tree
    user_plugin, proj_plugin, other = tmp / "p-user", tmp / "p-proj", tmp / "p-other"
    write(user_plugin, "rules/from-user.md", "---\ndescription: u\n---\nu")
    write(proj_plugin, "rules/from-proj.mdc", "---\ndescription: p\n---\np")
    write(other, "rules/elsewhere.md", "---\ndescription: e\n---\ne")
    _registry(home / ".claude/plugins/installed_plugins.json", {
        "tools@market": [{"installPath": str(user_plugin), "scope": "user"}],
        "proj@market": [{"installPath": str(proj_plugin), "scope": "project", "projectPath": str(project)}],
        "else@market": [{"installPath": str(other), "scope": "local", "projectPath": str(tmp / "nowhere")}],
        "off@market": [{"installPath": str(other), "enabled": False}],
        "broken": [{"installPath": str(other)}],
    })
    result = load(home, project, exclude_providers=["builtin-defaults"])
    assert names(result) == ["from-proj"]
    assert result.rules[0].source.provider_name == "Claude Code Marketplace"
    assert result.rules[0].source.level == "project"
    assert any("missing @marketplace" in w for w in result.warnings)
    opted = load(home, project, exclude_providers=["builtin-defaults"], enabled_providers=["claude"])
    assert names(opted) == ["from-user", "from-proj"]  # registry order


def test_claude_plugins_omp_registry_is_not_opt_in_and_ranks_above_agents(tree):
    tmp, home, project = tree
    plugin = tmp / "omp-plugin"
    write(plugin, "rules/same.md", "---\ndescription: plugin\n---\nplugin")
    write(project, ".agents/rules/same.md", "---\ndescription: agents\n---\nagents")
    _registry(home / ".omp/plugins/installed_plugins.json", {"x@m": [{"installPath": str(plugin)}]})
    result = load(home, project, exclude_providers=["builtin-defaults"])
    assert [r.source.provider for r in result.rules] == ["claude-plugins"]
    assert [i.provider for i in result.items if i.shadowed] == ["agents"]
