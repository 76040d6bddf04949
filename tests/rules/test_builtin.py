"""The bundled rules (builtin-defaults): the workbench's own files, and an oh-my-pi installation's.

The conformance side (every field against ``fixtures.builtin_rules``, the provider's facts) is in
``tests/conformance/test_builtin_rules.py``; here: each own file's examples, its marking and wording,
and where the files are read from.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from tests.conformance._data import load
from tests.reference.oracle import require_oracle
from workbench.errors import NotFoundError
from workbench.rulecheck import run_rule_examples
from workbench.rules import OMP_PACKAGE_ENV, load_rules
from workbench.rules.bundled import AGENT_PACKAGE, RULES_SUBDIR, workbench_source

OWN = Path(__file__).resolve().parents[2] / "workbench" / "rules" / "builtin"
FIXTURE = load("rules-pipeline.json")["fixtures"]["builtin_rules"]
MARKER = "# TTSR Workbench rewording of oh-my-pi's bundled rule"


@pytest.fixture(scope="module")
def reference_package() -> Path:
    """The agent package scripts/reference-oracle installed (skip without it; fail under CI=true)."""
    return require_oracle().agent


def _load(root: Path, **kwargs):
    return load_rules(cwd=root, home=root, env=kwargs.pop("env", {}), providers=["builtin-defaults"], **kwargs)


@pytest.fixture(scope="module")
def own_rules(tmp_path_factory):
    root = tmp_path_factory.mktemp("empty")
    result = _load(root)
    assert not result.warnings
    assert result.bundled is not None and result.bundled.kind == "workbench"
    return {r.name: r for r in result.rules}


def _body(text: str) -> str:
    return text.split("\n---\n", 1)[1]


def test_the_own_files_are_the_fixture_names(own_rules):
    assert sorted(own_rules) == sorted(r["name"] for r in FIXTURE)
    assert sorted(p.stem for p in OWN.glob("*.md")) == sorted(own_rules)


@pytest.mark.parametrize("name", [r["name"] for r in FIXTURE])
def test_each_own_file_is_marked_and_its_examples_pass(own_rules, name):
    text = (OWN / f"{name}.md").read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith(f"{MARKER} '{name}'")
    rule = own_rules[name]
    assert len(rule.content) > 200, "a body that says what to do instead"
    results = run_rule_examples(rule)
    assert results.error is None
    kinds = {r.example.triggers for r in results.results}
    assert kinds == {True, False}, "one example that fires and one that must not"
    assert not [(r.example.index, r.reason) for r in results.failures]


@pytest.mark.parametrize("name", [r["name"] for r in FIXTURE])
def test_own_bodies_do_not_copy_the_reference_prose(reference_package, name):
    # Shared code identifiers are facts (`os.ReadFile`); a whole line of prose in common is copying.
    theirs = _body((reference_package.joinpath(*RULES_SUBDIR) / f"{name}.md").read_text(encoding="utf-8"))
    ours = _body((OWN / f"{name}.md").read_text(encoding="utf-8"))

    def normal(line: str) -> str:
        return re.sub(r"\s+", " ", line).strip().lower()

    their_lines = {normal(line) for line in theirs.splitlines() if len(normal(line)) >= 40}
    shared = [line for line in ours.splitlines() if normal(line) in their_lines]
    assert not shared


# --- an installation ------------------------------------------------------------------------------


def _frontmatter(rule: dict) -> str:
    lines = [f"description: {json.dumps(rule['description'])}"]
    for key in ("condition", "astCondition", "scope"):
        if rule.get(key):
            lines += [f"{key}:", *(f"  - {json.dumps(v)}" for v in rule[key])]
    lines.append(f"interruptMode: {rule['interruptMode']}")
    return "---\n" + "\n".join(lines) + "\n---\n"


def fake_package(root: Path, *, version: str = "18.3.4", index: bool = True, rules=FIXTURE) -> Path:
    """An agent package folder made from the fixture: package.json, the rule files and index.ts."""
    package = root / "node_modules" / AGENT_PACKAGE
    folder = package.joinpath(*RULES_SUBDIR)
    folder.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": AGENT_PACKAGE, "version": version}))
    imports, entries = [], []
    for i, rule in enumerate(rules):
        (folder / f"{rule['name']}.md").write_text(_frontmatter(rule) + f"Installed body of {rule['name']}.\n")
        imports.append(f'import r{i} from "./{rule["name"]}.md" with {{ type: "text" }};')
        entries.append(f'\t{{ name: "{rule["name"]}", content: r{i} }},')
    if index:
        (folder / "index.ts").write_text("\n".join(imports) + "\nexport const BUILTIN_RULE_SOURCES = [\n"
                                         + "\n".join(entries) + "\n];\n")
    return package


def _by_name(result):
    return {r.name: r for r in result.rules}


def test_an_installation_named_by_the_option_is_read_instead(tmp_path):
    package = fake_package(tmp_path)
    result = _load(tmp_path, omp_package=package)
    rules = _by_name(result)
    assert sorted(rules) == sorted(r["name"] for r in FIXTURE)
    assert rules["go-ioutil"].content == "Installed body of go-ioutil."
    assert rules["go-ioutil"].path == "builtin-defaults:go-ioutil.md"
    bundled = result.bundled
    assert (bundled.kind, bundled.found_by, bundled.version) == ("omp-package", "option", "18.3.4")
    assert bundled.file_of("go-ioutil") == str(package.joinpath(*RULES_SUBDIR) / "go-ioutil.md")
    assert "oh-my-pi 18.3.4" in bundled.describe() and "--omp-package" in bundled.describe()


def test_the_environment_variable_names_an_installation_and_none_turns_the_search_off(tmp_path):
    package = fake_package(tmp_path)
    result = _load(tmp_path, env={OMP_PACKAGE_ENV: str(package)})
    assert result.bundled.found_by == "env"
    assert _by_name(result)["ts-set-map"].content == "Installed body of ts-set-map."
    # the option wins over the variable; "none" means the workbench's own files
    own = _load(tmp_path, env={OMP_PACKAGE_ENV: str(package)}, omp_package="none")
    assert own.bundled.kind == "workbench"
    assert _by_name(own)["ts-set-map"].content == (OWN / "ts-set-map.md").read_text().split("\n---\n", 1)[1].strip()


@pytest.mark.parametrize("how", ["option", "env"])
def test_a_folder_named_that_is_no_agent_package_is_an_error_naming_it(tmp_path, how):
    wrong = tmp_path / "not-omp"
    wrong.mkdir()
    (wrong / "package.json").write_text(json.dumps({"name": "left-pad", "version": "1.0.0"}))
    kwargs = {"omp_package": wrong} if how == "option" else {"env": {OMP_PACKAGE_ENV: str(wrong)}}
    with pytest.raises(NotFoundError, match=re.escape(str(wrong)) + ".*left-pad"):
        _load(tmp_path, **kwargs)
    with pytest.raises(NotFoundError, match="no such folder"):
        _load(tmp_path, omp_package=tmp_path / "missing")


def test_a_bun_global_install_under_home_is_found(tmp_path):
    bun_modules = tmp_path / ".bun" / "install" / "global"
    fake_package(bun_modules, version="18.3.1")
    result = _load(tmp_path)  # home = tmp_path, env without PATH: npm is not asked
    assert (result.bundled.found_by, result.bundled.version) == ("bun", "18.3.1")
    # BUN_INSTALL moves it
    elsewhere = tmp_path / "bun-elsewhere"
    fake_package(elsewhere / "install" / "global", version="18.0.0")
    moved = _load(tmp_path, env={"BUN_INSTALL": str(elsewhere)})
    assert moved.bundled.version == "18.0.0"


def test_a_global_npm_install_is_found_with_npm_root(tmp_path):
    prefix = tmp_path / "npm-global"
    fake_package(prefix, version="18.2.0")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    # A stand-in npm on PATH: `npm root -g` prints the global node_modules folder.
    npm.write_text(f'#!/bin/sh\n[ "$1 $2" = "root -g" ] && echo "{prefix / "node_modules"}"\n')
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    result = _load(tmp_path, env={"PATH": str(bin_dir)})
    assert (result.bundled.found_by, result.bundled.version) == ("npm", "18.2.0")
    assert result.bundled.package == str(prefix / "node_modules" / AGENT_PACKAGE)
    # both installed: Bun's (the agent's own installer) is taken
    fake_package(tmp_path / ".bun" / "install" / "global", version="18.3.4")
    assert _load(tmp_path, env={"PATH": str(bin_dir)}).bundled.found_by == "bun"


def test_a_broken_install_found_by_searching_is_skipped_with_a_note(tmp_path):
    broken = tmp_path / ".bun" / "install" / "global" / "node_modules" / AGENT_PACKAGE
    broken.mkdir(parents=True)
    (broken / "package.json").write_text(json.dumps({"name": AGENT_PACKAGE, "version": "9.9.9"}))
    result = _load(tmp_path)
    assert result.bundled.kind == "workbench"
    assert any("bun install skipped" in n and "builtin-rules" in n for n in result.bundled.notes)
    assert len(result.rules) == len(FIXTURE)


def test_index_ts_decides_which_files_are_registered(tmp_path):
    package = fake_package(tmp_path, rules=FIXTURE[:3])
    folder = package.joinpath(*RULES_SUBDIR)
    (folder / "zz-unregistered.md").write_text("---\ncondition: x\n---\nnot in index.ts\n")
    assert [r.name for r in _load(tmp_path, omp_package=package).rules] == [r["name"] for r in FIXTURE[:3]]
    (folder / "index.ts").unlink()  # without index.ts: every file, by name
    names = [r.name for r in _load(tmp_path, omp_package=package).rules]
    assert names == sorted([r["name"] for r in FIXTURE[:3]] + ["zz-unregistered"])


def test_an_unreadable_bundled_file_is_a_warning_and_the_others_load(tmp_path):
    package = fake_package(tmp_path, rules=FIXTURE[:2])
    (package.joinpath(*RULES_SUBDIR) / f"{FIXTURE[0]['name']}.md").unlink()
    result = _load(tmp_path, omp_package=package)
    assert [r.name for r in result.rules] == [FIXTURE[1]["name"]]
    assert any("Failed to read file" in w and FIXTURE[0]["name"] in w for w in result.warnings)


def test_the_bundled_source_is_only_resolved_when_the_builtin_provider_runs(tmp_path):
    missing = tmp_path / "missing"
    result = load_rules(cwd=tmp_path, home=tmp_path, env={OMP_PACKAGE_ENV: str(missing)},
                        exclude_providers=["builtin-defaults"])
    assert result.bundled is None


def test_the_real_package_bodies_are_what_gets_loaded(reference_package, tmp_path):
    result = _load(tmp_path, omp_package=reference_package)
    assert result.bundled.version == "18.3.4" and not result.warnings
    rules = _by_name(result)
    assert sorted(rules) == sorted(r["name"] for r in FIXTURE)
    real = (reference_package.joinpath(*RULES_SUBDIR) / "go-ioutil.md").read_text(encoding="utf-8")
    assert rules["go-ioutil"].content == _body(real).strip()
    assert workbench_source().files != result.bundled.files



def test_the_workbenchs_own_rules_are_named_inside_the_package_not_by_where_it_is_installed():
    from workbench.rules.bundled import workbench_source

    own = workbench_source()
    assert "workbench/rules/builtin in the package" in own.describe()
    assert own.folder not in own.describe()  # the install path (a checkout in the README's pictures)
    assert Path(own.to_json()["folder"]).is_dir()  # still there for a reader that wants the files
