"""The rules part of the system prompt, and the ``rule://`` protocol.

Always-apply rules are inlined (unless their body already appears, block for block, in another
prompt source such as a context file); rulebook rules are listed by name, globs and description and
read on demand through ``rule://<name>``. The wording of the surrounding text is the workbench's own;
the structure (``<generic-rules>`` / ``<domain-rules>`` or, for a custom prompt, ``<rules>`` with
``<rule name=...>``) and the ``rule://`` error texts follow the reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from workbench.errors import NotFoundError, UsageError
from workbench.rules.model import Rule

_BLANK_RUN = re.compile(r"\n{2,}")
_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)


def _blocks(text: str) -> list[str]:
    normalized = _TRAILING_SPACE.sub("", text.replace("\r\n", "\n")).strip()
    return [b.strip() for b in _BLANK_RUN.split(normalized) if b.strip()]


def _appears_in(body: list[str], source: list[str]) -> bool:
    if not body:
        return False
    width = len(body)
    return any(source[i : i + width] == body for i in range(len(source) - width + 1))


def dedupe_against_sources(rules: Iterable[Rule], sources: Iterable[str]) -> list[Rule]:
    """Drop always-apply rules whose body is already a contiguous run of blocks in a prompt source."""
    source_blocks = [_blocks(s) for s in sources if s]
    return [r for r in rules if not any(_appears_in(_blocks(r.content), s) for s in source_blocks)]


def _globs(rule: Rule) -> str:
    return ", ".join(rule.globs or ())


def _escape_attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def render_system_prompt(
    always_apply: Sequence[Rule],
    rulebook: Sequence[Rule],
    *,
    sources: Iterable[str] = (),
    custom: bool = False,
) -> str:
    """The rules section of the system prompt (default layout, or the custom-prompt layout)."""
    inline = dedupe_against_sources(always_apply, sources)
    parts: list[str] = []
    if custom:
        parts += [r.content for r in inline]
        if rulebook:
            lines = [
                "Rules are local constraints. You MUST read `rule://<name>` when working in that domain.",
                "<rules>",
            ]
            for rule in rulebook:
                lines.append(f'<rule name="{_escape_attr(rule.name)}">')
                if rule.description:
                    lines.append(rule.description)
                lines += [f"<glob>{g}</glob>" for g in rule.globs or ()]
                lines.append("</rule>")
            lines.append("</rules>")
            parts.append("\n".join(lines))
        return "\n\n".join(parts)
    if inline:
        parts.append("\n".join(["<generic-rules>", *(r.content for r in inline), "</generic-rules>"]))
    if rulebook:
        listing = [f"- {r.name} ({_globs(r)}): {r.description or ''}" for r in rulebook]
        parts.append("\n".join(["<domain-rules>", *listing, "</domain-rules>"]))
        urls = [f"- `rule://{r.name}`: the full text of the rule" for r in rulebook]
        parts.append("\n".join(["Internal URLs:", *urls]))
        parts.append("Workflow: Read relevant skills and rules first.")
    return "\n\n".join(parts)


@dataclass(frozen=True, slots=True)
class RuleResource:
    """What ``rule://<name>`` resolves to."""

    url: str
    content: str
    content_type: str
    size: int
    source_path: str
    notes: tuple[str, ...] = field(default=())


def _host(url: str) -> str:
    rest = url[len("rule://") :] if url.startswith("rule://") else url
    return re.split(r"[/?#]", rest, maxsplit=1)[0]


def resolve_rule_url(url: str, rules: Iterable[Rule]) -> RuleResource:
    """Resolve ``rule://<name>`` against the active rules (exact name match only)."""
    name = _host(url)
    if not name:
        raise UsageError("rule:// URL requires a rule name: rule://<name>")
    known = list(rules)
    rule = next((r for r in known if r.name == name), None)
    if rule is None:
        available = ", ".join(r.name for r in known) or "none"
        raise NotFoundError(f"Unknown rule: {name}\nAvailable: {available}")
    return RuleResource(
        url=url,
        content=rule.content,
        content_type="text/markdown",
        size=len(rule.content.encode("utf-8")),
        source_path=rule.path,
    )
