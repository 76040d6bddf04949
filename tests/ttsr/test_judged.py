"""Judged rules in the engine (reference 18.3): candidates, claim, hot reload, live settings."""

from __future__ import annotations

import pytest

from workbench.rules import Rule
from workbench.ttsr import (
    JudgedCandidate,
    MatchContext,
    TtsrManager,
    TtsrSettings,
    count_tokens,
    token_prefix,
)

TEXT = MatchContext("text")
THINKING = MatchContext("thinking")


def rule(name: str, **fields) -> Rule:
    return Rule(name, f"/r/{name}.md", f"body of {name}", **fields)


def edit_ctx(path: str) -> MatchContext:
    return MatchContext("tool", tool_name="edit", file_paths=[path], stream_key=f"toolcall:c1#{path}")


def test_a_question_alone_registers_and_makes_the_manager_judged():
    m = TtsrManager()
    assert not m.has_judged_rules()
    assert m.add_rule(rule("j", question="Is it rude?"))
    assert m.has_judged_rules() and m.has_rules()
    assert [r.name for r in m.get_rules()] == ["j"]


def test_blank_question_without_condition_is_rejected():
    m = TtsrManager()
    assert not m.add_rule(rule("j", question="   "))
    assert not m.has_judged_rules()


def test_judged_rule_never_matches_mid_stream_even_with_a_matching_condition():
    m = TtsrManager()
    m.add_rule(rule("j", question="Q?", condition=["TODO"], scope=["text", "tool"]))
    assert m.check_delta("a TODO here", TEXT) == []
    assert m.check_snapshot("TODO", MatchContext("tool", tool_name="write", file_paths=["a.py"])) == []
    assert not m.has_ast_rules()


def test_judged_rule_sets_no_text_latch():
    # Only a judged rule is in text scope, so a plain thinking/text rule elsewhere decides the latch.
    m = TtsrManager()
    m.add_rule(rule("j", question="Q?", scope=["text"]))
    m.add_rule(rule("plain", condition=["x"], scope=["tool"]))
    m.check_delta("x", TEXT)
    assert m.buffers == {}  # the delta was dropped before buffering: no rule reads text


def test_candidates_follow_scope_globs_and_prefilter():
    m = TtsrManager()
    m.add_rule(rule("reply", question="Reply bad?"))  # default scope: text and any tool
    m.add_rule(rule("thinks", question="Thinking bad?", scope=["thinking"]))
    m.add_rule(rule("py", question="Python bad?", globs=["*.py"]))
    m.add_rule(rule("todo", question="Todo bad?", condition=["TODO"]))
    def names(content, ctx):
        return [c.rule.name for c in m.judged_candidates(content, ctx)]
    assert names("hello", TEXT) == ["reply"]
    assert names("a TODO", TEXT) == ["reply", "todo"]
    assert names("hello", THINKING) == ["thinks"]
    assert names("x = 1", edit_ctx("src/a.py")) == ["reply", "py"]
    assert names("x = 1", edit_ctx("src/a.ts")) == ["reply"]
    got = m.judged_candidates("TODO", TEXT)
    assert got[1] == JudgedCandidate(m.get_rules()[3], "Todo bad?")


def test_ast_prefilter_needs_a_tool_output_with_a_language():
    m = TtsrManager()
    m.add_rule(rule("ast", question="Q?", ast_condition=["print($A)"], scope=["tool"]))
    assert [c.rule.name for c in m.judged_candidates("print(1)\n", edit_ctx("a.py"))] == ["ast"]
    assert m.judged_candidates("len(1)\n", edit_ctx("a.py")) == []
    assert m.judged_candidates("print(1)\n", MatchContext("tool", tool_name="bash")) == []


def test_ast_prefilter_on_an_unsupported_language_warns_and_fails():
    m = TtsrManager()
    m.add_rule(rule("ast", question="Q?", ast_condition=["foo"], scope=["tool"]))
    assert m.judged_candidates("foo", edit_ctx("a.nolang")) == []
    assert m.diagnostics[-1].message == "TTSR ast match failed, treating as no match"
    assert m.diagnostics[-1].context["lang"] == "nolang"


def test_claim_marks_injected_and_respects_the_repeat_gate():
    m = TtsrManager({"repeatMode": "after-gap", "repeatGap": 2})
    j = rule("j", question="Q?")
    m.add_rule(j)
    assert m.claim([j]) == [j]
    assert m.get_injected_rule_names() == ["j"]
    assert m.claim([j]) == []  # a second verdict cannot deliver it twice
    assert m.judged_candidates("x", TEXT) == []
    m.increment_message_count()
    m.increment_message_count()
    assert [c.rule.name for c in m.judged_candidates("x", TEXT)] == ["j"]


