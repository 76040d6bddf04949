"""``RuleEntry``: one rule as the manager registers it, compiled once.

Its own module because both the manager (``workbench.ttsr.manager``) and its judged-rule half
(``workbench.ttsr.judged``) read entries: with the type here, neither imports the other back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.ttsr.conditions import CompiledCondition
from workbench.ttsr.context import MatchContext
from workbench.ttsr.globs import matches_any_path
from workbench.ttsr.scope import RuleScope

__all__ = ["RuleEntry"]


@dataclass(frozen=True, slots=True)
class RuleEntry:
    """A registered rule, compiled once at registration."""

    name: Any
    rule: Any
    conditions: tuple[CompiledCondition, ...]
    condition_ids: tuple[int, ...]
    ast_conditions: tuple[str, ...]
    scope: RuleScope
    globs: tuple[str, ...] | None
    # Judged rules (18.3): ``conditions``/``ast_conditions`` stay empty, so no stream check can
    # match them; their own conditions only pre-filter completed output (``workbench.ttsr.judged``).
    question: str | None = None
    prefilter: tuple[CompiledCondition, ...] = ()
    prefilter_ast: tuple[str, ...] = ()

    def passes_globs(self, ctx: MatchContext) -> bool:
        return self.globs is None or matches_any_path(self.globs, ctx.file_paths)
