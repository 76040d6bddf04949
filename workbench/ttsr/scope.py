"""Rule scopes: which streams (text, thinking, which tools and paths) a rule watches.

Reference quirks kept: no scope or ``[]`` is the default (text + any tool, *not* thinking) but
``[""]`` reaches nothing; keywords match only without a path (``text(*.ts)`` is a tool named
``text``); a tool token's glob keeps its case; ``tool( )`` is any tool.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.rules.jsstring import js_trim
from workbench.ttsr.context import MatchContext
from workbench.ttsr.globs import matches_any_path

_TOKEN = re.compile(
    r"^(?:(?P<prefix>tool)(?::(?P<tool>[a-z0-9_-]+))?|(?P<bare>[a-z0-9_-]+))(?:\((?P<path>[^)]+)\))?\Z",
    # ASCII: JS `/i` without `u` never folds KELVIN SIGN or long s into [a-z]; `\Z`: JS `$`.
    re.IGNORECASE | re.ASCII,
)


@dataclass(frozen=True, slots=True)
class ToolScope:
    """One ``tool:NAME(GLOB)`` entry; ``None`` parts are unrestricted."""

    tool_name: str | None
    path_glob: str | None


@dataclass(frozen=True, slots=True)
class RuleScope:
    allow_text: bool
    allow_thinking: bool
    allow_any_tool: bool
    tool_scopes: tuple[ToolScope, ...] = ()

    @property
    def reaches_anything(self) -> bool:
        return self.allow_text or self.allow_thinking or self.allow_any_tool or bool(self.tool_scopes)

    def allows(self, ctx: MatchContext) -> bool:
        """The reference's scope test for one context."""
        if ctx.source == "text":
            return self.allow_text
        if ctx.source == "thinking":
            return self.allow_thinking
        if ctx.source != "tool":
            return False
        if self.allow_any_tool:
            return True
        name = normalized_tool_name(ctx.tool_name)
        for ts in self.tool_scopes:
            if ts.tool_name is not None and ts.tool_name != name:
                continue
            if ts.path_glob is not None and not matches_any_path([ts.path_glob], ctx.file_paths):
                continue
            return True
        return False

    def explain(self, ctx: MatchContext) -> str | None:
        """Why ``allows`` is false (for the stepper), or ``None`` when it is true."""
        if self.allows(ctx):
            return None
        if ctx.source in ("text", "thinking"):
            return f"scope: {ctx.source} not monitored"
        name = normalized_tool_name(ctx.tool_name)
        shown = ", ".join(
            f"tool:{ts.tool_name or '*'}" + (f"({ts.path_glob})" if ts.path_glob else "")
            for ts in self.tool_scopes
        )
        # "with paths []" read as broken (issue 27): a call without a file path says so in words
        paths = ", ".join(str(p) for p in ctx.file_paths or ())
        on = f" on {paths}" if paths else " (no file path)"
        return f"scope: tool {name or '(unnamed)'}{on} not in [{shown}]"


DEFAULT_SCOPE = RuleScope(allow_text=True, allow_thinking=False, allow_any_tool=True)


def normalized_tool_name(name: object) -> str:
    return js_trim(name).lower() if isinstance(name, str) else ""


def build_scope(tokens: Sequence[str] | None, warn: Callable[[str], None]) -> RuleScope:
    """Parse ``rule.scope``; ``warn(token)`` is called for each invalid (untrimmed) token."""
    if tokens is None or len(tokens) == 0:
        return DEFAULT_SCOPE
    text = thinking = any_tool = False
    tools: list[ToolScope] = []
    for raw in tokens:
        token = js_trim(raw) if isinstance(raw, str) else ""
        if not token:
            continue
        low = token.lower()
        if low == "text":
            text = True
            continue
        if low == "thinking":
            thinking = True
            continue
        if low in ("tool", "toolcall"):
            any_tool = True
            continue
        m = _TOKEN.match(token)
        if m is None:
            warn(raw)
            continue
        name_part = m.group("tool") if m.group("prefix") else m.group("bare")
        name = js_trim(name_part).lower() if name_part else ""
        path = js_trim(m.group("path") or "")
        if not name and not path:
            any_tool = True
            continue
        tools.append(ToolScope(tool_name=name or None, path_glob=path or None))
    return RuleScope(text, thinking, any_tool, tuple(tools))