def test_settings_are_read_live_from_a_callable():
    current = {"s": TtsrSettings.from_mapping({"repeatMode": "once"})}
    m = TtsrManager(lambda: current["s"])
    j = rule("j", question="Q?")
    m.add_rule(j)
    m.claim([j])
    assert m.judged_candidates("x", TEXT) == []
    current["s"] = TtsrSettings.from_mapping({"repeatMode": "after-gap", "repeatGap": 0})
    assert [c.rule.name for c in m.judged_candidates("x", TEXT)] == ["j"]
    current["s"] = TtsrSettings.from_mapping({"enabled": False})
    assert not m.has_judged_rules() and not m.has_rules()
    assert m.get_settings().enabled is False


def test_copy_keeps_the_live_source():
    current = {"s": TtsrSettings.from_mapping(None)}
    m = TtsrManager(lambda: current["s"])
    other = m.copy()
    current["s"] = TtsrSettings.from_mapping({"interruptMode": "never"})
    assert other.get_settings().interrupt_mode == "never"


def test_replace_rules_keeps_records_of_names_still_registered():
    m = TtsrManager()
    a, b = rule("a", condition=["x"]), rule("b", question="Q?")
    m.add_rule(a)
    m.add_rule(b)
    m.check_delta("zz", TEXT)
    m.mark_injected([a, b])
    registered = m.replace_rules([rule("b", question="New Q?"), rule("c", condition=["y"]), rule("bad")])
    assert registered == {"b", "c"}
    assert [r.name for r in m.get_rules()] == ["b", "c"]
    assert m.get_injected_rule_names() == ["b"]
    assert m.buffers == {}
    assert m.rejections == {"bad": "no valid regex condition and no AST pattern"}
    assert m.check_delta("y", TEXT)[0].name == "c"
    m.claim([])
    assert m.judged_candidates("x", TEXT) == []  # b is still spent under repeatMode once


def test_replace_rules_while_disabled_keeps_every_record():
    current = {"s": TtsrSettings.from_mapping(None)}
    m = TtsrManager(lambda: current["s"])
    m.add_rule(rule("a", condition=["x"]))
    m.mark_injected_by_names(["a"])
    current["s"] = TtsrSettings.from_mapping({"enabled": False})
    assert m.replace_rules([rule("z", condition=["q"])]) == set()
    assert m.get_rules() == []
    assert m.get_injected_rule_names() == ["a"]


def test_replace_rules_drops_judged_state():
    m = TtsrManager()
    m.add_rule(rule("j", question="Q?"))
    m.replace_rules([rule("a", condition=["x"])])
    assert not m.has_judged_rules()


def test_explain_names_judged_rules():
    m = TtsrManager()
    m.add_rule(rule("j", question="Q?"))
    assert m.explain(TEXT)["j"].startswith("judged rule")


def test_token_count_grows_with_length_and_counts_words():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("a" * 40) == 8
    assert count_tokens("x = 1;") < count_tokens("x = 1; y = 2;")


@pytest.mark.parametrize("limit", [0, 1, 5, 17])
def test_token_prefix_is_the_longest_prefix_within_the_limit(limit):
    text = "The quick brown fox jumps over the lazy dog. " * 4
    cut = token_prefix(text, limit)
    assert text.startswith(cut)
    assert count_tokens(cut) <= limit
    assert count_tokens(text[: len(cut) + 1]) > limit


def test_token_prefix_keeps_short_text_whole():
    assert token_prefix("short", 32_000) == "short"


def test_get_judged_rules_lists_only_judged_ones():
    m = TtsrManager()
    m.add_rule(rule("a", condition=["x"]))
    m.add_rule(rule("j", question="Q?", condition=["x"]))
    assert [r.name for r in m.get_judged_rules()] == ["j"]


def test_a_live_source_may_return_a_camel_case_mapping():
    current = {"repeatMode": "once"}
    m = TtsrManager(lambda: current)
    j = rule("j", question="Q?")
    m.add_rule(j)
    m.claim([j])
    assert m.judged_candidates("x", TEXT) == []
    current.update(repeatMode="after-gap", repeatGap=0)
    assert [c.rule.name for c in m.judged_candidates("x", TEXT)] == ["j"]
    assert m.get_settings().repeat_mode == "after-gap"
