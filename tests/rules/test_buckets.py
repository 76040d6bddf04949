"""bucket_rules with a stand-in manager (the real engine is tested in tests/ttsr)."""

from __future__ import annotations

from workbench.rules import Rule, RuleSource, bucket_rules


class RecordingManager:
    """Accepts rules whose name is not in ``reject``; remembers what it was offered."""

    def __init__(self, reject=()):
        self.reject = set(reject)
        self.offered: list[str] = []

    def add_rule(self, rule: Rule) -> bool:
        self.offered.append(rule.name)
        return rule.name not in self.reject


def rule(name: str, **fields) -> Rule:
    return Rule(name=name, path=f"/r/{name}.md", content="body", **fields)


def bucket_names(buckets):
    return {
        "ttsr": [b.rule.name for b in buckets.ttsr],
        "always_apply": [b.rule.name for b in buckets.always_apply],
        "rulebook": [b.rule.name for b in buckets.rulebook],
        "dropped": [b.rule.name for b in buckets.dropped],
    }


def test_rules_land_in_buckets_in_input_order():
    rules = [
        rule("t1", condition=("x",)),
        rule("sticky", always_apply=True, description="d"),
        rule("book", description="d"),
        rule("ast", ast_condition=("f($A)",)),
        rule("orphan"),
        rule("empty-desc", description=""),
    ]
    manager = RecordingManager()
    buckets = bucket_rules(rules, manager)
    assert bucket_names(buckets) == {
        "ttsr": ["t1", "ast"],
        "always_apply": ["sticky"],
        "rulebook": ["book"],
        "dropped": ["orphan", "empty-desc"],
    }
    assert manager.offered == ["t1", "ast"]
    assert buckets.always_apply_rules[0].name == "sticky"


def test_rejected_trigger_falls_through_with_its_reason():
    rules = [rule("a", condition=("(",), always_apply=True), rule("b", condition=("(",), description="d"), rule("c", condition=("(",))]
    buckets = bucket_rules(rules, RecordingManager(reject={"a", "b", "c"}))
    assert bucket_names(buckets)["always_apply"] == ["a"]
    assert bucket_names(buckets)["rulebook"] == ["b"]
    assert bucket_names(buckets)["dropped"] == ["c"]
    assert all(b.reason.startswith("trigger rejected") for b in buckets.all())


def test_disabled_rules_and_builtin_switch():
    builtin = RuleSource(provider="builtin-defaults", provider_name="Builtin Defaults", path="builtin-defaults:b.md", level="user")
    rules = [rule("mine", condition=("x",)), rule("b", condition=("y",), source=builtin), rule("keep", description="d")]
    manager = RecordingManager()
    buckets = bucket_rules(rules, manager, disabled_rules=[" mine ", "", "  "], builtin_rules=False)
    assert bucket_names(buckets)["dropped"] == ["mine", "b"]
    assert manager.offered == []
    assert buckets.bucket_of("keep").bucket == "rulebook"
    assert "disabledRules" in buckets.bucket_of("mine").reason
