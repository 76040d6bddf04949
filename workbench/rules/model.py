"""The rule model: one frozen ``Rule`` per rule file, with the reference's field meanings.

``None`` on an optional field means the field is absent (JavaScript ``undefined``), which the
reference distinguishes from an empty list in several places.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

InterruptMode = Literal["never", "prose-only", "tool-only", "always"]
Level = Literal["user", "project"]
# The one home of the interrupt modes (a rule's ``interruptMode`` and ``ttsr.interruptMode``), in the
# reference's order of values; the CLI's choices and the UI's options are built from it.
INTERRUPT_MODES: tuple[InterruptMode, ...] = ("never", "prose-only", "tool-only", "always")


@dataclass(frozen=True, slots=True)
class RuleSource:
    """Where a rule came from (the reference's ``_source``)."""

    provider: str
    provider_name: str
    path: str
    level: Level = "project"


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule as the reference's ``Rule`` object; list fields are tuples or lists of ``str``."""

    name: str
    path: str
    content: str
    globs: Sequence[str] | None = None
    always_apply: bool | None = None
    description: str | None = None
    condition: Sequence[str] | None = None
    ast_condition: Sequence[str] | None = None
    scope: Sequence[str] | None = None
    interrupt_mode: InterruptMode | None = None
    source: RuleSource | None = None
    # A judged rule (reference 18.3): the yes/no question a judge answers about each completed
    # output; ``condition`` / ``astCondition`` then only pre-filter. Trimmed, never empty.
    question: str | None = None
    # ``agents:`` (18.1.6+): lowercased glob patterns of the agents the rule applies to; None = every agent.
    agents: Sequence[str] | None = None
    # The parsed frontmatter, kept so that project-specific keys (rule examples) stay reachable.
    # Not part of the reference model, so it takes no part in equality.
    frontmatter: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
