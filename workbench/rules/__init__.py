"""Rules: the model and the discovery pipeline (pure; reads rule files only).

Public API:

- ``Rule``, ``RuleSource`` — the rule model (``None`` = absent, as JS ``undefined``).
- ``parse_frontmatter(content, *, source=None, ...)`` — YAML 1.2 frontmatter with the reference's
  repair retry and per-line fallback; returns a ``ParsedFrontmatter`` (frontmatter, body, warnings).
- ``parse_rule_condition_and_scope(frontmatter)`` — condition / astCondition / scope normalisation,
  including the file-glob shorthand; returns a ``ConditionAndScope``.
- ``build_rule_from_markdown(name, content, file_path, source, *, rule_name=None, ...)`` — one ``Rule``.
- ``load_rules(*, cwd, home=None, repo_root=None, agent_dir=None, env=None, ...)`` — every provider,
  merged by priority, first-wins by name; returns a frozen ``RuleLoadResult``.
- ``BundledSource`` / ``find_bundled_source(...)`` — which bundled (builtin-defaults) rule files are read:
  an oh-my-pi installation (``--omp-package``, ``WORKBENCH_OMP_PACKAGE``, Bun/npm global) or the
  workbench's own rewording; ``RuleLoadResult.bundled`` says which.
- ``bucket_rules(rules, manager, *, disabled_rules=(), builtin_rules=True)`` — TTSR / always-apply /
  rulebook / dropped, each rule with the reason it landed there; returns ``RuleBuckets``.
- ``render_system_prompt(...)`` and ``resolve_rule_url(url, rules)`` — the prompt section and ``rule://``.
"""

from workbench.rules.model import INTERRUPT_MODES, Rule, RuleSource
from workbench.rules.frontmatter import ParsedFrontmatter, parse_frontmatter
from workbench.rules.conditions import (
    ConditionAndScope,
    is_likely_file_glob,
    normalize_rule_field,
    parse_rule_condition_and_scope,
    split_scope_tokens,
)
from workbench.rules.building import build_rule_from_markdown
from workbench.rules.bundled import OMP_PACKAGE_ENV, BundledSource, find_bundled_source
from workbench.rules.discovery import (
    PROVIDERS,
    DiscoveredRule,
    RuleLoadResult,
    load_rules,
)
from workbench.rules.buckets import BucketedRule, RuleBuckets, bucket_rules
from workbench.rules.prompt import RuleResource, render_system_prompt, resolve_rule_url

__all__ = [
    "INTERRUPT_MODES",
    "OMP_PACKAGE_ENV",
    "PROVIDERS",
    "BucketedRule",
    "BundledSource",
    "ConditionAndScope",
    "DiscoveredRule",
    "ParsedFrontmatter",
    "Rule",
    "RuleBuckets",
    "RuleLoadResult",
    "RuleResource",
    "RuleSource",
    "bucket_rules",
    "build_rule_from_markdown",
    "find_bundled_source",
    "is_likely_file_glob",
    "load_rules",
    "normalize_rule_field",
    "parse_frontmatter",
    "parse_rule_condition_and_scope",
    "render_system_prompt",
    "resolve_rule_url",
    "split_scope_tokens",
]
