"""``agents:`` frontmatter: parsing, the agent-name globs and the drop from every bucket."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from workbench.rules import Rule, bucket_rules, build_rule_from_markdown
from workbench.rules.agents import agent_from_session, agent_glob_match, parse_rule_agents, rule_applies_to_agent


class _Accepting:
    def add_rule(self, rule):
        return True


@pytest.mark.parametrize(("value", "expected"), [
    (None, None), ([], None), ("", None),
    ("Scout", ("scout",)), ("scout, Reviewer", ("scout", "reviewer")), (["a", "A", "b"], ("a", "b")),
    ("{scout, task}", ("{scout,task}",)), (["'main'"], ("main",)),
])
def test_parse_rule_agents(value, expected):
    assert parse_rule_agents(value) == expected


@pytest.mark.parametrize(("pattern", "name", "hit"), [
    ("main", "main", True), ("main", "sub", False), ("scout*", "scout-2", True), ("s?b", "sub", True),
    ("{scout,task}", "task", True), ("{scout,task}", "main", False), ("[mt]ain", "main", True),
    ("[!m]ain", "main", False), ("*", "anything", True), ("re\\*", "re*", True), ("re\\*", "rex", False),
])
def test_agent_glob(pattern, name, hit):
    assert agent_glob_match(pattern, name) is hit


def test_no_agents_or_no_name_admits_and_the_name_is_trimmed_and_lowercased():
    assert rule_applies_to_agent(None, "scout")
    assert rule_applies_to_agent(("scout",), None)
    assert rule_applies_to_agent(("scout",), "  Scout ")
    assert not rule_applies_to_agent(("scout",), "main")


def test_built_rule_carries_agents():
    rule = build_rule_from_markdown("r.md", "---\nagents: [Scout]\ncondition: x\n---\nbody", "/r.md", None)
    assert rule.agents == ("scout",)


def test_rule_for_another_agent_is_dropped_before_the_manager_sees_it():
    scoped = Rule(name="s", path="/s.md", content="b", condition=("x",), agents=("scout",))
    plain = Rule(name="p", path="/p.md", content="b", condition=("x",))
    seen = []

    class Recording:
        def add_rule(self, rule):
            seen.append(rule.name)
            return True

    buckets = bucket_rules([scoped, plain], Recording(), agent_name="main")
    assert seen == ["p"]
    assert buckets.bucket_of("s").bucket == "dropped"
    assert "does not include main" in buckets.bucket_of("s").reason
    assert bucket_rules([scoped], _Accepting(), agent_name="scout").bucket_of("s").bucket == "ttsr"
    assert bucket_rules([scoped], _Accepting()).bucket_of("s").bucket == "ttsr"  # no name: unchecked


def _session(entries, header=None):
    return SimpleNamespace(header=header or {"type": "session"}, entries=[SimpleNamespace(raw=e) for e in entries])


def test_agent_from_session():
    assert agent_from_session(None)[:2] == ("main", "default")
    assert agent_from_session(_session([{"type": "message"}]))[:2] == ("main", "default")
    init = [{"type": "session_init", "agent": "scout"}, {"type": "message"}]
    assert agent_from_session(_session(init))[:2] == ("scout", "session")
    assert agent_from_session(_session([{"type": "session_init"}]))[:2] == ("sub", "session")
    child = _session([], {"type": "session", "parentSession": "/p.jsonl"})
    assert agent_from_session(child)[:2] == ("sub", "session")
