"""The app's rule set reads nothing above the served root that holds the project folder."""

from __future__ import annotations

from pathlib import Path

from workbench.ui.roots import ServedRoots
from workbench.ui.state import AppState


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_cline_rules_above_the_served_root_are_not_read(tmp_path):
    outside = tmp_path / "outside"
    served = outside / "served"
    project = served / "project"
    _write(project / ".omp" / "rules" / "local.md", "---\ndescription: d\n---\nlocal rule\n")
    _write(outside / ".clinerules" / "leak.md", "never read by the served app\n")
    state = AppState(ServedRoots.of([served]))
    assert state.rules_path() == project
    names = {r.name for r in state.rule_set().loaded().rules}
    assert "local" in names and "leak" not in names
    # a .clinerules inside the served root, above the project, is still in bounds
    _write(served / ".clinerules" / "inside.md", "inside the served root\n")
    state._ruleset = None
    names = {r.name for r in state.rule_set().loaded().rules}
    assert {"local", "inside"} <= names and "leak" not in names


def test_root_of_picks_the_outermost_served_folder(tmp_path):
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    roots = ServedRoots.of([inner, tmp_path / "a"])
    assert roots.root_of(inner / "x") == tmp_path / "a"
    assert roots.root_of(tmp_path / "elsewhere") is None


def test_the_bundled_rules_switch_and_source(tmp_path, monkeypatch):
    from workbench.rules import OMP_PACKAGE_ENV
    from workbench.ui.rules_view import RulesView

    monkeypatch.setenv(OMP_PACKAGE_ENV, "none")  # the workbench's own files, whatever is installed here
    _write(tmp_path / "project" / ".omp" / "rules" / "local.md", "---\ndescription: d\n---\nlocal rule\n")
    view = RulesView.from_folder(tmp_path / "project")
    view._refresh()
    ruleset = view.state.rule_set()
    assert "go-ioutil" in {r.name for r in ruleset.rules()}
    assert "Bundled rules: the workbench&#x27;s own rewording" in view.summary.object
    assert "Installed" not in ruleset.source_text("go-ioutil") and "io/ioutil" in ruleset.source_text("go-ioutil")
    revision = view.state.rules_revision
    view.builtin.value = False
    assert view.state.rules_revision == revision + 1
    view._refresh()
    assert {r.name for r in ruleset.rules()} == {"local"}
    assert "Bundled rules: off" in view.summary.object
    view.builtin.value = True
    assert "go-ioutil" in {r.name for r in ruleset.rules()}


def test_the_app_reads_the_bundled_rules_of_the_installation_the_environment_names(tmp_path, monkeypatch):
    from tests.rules.test_builtin import fake_package
    from workbench.rules import OMP_PACKAGE_ENV

    package = fake_package(tmp_path / "omp")
    monkeypatch.setenv(OMP_PACKAGE_ENV, str(package))
    _write(tmp_path / "served" / "project" / ".omp" / "rules" / "local.md", "---\ndescription: d\n---\nlocal\n")
    state = AppState(ServedRoots.of([tmp_path / "served"]))
    loaded = state.rule_set().loaded()
    assert loaded.bundled.kind == "omp-package" and loaded.bundled.package == str(package)
    assert loaded.get("go-ioutil").content == "Installed body of go-ioutil."
    assert state.rule_set().source_text("go-ioutil").endswith("Installed body of go-ioutil.\n")


def test_a_poll_while_the_rules_are_read_drops_nothing_and_an_edit_meanwhile_is_seen(tmp_path, monkeypatch):
    # The page's poll runs on the document while a worker (timeline, fires, backtest) reads the rules.
    from workbench.ui import ruleset as ruleset_mod

    project = tmp_path / "project"
    rule = project / ".omp" / "rules" / "local.md"
    _write(rule, "---\ndescription: d\n---\nlocal rule\n")
    rules = ruleset_mod.RuleSet(project, builtin=False)
    real = ruleset_mod.load_rules
    polled: list[bool] = []

    def reading(**kwargs):
        result = real(**kwargs)
        _write(rule, "---\ndescription: edited while the rules were read\n---\nlocal rule\n")
        polled.append(rules.changed_on_disk())  # the poll, while this read is still going on
        return result

    monkeypatch.setattr(ruleset_mod, "load_rules", reading)
    loaded = rules.loaded()
    assert polled == [False] and loaded is not None and [r.name for r in loaded.rules] == ["local"]
    monkeypatch.setattr(ruleset_mod, "load_rules", real)
    assert rules.changed_on_disk()  # the next poll sees the edit made during the read
    assert rules.loaded().get("local").description == "edited while the rules were read"
    assert not rules.changed_on_disk()
