"""Session totals: tokens and cost of the assistant messages, by model, and tool calls by tool.

The agent records a ``usage`` block on every assistant message (``input``, ``output``, ``cacheRead``,
``cacheWrite``, ``totalTokens`` and ``cost.total``); the totals add those up over the entries given
(the whole file, or one branch), leaving out what is not a number rather than guessing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.sessions.entries import Entry

TOKEN_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


@dataclass(frozen=True, slots=True)
class ModelUsage:
    model: str
    messages: int
    tokens: Mapping[str, float]
    cost: float


@dataclass(frozen=True, slots=True)
class UsageTotals:
    messages: int  # assistant messages
    tokens: Mapping[str, float]
    cost: float
    by_model: tuple[ModelUsage, ...]
    tool_calls: Mapping[str, int] = field(default_factory=dict)
    errors: int = 0  # assistant messages that stopped with an error, plus tool results marked isError

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": self.messages, "tokens": dict(self.tokens), "cost": self.cost, "errors": self.errors,
            "toolCalls": dict(self.tool_calls),
            "byModel": [{"model": m.model, "messages": m.messages, "tokens": dict(m.tokens), "cost": m.cost}
                        for m in self.by_model],
        }


def usage_totals(entries: Iterable[Entry]) -> UsageTotals:
    tokens = dict.fromkeys(TOKEN_FIELDS, 0.0)
    models: dict[str, dict[str, Any]] = {}
    tools: dict[str, int] = {}
    messages = errors = 0
    cost = 0.0
    for entry in entries:
        msg = entry.message
        if msg is None:
            continue
        if msg.get("role") == "toolResult" and msg.get("isError") is True:
            errors += 1
        if msg.get("role") != "assistant":
            continue
        messages += 1
        errors += msg.get("stopReason") == "error"
        for block in msg.get("content") or ():
            if isinstance(block, Mapping) and block.get("type") == "toolCall" and isinstance(block.get("name"), str):
                tools[block["name"]] = tools.get(block["name"], 0) + 1
        usage = msg.get("usage")
        usage = usage if isinstance(usage, Mapping) else {}
        model: str = msg["model"] if isinstance(msg.get("model"), str) else "(unknown)"
        per = models.setdefault(model, {"messages": 0, "tokens": dict.fromkeys(TOKEN_FIELDS, 0.0), "cost": 0.0})
        per["messages"] += 1
        for key in TOKEN_FIELDS:
            value = _number(usage.get(key))
            tokens[key] += value
            per["tokens"][key] += value
        spent = usage.get("cost")
        amount = _number(spent.get("total")) if isinstance(spent, Mapping) else 0.0
        cost += amount
        per["cost"] += amount
    by_model = tuple(ModelUsage(name, m["messages"], m["tokens"], m["cost"]) for name, m in sorted(models.items()))
    return UsageTotals(messages, tokens, cost, by_model, dict(sorted(tools.items())), errors)
