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
- ``bucket_rules(rules, manager, *, disabled_rules=(), builtin_rules=True, agent_name=None)`` — TTSR /
  always-apply / rulebook / dropped, each rule with the reason it landed there; returns ``RuleBuckets``.
- ``read_agent_settings(*, cwd, home, agent_dir=None, env=None, flags=None)`` — the agent's ``ttsr.*``
  settings and discovery switches from its config layers, each ``SettingValue`` with its source.
- ``parse_rule_agents`` / ``rule_applies_to_agent`` / ``rules_for_agent`` / ``agent_from_session`` —
  ``agents:`` frontmatter and the running agent's name (``MAIN_AGENT``, ``SUB_AGENT``).
- ``find_agent_templates(...)`` / ``templates_from(bundled)`` — the installed agent's three reminder
  templates (``AgentTemplates``; empty = the workbench's own wording).
- ``render_system_prompt(...)`` and ``resolve_rule_url(url, rules)`` — the prompt section and ``rule://``.
- ``parse_examples(frontmatter, ...)`` / ``has_examples`` / ``RuleExample``: a rule's own examples;
  ``example_line(path, index)`` their line in the file (YAML node marks).
- ``js_trim`` (and ``js_trim_start`` / ``js_trim_end``): JavaScript's ``trim``, shared with the engine.
- ``load_rule_file(path)``, ``load_rule_paths(paths)``, ``resolve_rules(paths, *, home=None)`` and
  ``rule_files(paths)`` — rules named as files and folders (``--rules``), rather than discovered.
- ``RuleSetOptions`` / ``discover_rule_set(options)`` — the rule set and agent a command runs with
  (``--rules``, ``--cwd``, ``--home``, ``--no-builtin``, ``--omp-package``, ``--agent``, ``--edit-mode``)
  as one typed value, and the rules it names; ``AGENT_EDIT_MODES``, ``DEFAULT_AGENT``.
"""

from workbench.rules.agent_settings import (
    TTSR_DEFAULTS,
    AgentSettings,
    JudgeState,
    SettingValue,
    judge_state,
    read_agent_settings,
)
from workbench.rules.agent_texts import AgentTemplates, find_agent_templates, templates_from
from workbench.rules.agents import (
    MAIN_AGENT,
    SUB_AGENT,
    agent_from_session,
    parse_rule_agents,
    rule_applies_to_agent,
    rules_for_agent,
)
from workbench.rules.buckets import BucketedRule, RuleBuckets, bucket_rules
from workbench.rules.building import build_rule_from_markdown
from workbench.rules.bundled import OMP_PACKAGE_ENV, BundledSource, find_bundled_source
from workbench.rules.conditions import (
    ConditionAndScope,
    is_likely_file_glob,
    normalize_rule_field,
    parse_rule_condition_and_scope,
    split_scope_tokens,
)
from workbench.rules.discovery import (
    PROVIDERS,
    DiscoveredRule,
    RuleLoadResult,
    load_rules,
)
from workbench.rules.examples import (
    EXAMPLES_KEY,
    RuleExample,
    example_line,
    has_examples,
    parse_examples,
)
from workbench.rules.files import (
    RULE_SUFFIXES,
    load_rule_file,
    load_rule_paths,
    resolve_rules,
    rule_files,
)
from workbench.rules.frontmatter import ParsedFrontmatter, parse_frontmatter
from workbench.rules.jsstring import JS_WHITESPACE, js_trim, js_trim_end, js_trim_start
from workbench.rules.model import INTERRUPT_MODES, InterruptMode, Rule, RuleSource
from workbench.rules.prompt import RuleResource, render_system_prompt, resolve_rule_url
from workbench.rules.selection import (
    AGENT_EDIT_MODES,
    DEFAULT_AGENT,
    RuleSetOptions,
    discover_rule_set,
)

__all__ = [
    "AGENT_EDIT_MODES",
    "DEFAULT_AGENT",
    "TTSR_DEFAULTS",
    "RuleSetOptions",
    "discover_rule_set",
    "MAIN_AGENT",
    "SUB_AGENT",
    "AgentSettings",
    "AgentTemplates",
    "find_agent_templates",
    "templates_from",
    "JudgeState",
    "judge_state",
    "SettingValue",
    "agent_from_session",
    "parse_rule_agents",
    "read_agent_settings",
    "rule_applies_to_agent",
    "rules_for_agent",
    "INTERRUPT_MODES",
    "JS_WHITESPACE",
    "OMP_PACKAGE_ENV",
    "PROVIDERS",
    "RULE_SUFFIXES",
    "BucketedRule",
    "BundledSource",
    "ConditionAndScope",
    "DiscoveredRule",
    "InterruptMode",
    "ParsedFrontmatter",
    "Rule",
    "RuleBuckets",
    "RuleExample",
    "RuleLoadResult",
    "RuleResource",
    "RuleSource",
    "bucket_rules",
    "build_rule_from_markdown",
    "EXAMPLES_KEY",
    "example_line",
    "find_bundled_source",
    "has_examples",
    "is_likely_file_glob",
    "js_trim",
    "js_trim_end",
    "js_trim_start",
    "load_rule_file",
    "load_rule_paths",
    "load_rules",
    "normalize_rule_field",
    "parse_examples",
    "parse_frontmatter",
    "parse_rule_condition_and_scope",
    "render_system_prompt",
    "resolve_rule_url",
    "resolve_rules",
    "rule_files",
    "split_scope_tokens",
]
