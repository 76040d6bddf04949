"""The Stepper's rules table as HTML: what it lists, including rules that never reached the manager."""

from __future__ import annotations

from pathlib import Path

from workbench.replay import ReplayConfig, Stepper, read_stream
from workbench.rules import load_rules
from workbench.ui.step_html import rules_html

STREAM = Path(__file__).resolve().parents[2] / "sample_sessions" / "streams" / "prose-unwrap.stream.jsonl"


def _folder(tmp_path: Path) -> Path:
    rules = tmp_path / ".omp" / "rules"
    rules.mkdir(parents=True)
    (rules / "good.md").write_text("---\ncondition: 'unwrap'\n---\nno unwrap\n", encoding="utf-8")
    (rules / "empty-<b>.md").write_text("---\ncondition: 'bar'\n---\n", encoding="utf-8")  # no body
    return tmp_path


def test_a_rule_discovery_turned_away_is_listed_as_not_registered_with_its_reason(tmp_path):
    loaded = load_rules(cwd=str(_folder(tmp_path)), home=str(tmp_path / "home"), exclude_providers=("builtin-defaults",))
    rejected = {item.rule.name: item.invalid for item in loaded.items if item.invalid}
    assert list(rejected) == ["empty-<b>"]
    snap = Stepper(read_stream(STREAM), loaded.rules, ReplayConfig.of({}, cwd=str(tmp_path))).seek(0)
    assert [r.name for r in snap.rules] == ["good"]  # the manager never saw it

    html = rules_html(snap, (), rejected)
    row = next(r for r in html.split("<tr") if "empty-" in r)
    assert "not registered" in row and "invalid rule file: Rule must have content" in row
    assert "empty-&lt;b&gt;" in row  # a name from a file is shown as text
    assert "wb-row-suppressed" in row
    assert "empty-" not in rules_html(snap, (), {})  # without the list the table is the manager's alone
