"""``compare_backtests``: the turns that newly fire, stop firing or change interrupt behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.backtest.test_run import edit, text, write_session
from workbench.backtest import BacktestOptions, changed, compare_backtests, format_comparison, run_backtest


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    write_session(folder / "a.jsonl", [
        [text("I will call cfg.unwrap() here.")],
        [text("And value.expect('x') there.")],
        [edit("t1", "src/lib.rs", "let v = r.unwrap();")],
    ])
    write_session(folder / "b.jsonl", [[text("Nothing to see.")], [text("still cfg.unwrap() ok")]])
    return folder


def _rules(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file, body in files.items():
        (folder / file).write_text(body, encoding="utf-8")
    return folder


def _run(rules: Path, corpus: Path):
    return run_backtest(rules, [corpus], workers=1, options=BacktestOptions())


def test_a_wider_condition_newly_fires_and_a_narrower_scope_stops(tmp_path, corpus):
    base = _rules(tmp_path, "base", {"no-unwrap.md": "---\ncondition: '\\.unwrap\\(\\)'\n---\nUse ?.\n"})
    # the draft also catches expect() but only watches prose, so the tool-call turn stops firing
    draft = _rules(tmp_path, "draft", {"no-unwrap.md": "---\ncondition: '\\.(unwrap|expect)\\('\nscope: text\n---\nUse ?.\n"})
    cmp = compare_backtests(_run(base, corpus), _run(draft, corpus))
    a, b = str(corpus / "a.jsonl"), str(corpus / "b.jsonl")
    assert [(r["session"], r["rule"], r["turn"]) for r in cmp["newly_fires"]] == [(a, "no-unwrap", 1)]
    assert [(r["session"], r["turn"], r["source"]) for r in cmp["stops_firing"]] == [(a, 2, "tool")]
    assert cmp["interrupt_changed"] == []
    assert cmp["counts"] == {"newly_fires": 1, "stops_firing": 1, "interrupt_changed": 0}
    assert cmp["unchanged"] == 2  # a turn 0 and b turn 1 fire on both sides
    new = cmp["newly_fires"][0]
    assert new["base_step"] is None and new["draft_step"] == new["step"] and "expect" in new["snippet"]
    stop = cmp["stops_firing"][0]
    assert stop["draft_step"] is None and stop["base_step"] == stop["step"]
    assert cmp["rules"]["changed"] == ["no-unwrap"]
    assert list(cmp["by_rule"]) == ["no-unwrap"]
    assert cmp["by_rule"]["no-unwrap"]["newly_fires"] == cmp["newly_fires"]
    assert cmp["by_rule"]["no-unwrap"]["stops_firing"] == cmp["stops_firing"]
    assert cmp["sessions"] == {"base": 2, "draft": 2, "only_base": [], "only_draft": []}
    assert changed(cmp)
    assert b not in {r["session"] for c in ("newly_fires", "stops_firing") for r in cmp[c]}


def test_interrupt_mode_change_is_its_own_category(tmp_path, corpus):
    base = _rules(tmp_path, "base", {"r.md": "---\ncondition: 'unwrap'\n---\nx\n"})
    draft = _rules(tmp_path, "draft", {"r.md": "---\ncondition: 'unwrap'\ninterruptMode: tool-only\n---\nx\n"})
    cmp = compare_backtests(_run(base, corpus), _run(draft, corpus))
    assert cmp["newly_fires"] == [] and cmp["stops_firing"] == []
    # prose turns no longer interrupt; the tool-call turn still does (so it is unchanged)
    rows = cmp["interrupt_changed"]
    assert [(Path(r["session"]).name, r["turn"]) for r in rows] == [("a.jsonl", 0), ("b.jsonl", 1)]
    assert all(r["base_interrupts"] is True and r["draft_interrupts"] is False for r in rows)
    assert cmp["unchanged"] == 1
    text_out = format_comparison(cmp, base="base", draft="draft")
    assert "0 turn(s) newly fire, 0 stop firing, 2 change interrupt behaviour (1 unchanged)" in text_out
    assert "interrupts -> no interrupt" in text_out


def test_identical_rule_sets_change_nothing(tmp_path, corpus):
    rules = _rules(tmp_path, "base", {"r.md": "---\ncondition: 'unwrap'\n---\nx\n"})
    result = _run(rules, corpus)
    cmp = compare_backtests(result, result)
    assert not changed(cmp)
    assert cmp["unchanged"] == 3


def test_a_rule_only_in_the_draft(tmp_path, corpus):
    base = _rules(tmp_path, "base", {"r.md": "---\ncondition: 'unwrap'\n---\nx\n"})
    draft = _rules(tmp_path, "draft", {"r.md": "---\ncondition: 'unwrap'\n---\nx\n",
                                       "new.md": "---\ncondition: 'Nothing'\n---\nx\n"})
    cmp = compare_backtests(_run(base, corpus), _run(draft, corpus))
    assert cmp["rules"]["only_draft"] == ["new"]
    assert [(r["rule"], r["turn"]) for r in cmp["newly_fires"]] == [("new", 0)]
