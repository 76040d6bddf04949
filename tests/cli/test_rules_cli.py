"""``workbench rules``: list / show over a temp project with rules for every provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def project_tree(tmp_path):
    """One rule per provider, a name shadowed across three providers, a broken file, a bad regex."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write(project, ".xcsh/rules/xcsh-rule.md", "---\ndescription: from xcsh\n---\nx")
    write(project, ".omp/rules/shared.md", "---\ndescription: native wins\n---\nnative body")
    write(project, ".omp/rules/no-unwrap.md", "---\ncondition: '\\.unwrap\\(\\)'\nscope: tool:edit(*.rs)\n---\nuse ?")
    write(project, ".omp/rules/bad-regex.md", "---\ncondition: '(unclosed'\ndescription: has a broken regex\n---\nb")
    write(project, ".omp/rules/broken-yaml.md", "---\ndescription: [unclosed\n---\nstill loads")
    write(project, ".omp/RULES.md", "Project sticky rule.")
    write(home, ".omp/agent/rules/user-rule.md", "---\nalwaysApply: true\n---\nuser")
    write(project, ".agents/rules/agents-rule.md", "---\ndescription: agents\n---\na")
    write(project, ".cursor/rules/shared.mdc", "---\ndescription: cursor loses\n---\ncursor body")
    write(project, ".cursor/rules/cursor-rule.mdc", "---\ndescription: cursor\n---\nc")
    write(project, ".windsurf/rules/shared.md", "---\ndescription: windsurf loses\n---\nwindsurf body")
    write(home, ".codeium/windsurf/memories/global_rules.md", "be kind")
    write(project, ".clinerules/cline-rule.md", "---\ndescription: cline\n---\ncl")
    write(project, ".github/instructions/gh.instructions.md", "---\napplyTo: '*.py'\n---\ngh")
    write(project, ".omp/rules/orphan.md", "no description, no trigger")
    return home, project


def run_json(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_list_json_shows_every_provider_buckets_shadowing_and_warnings(capsys, project_tree):
    home, project = project_tree
    data = run_json(capsys, "rules", "list", "--cwd", str(project), "--home", str(home), "--json")
    rows = {(r["name"], r["provider"]): r for r in data["rules"]}
    providers = {r["provider"] for r in data["rules"]}
    assert {"native", "agents", "cursor", "windsurf", "cline", "github", "builtin-defaults"} <= providers

    assert rows[("shared", "native")]["bucket"] == "rulebook"
    for loser in ("cursor", "windsurf"):
        row = rows[("shared", loser)]
        assert row["bucket"] == "shadowed"
        assert row["shadowedBy"] == str(project / ".omp/rules/shared.md")
        assert row["shadowedByProvider"] == "native"

    assert rows[("no-unwrap", "native")]["bucket"] == "ttsr"
    assert rows[("RULES@project", "native")]["bucket"] == "always_apply"
    assert rows[("user-rule", "native")]["level"] == "user"
    # windsurf's global_rules.md is a user-level folder of another tool: opt-in (enabledProviders)
    assert ("global_rules", "windsurf") not in rows
    assert rows[("gh", "github")]["globs"] == ["*.py"]
    assert rows[("orphan", "native")]["bucket"] == "dropped"
    # every builtin rule registers as a TTSR rule
    assert {r["bucket"] for r in data["rules"] if r["provider"] == "builtin-defaults"} == {"ttsr"}

    bad = rows[("bad-regex", "native")]
    assert bad["bucket"] == "rulebook" and "rejected" in bad["reason"]
    bad_path = str(project / ".omp/rules/bad-regex.md")
    assert any(bad_path in w and "invalid regex" in w for w in data["warnings"])
    broken_path = str(project / ".omp/rules/broken-yaml.md")
    assert any(broken_path in w and "Failed to parse YAML frontmatter" in w for w in data["warnings"])
    # the line fallback keeps the raw value, so the rule still lands in the rulebook
    assert rows[("broken-yaml", "native")]["description"] == "[unclosed"
    assert rows[("broken-yaml", "native")]["bucket"] == "rulebook"


def test_list_text_and_flags(capsys, project_tree):
    home, project = project_tree
    assert main(["rules", "list", "--cwd", str(project), "--home", str(home), "--no-builtin",
                 "--disable-rule", "no-unwrap"]) == 0
    out = capsys.readouterr().out
    assert "shared" in out and "shadowed" in out and "warning(s):" in out
    line = next(row for row in out.splitlines() if row.startswith("no-unwrap "))
    assert "dropped" in line


def test_show_prints_the_rule_and_its_rule_url_content(capsys, project_tree):
    home, project = project_tree
    data = run_json(capsys, "rules", "show", "shared", "--cwd", str(project), "--home", str(home), "--json")
    assert data["rule"]["provider"] == "native"
    assert data["resource"]["url"] == "rule://shared"
    assert data["resource"]["content"] == "native body"
    assert data["resource"]["size"] == len("native body")
    assert [r["provider"] for r in data["shadowed"]] == ["cursor", "windsurf"]
    assert main(["rules", "show", "shared", "--cwd", str(project), "--home", str(home)]) == 0
    assert "native body" in capsys.readouterr().out


def test_show_unknown_rule_is_a_one_line_error(capsys, project_tree):
    home, project = project_tree
    assert main(["rules", "show", "nope", "--cwd", str(project), "--home", str(home)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Unknown rule: nope") and err.count("\n") == 1


def test_every_rules_command_has_help(capsys):
    for argv in (["rules"], ["rules", "list"], ["rules", "show"], ["rules", "test"], ["rules", "scan"]):
        with pytest.raises(SystemExit) as info:
            main([*argv, "--help"])
        assert info.value.code == 0
        assert "usage:" in capsys.readouterr().out


def test_scan_requires_a_path(capsys):
    with pytest.raises(SystemExit) as info:
        main(["rules", "scan"])
    assert info.value.code == 2


def test_missing_cwd_is_a_one_line_error(capsys, tmp_path):
    assert main(["rules", "list", "--cwd", str(tmp_path / "nope"), "--json"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --cwd {tmp_path / 'nope'}: not a directory\n"
