"""The notice the agent's chat shows when TTSR fires: "Injecting rule: …" (pi-tui 18.2.9
``chat/ttsr-notification.ts``, shown by ``modes/controllers/event-controller.ts`` of 18.3.4).

One block per ``ttsr_triggered`` event, except that an event arriving while the previous block is still
the last thing in the transcript merges into it (rules de-duplicated by name), as the agent's event
controller does for consecutive notifications. Each rule shows its ``description``, else its body,
trimmed; collapsed, a single rule shows its first two lines and several rules one line each (at most
four rules, then "… +N more"). The agent's icons are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workbench.rules import Rule, js_trim, js_trim_end

__all__ = ["Notification", "NoticeRule"]

_MAX_COLLAPSED = 4
_EXPAND = " (ctrl+o to expand)"


@dataclass(frozen=True, slots=True)
class NoticeRule:
    """The rule fields a notice shows."""

    name: str
    description: str | None = None
    content: str | None = None

    @classmethod
    def of(cls, rule: Rule | str) -> NoticeRule:
        if isinstance(rule, str):
            return cls(rule)
        return cls(rule.name, rule.description if isinstance(rule.description, str) else None, rule.content)

    def detail(self) -> str:
        """``(rule.description || rule.content)?.trim()``."""
        return js_trim(self.description or self.content or "")


@dataclass(frozen=True, slots=True)
class Notification:
    """One notice block: the step of the event that opened it and its rules in order."""

    step: int
    rules: tuple[NoticeRule, ...]

    def merged(self, rules: Iterable[NoticeRule]) -> Notification:
        names = {r.name for r in self.rules}
        added = []
        for rule in rules:
            if rule.name not in names:
                names.add(rule.name)
                added.append(rule)
        return Notification(self.step, (*self.rules, *added))

    def text(self, *, expanded: bool = False) -> str:
        if len(self.rules) == 1:
            return self._single(self.rules[0], expanded)
        return self._multi(expanded)

    @staticmethod
    def _single(rule: NoticeRule, expanded: bool) -> str:
        header = f"Injecting rule: {rule.name}"
        detail = rule.detail()
        if not detail:
            return header
        lines = detail.split("\n")
        if not expanded and len(lines) > 2:
            return f"{header}\n{chr(10).join(lines[:2])}…\n{_EXPAND}"
        return f"{header}\n{detail}"

    def _multi(self, expanded: bool) -> str:
        out = [f"Injecting {len(self.rules)} rules:"]
        visible = self.rules if expanded else self.rules[:_MAX_COLLAPSED]
        elided = False
        for rule in visible:
            detail = rule.detail()
            line = rule.name
            if detail:
                shown = detail
                if not expanded and "\n" in detail:
                    shown = f"{js_trim_end(detail[:detail.index(chr(10))])}…"
                    elided = True
                line += f": {shown}"
            out.append(line)
        hidden = len(self.rules) - len(visible)
        if hidden > 0:
            out.append(f"… +{hidden} more{_EXPAND}")
        elif elided:
            out.append(_EXPAND)
        return "\n".join(out)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "rules": [r.name for r in self.rules], "text": self.text(),
                "expanded": self.text(expanded=True)}
