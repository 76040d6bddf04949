"""The installed agent's reminder templates, with the workbench's wording as the fallback."""

from __future__ import annotations

import json

from workbench.rules import find_agent_templates, templates_from
from workbench.rules.bundled import workbench_source


def fake_package(root, *, templates=("ttsr-interrupt.md", "ttsr-tool-reminder.md", "ttsr-warning.md")):
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "@oh-my-pi/pi-coding-agent", "version": "18.3.4"}))
    rules = root / "src" / "discovery" / "builtin-rules"
    rules.mkdir(parents=True)
    (rules / "ts-x.md").write_text("---\ncondition: x\n---\nx\n")
    prompts = root / "src" / "prompts" / "system"
    prompts.mkdir(parents=True)
    for name in templates:
        (prompts / name).write_text(f'<system-interrupt rule="{{{{name}}}}">AGENT {name}\n{{{{content}}}}\n</system-interrupt>\n')
    return root


def test_templates_of_an_installed_package(tmp_path):
    pkg = fake_package(tmp_path / "pkg")
    found = find_agent_templates(omp_package=pkg, env={}, home=tmp_path)
    assert found.kind == "omp-package" and found.version == "18.3.4"
    assert set(found.templates() or {}) == {"interrupt", "reminder", "warning"}
    assert "AGENT ttsr-interrupt.md" in found.texts["interrupt"]
    data = found.to_json()
    assert data["templates"]["warning"] == {"source": "omp-package",
                                            "file": str(pkg / "src/prompts/system/ttsr-warning.md")}


def test_a_missing_file_falls_back_for_that_template_only(tmp_path):
    pkg = fake_package(tmp_path / "pkg", templates=("ttsr-interrupt.md",))
    found = find_agent_templates(omp_package=pkg, env={}, home=tmp_path)
    assert found.source_of("interrupt") == "omp-package" and found.source_of("reminder") == "workbench"
    assert len(found.notes) == 2 and "the workbench's own for reminder, warning" in found.describe()


def test_without_a_package_the_workbench_wording_is_used(tmp_path):
    found = find_agent_templates(omp_package="none", env={}, home=tmp_path)
    assert found.kind == "workbench" and found.templates() is None
    assert templates_from(workbench_source()).templates() is None
    assert {v["source"] for v in found.to_json()["templates"].values()} == {"workbench"}
