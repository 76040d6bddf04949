"""Bucketing (the reference's ``bucketRules``): TTSR, always-apply, rulebook or dropped.

The manager is a parameter (anything with ``add_rule(rule) -> bool``) so that this package never
imports ``workbench.ttsr``; the engine sits above the rules layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from workbench.rules.agents import rule_applies_to_agent
from workbench.rules.model import Rule

Bucket = Literal["ttsr", "always_apply", "rulebook", "dropped"]


class RuleRegistrar(Protocol):
    def add_rule(self, rule: Rule) -> bool: ...


@dataclass(frozen=True, slots=True)
class BucketedRule:
    """A rule, the bucket it landed in and why."""

    rule: Rule
    bucket: Bucket
    reason: str

    @property
    def placement(self) -> str:
        """``bucket: reason``, as the rule checks word why a rule is not a TTSR rule."""
        return f"{self.bucket}: {self.reason}"


@dataclass(frozen=True, slots=True)
class RuleBuckets:
    """Each bucket in input order."""

    ttsr: tuple[BucketedRule, ...]
    always_apply: tuple[BucketedRule, ...]
    rulebook: tuple[BucketedRule, ...]
    dropped: tuple[BucketedRule, ...]

    @property
    def always_apply_rules(self) -> list[Rule]:
        return [b.rule for b in self.always_apply]

    @property
    def rulebook_rules(self) -> list[Rule]:
        return [b.rule for b in self.rulebook]

    @property
    def ttsr_rules(self) -> list[Rule]:
        return [b.rule for b in self.ttsr]

    def all(self) -> list[BucketedRule]:
        return [*self.ttsr, *self.always_apply, *self.rulebook, *self.dropped]

    def bucket_of(self, name: str) -> BucketedRule | None:
        """The first entry for ``name`` (a name can repeat only when the caller passed duplicates)."""
        return next((b for b in self.all() if b.rule.name == name), None)


def _has_trigger(rule: Rule) -> bool:
    # A judged rule (``question``) goes to the TTSR manager too, even with no condition (18.3).
    return bool(rule.condition) or bool(rule.ast_condition) or rule.question is not None


def bucket_rules(
    rules: Iterable[Rule],
    manager: RuleRegistrar,
    *,
    disabled_rules: Iterable[str] = (),
    builtin_rules: bool = True,
    agent_name: str | None = None,
) -> RuleBuckets:
    """Sort ``rules`` into buckets, registering triggered rules with ``manager`` on the way.

    ``agent_name`` (``main``, ``sub`` or an agent definition's name): a rule whose ``agents`` patterns
    do not admit it is dropped before any bucket, as disabled rules are; ``None`` leaves ``agents``
    unchecked, as the agent's inventory listings do.

    A rule with a trigger that the manager rejects (disabled engine, only invalid regexes,
    unreachable scope, duplicate name) falls through to always-apply / rulebook like any other.
    """
    disabled = {name.strip() for name in disabled_rules if isinstance(name, str) and name.strip()}
    buckets: dict[Bucket, list[BucketedRule]] = {"ttsr": [], "always_apply": [], "rulebook": [], "dropped": []}

    def put(rule: Rule, bucket: Bucket, reason: str) -> None:
        buckets[bucket].append(BucketedRule(rule, bucket, reason))

    for rule in rules:
        if rule.name in disabled:
            put(rule, "dropped", "listed in disabledRules")
            continue
        if not builtin_rules and rule.source is not None and rule.source.provider == "builtin-defaults":
            put(rule, "dropped", "bundled rule while builtinRules is off")
            continue
        if not rule_applies_to_agent(rule.agents, agent_name):
            put(rule, "dropped", f"agents: {', '.join(rule.agents or ())} does not include {agent_name}")
            continue
        prefix = ""
        if _has_trigger(rule):
            if manager.add_rule(rule):
                put(rule, "ttsr", "trigger accepted by the TTSR manager")
                continue
            prefix = "trigger rejected by the TTSR manager; "
        if rule.always_apply is True:
            put(rule, "always_apply", prefix + "alwaysApply: true")
        elif rule.description:
            put(rule, "rulebook", prefix + "has a description")
        else:
            lacking = "not alwaysApply and no description" if prefix else "no trigger, not alwaysApply, no description"
            put(rule, "dropped", prefix + lacking)
    return RuleBuckets(**{k: tuple(v) for k, v in buckets.items()})
