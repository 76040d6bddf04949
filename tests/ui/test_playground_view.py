"""The Playground tab from Python: the report as laid out, escaping, and saving a text as an example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.rules import parse_frontmatter
from workbench.ui import notify
from workbench.ui.playground_view import PlaygroundView

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def project(tmp_path):
    target = tmp_path / "served"
    shutil.copytree(FIXTURES, target)
    rules = target / "project" / ".omp" / "rules"
    (rules / "ts-console.md").write_text(
        "---\ndescription: no console.log in TypeScript\nastCondition:\n  - console.log($$$ARGS)\n"
        "scope: tool:write(*.ts)\n---\nUse the logger.\n", encoding="utf-8")
    (rules / "bad-regex.md").write_text("---\ncondition: 'a(b'\n---\nbroken\n", encoding="utf-8")
    return target / "project"


@pytest.fixture
def view(project):
    return PlaygroundView.from_folder(project)


def test_regex_hits_groups_and_positions_are_listed_and_escaped(view):
    view.rule_select.value = "no-unwrap"
    view.update("ok <b>x</b>\nlet v = res.unwrap();")
    html = view.output.object
    assert view.report.fires
    assert "fires" in html and "1 match(es)" in html
    assert '<mark class="wb-match">.unwrap(</mark>' in html
    assert "line 2, col 12" in html
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_a_bad_pattern_shows_its_error_position(view):
    view.rule_select.value = "bad-regex"
    view.update("ab")
    html = view.output.object
    assert "wb-play-error" in html and "position 1" in html
    assert view.report.conditions[0].error_position == 1


def test_ast_rule_shows_nodes_bindings_tree_and_parse_errors(view):
    view.rule_select.value = "ts-console"
    view.source.value = "tool call (edit/write)"
    view.path.value = "src/a.ts"
    view.update("console.log(a, b);\nlet = ;")
    html = view.output.object
    assert view.report.fires
    assert '<mark class="wb-node">console.log(a, b)</mark>' in html
    assert "$$$ARGS=&#x27;a&#x27;, &#x27;b&#x27;" in html
    assert "Parse errors" in html and "Syntax tree" in html
    view.path.value = "src/a.py"  # outside the scope's glob: the manager says why
    assert not view.report.fires and "does not fire" in view.output.object


def test_save_as_example_shows_the_diff_then_appends(view, project):
    rule_file = project / ".omp" / "rules" / "no-unwrap.md"
    before = rule_file.read_text(encoding="utf-8")
    view.rule_select.value = "no-unwrap"
    view.update("value.unwrap() here")
    view.preview_example()
    assert rule_file.read_text(encoding="utf-8") == before  # nothing written before the confirm
    assert not view.confirm_btn.disabled
    assert '+examples:' in view.diff.object and "value.unwrap() here" in view.diff.object
    revision = view.state.rules_revision
    view.confirm_example()
    after = rule_file.read_text(encoding="utf-8")
    assert after.startswith(before.split("---\n", 2)[0] + "---\n")
    examples = parse_frontmatter(after).frontmatter["examples"]
    assert examples == [{"text": "value.unwrap() here", "triggers": True}]
    assert after.replace('examples:\n  - text: "value.unwrap() here"\n    triggers: true\n', "") == before
    assert view.state.rules_revision == revision + 1 and view.confirm_btn.disabled
    assert notify.history()[-1][0] == "success"


def test_a_file_changed_between_diff_and_confirm_is_not_overwritten(view, project):
    rule_file = project / ".omp" / "rules" / "no-unwrap.md"
    view.rule_select.value = "no-unwrap"
    view.update("x.unwrap()")
    view.preview_example()
    rule_file.write_text(rule_file.read_text(encoding="utf-8") + "\nedited elsewhere\n", encoding="utf-8")
    view.confirm_example()
    assert rule_file.read_text(encoding="utf-8").endswith("edited elsewhere\n")
    assert "examples" not in rule_file.read_text(encoding="utf-8")
    level, message = notify.history()[-1]
    assert level == "error" and "changed on disk" in message


def test_bundled_rules_cannot_take_examples(view):
    view.rule_select.value = "ts-no-any"
    view.update("let x: any = 1")
    view.preview_example()
    level, message = notify.history()[-1]
    assert level == "error" and "bundled" in message and view.confirm_btn.disabled


def test_a_negative_example_keeps_the_users_choice_while_typing(view, project):
    rule_file = project / ".omp" / "rules" / "no-unwrap.md"
    view.rule_select.value = "no-unwrap"
    view.triggers.value = False  # "must not fire": the rule is wrong to fire here
    view.update("the word .unwrap( in prose about Rust")
    assert view.report.fires and view.triggers.value is False
    view.preview_example()
    view.confirm_example()
    examples = parse_frontmatter(rule_file.read_text(encoding="utf-8")).frontmatter["examples"]
    assert examples[-1]["triggers"] is False


def test_a_rule_file_linked_from_outside_the_served_folders_is_not_written(tmp_path, project):
    outside = tmp_path / "outside.md"
    outside.write_text("---\ncondition: 'linked'\n---\nLinked.\n", encoding="utf-8")
    (project / ".omp" / "rules" / "linked.md").symlink_to(outside)
    view = PlaygroundView.from_folder(project)
    view.rule_select.value = "linked"
    view.update("linked text")
    assert view.report.fires
    view.preview_example()
    level, message = notify.history()[-1]
    assert level == "error" and "outside the served folders" in message
    assert view.confirm_btn.disabled and outside.read_text(encoding="utf-8").endswith("Linked.\n")
