"""One Markdown rule file -> one ``Rule`` (the reference's ``buildRuleFromMarkdown``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from workbench.rules.agents import parse_rule_agents
from workbench.rules.conditions import parse_rule_condition_and_scope
from workbench.rules.frontmatter import parse_frontmatter
from workbench.rules.model import INTERRUPT_MODES, Rule, RuleSource

DEFAULT_STRIP_NAME = re.compile(r"\.(md|mdc)$")


def _globs(value: Any) -> tuple[str, ...] | None:
    # A list keeps its string items (possibly none); a string stays one unsplit glob ("a, b").
    if isinstance(value, list | tuple):
        return tuple(v for v in value if isinstance(v, str))
    if isinstance(value, str):
        return (value,)
    return None


def rule_from_frontmatter(
    name: str, frontmatter: Mapping[str, Any], body: str, file_path: str, source: RuleSource | None
) -> Rule:
    """The field mapping of ``buildRuleFromMarkdown`` once the frontmatter is parsed."""
    trigger = parse_rule_condition_and_scope(frontmatter)
    mode = frontmatter.get("interruptMode")
    description = frontmatter.get("description")
    return Rule(
        name=name,
        path=file_path,
        content=body,
        globs=_globs(frontmatter.get("globs")),
        # Only boolean true counts; the string "true" gives False (and the field is always present).
        always_apply=frontmatter.get("alwaysApply") is True,
        description=description if isinstance(description, str) else None,
        condition=trigger.condition,
        ast_condition=trigger.ast_condition,
        scope=trigger.scope,
        question=trigger.question,
        agents=parse_rule_agents(frontmatter.get("agents")),
        interrupt_mode=mode if isinstance(mode, str) and mode in INTERRUPT_MODES else None,
        source=source,
        frontmatter=dict(frontmatter),
    )


def build_rule_from_markdown(
    name: str,
    content: str,
    file_path: str,
    source: RuleSource | None,
    *,
    rule_name: str | None = None,
    strip_name_pattern: re.Pattern[str] | str = DEFAULT_STRIP_NAME,
    warnings: list[str] | None = None,
) -> Rule:
    """Build a rule from a Markdown file's text.

    ``name`` is the file name; the rule name is ``rule_name`` when given, else ``name`` with
    ``strip_name_pattern`` removed once (``x.md.mdc`` -> ``x.md``). A frontmatter ``name`` key is
    ignored, as in the reference. Frontmatter warnings (each naming ``file_path``) are appended to
    ``warnings`` when a list is passed.
    """
    parsed = parse_frontmatter(content, source=file_path)
    if warnings is not None:
        warnings.extend(parsed.warnings)
    if rule_name is None:
        pattern = re.compile(strip_name_pattern) if isinstance(strip_name_pattern, str) else strip_name_pattern
        rule_name = pattern.sub("", name, count=1)
    return rule_from_frontmatter(rule_name, parsed.frontmatter, parsed.body, file_path, source)
