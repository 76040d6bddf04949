"""Sessions as oh-my-pi 18.3 writes them: every entry type the agent's SessionManager appends.

``omp18-billing.jsonl`` is an interactive session (title slot, workspace directories, the start-up
model/thinking/service-tier/credential records, usage of side calls, plan mode, a skill prompt, an
advisor note, a TTSR reminder, a `/clear`, a compaction, a branch with summary, a label, a title
change, an extension's custom entry). ``omp18-subagent.jsonl`` is the file of a task subagent, which
starts with a ``session_init`` record. Field order and presence follow the agent's append methods
(``JSON.stringify`` drops undefined fields: a model change always has ``resolvedModelIsFallback``,
a thinking change always has ``configured``).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any

from .project import CWD
from .session import Session, dumps, iso, short_id
from .small import title_slot

SONNET = ("anthropic", "claude-sonnet-4-5")
HAIKU = ("anthropic", "claude-haiku-4-5")


def _usage(tokens_in: int, tokens_out: int) -> dict[str, Any]:
    cost_in, cost_out = round(tokens_in * 1.0 / 1e6, 6), round(tokens_out * 5.0 / 1e6, 6)
    return {"input": tokens_in, "output": tokens_out, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": tokens_in + tokens_out,
            "cost": {"input": cost_in, "output": cost_out, "cacheRead": 0, "cacheWrite": 0,
                     "total": round(cost_in + cost_out, 6)}}


class Omp18Session(Session):
    """The sample builder plus the record shapes omp 18.3 appends."""

    def model_change18(self, provider: str, model: str, *, role: str | None = None, fallback: bool = False) -> str:
        self.provider, self.model = provider, model
        body: dict[str, Any] = {"model": f"{provider}/{model}"}
        if role is not None:
            body["role"] = role
        body["resolvedModelIsFallback"] = fallback
        return self.append("model_change", body, after=0.2)

    def thinking18(self, level: str | None, configured: str | None) -> str:
        return self.append("thinking_level_change", {"thinkingLevel": level, "configured": configured}, after=0.1)

    def service_tier(self, tiers: dict[str, str] | None) -> str:
        return self.append("service_tier_change", {"serviceTier": tiers}, after=0.1)

    def credential_pin(self, provider: str, account: str) -> str:
        digest = hashlib.sha256(f"{provider}:{account}:personal".encode()).hexdigest()
        return self.append("credential_pin", {"provider": provider, "hash": digest}, after=0.1)

    def model_usage(self, purpose: str, role: str, model: tuple[str, str], tokens: tuple[int, int]) -> str:
        body = {"purpose": purpose, "role": role, "api": "anthropic-messages", "provider": model[0], "model": model[1],
                "usage": _usage(*tokens), "stopReason": "stop"}
        return self.append("model_usage", body, after=1.2)

    def mode_change(self, mode: str, data: dict[str, Any] | None = None) -> str:
        body: dict[str, Any] = {"mode": mode}
        if data is not None:
            body["data"] = data
        return self.append("mode_change", body, after=0.5)

    def custom_message18(self, custom_type: str, content: Any, *, display: bool, details: Any = None,
                         attribution: str = "agent", after: float = 0.5) -> str:
        body: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            body["details"] = details
        body["attribution"] = attribution
        return self.append("custom_message", body, after=after)

    def custom18(self, custom_type: str, data: Any) -> str:
        # appendCustomEntry spreads customType and data before the id fields.
        self._n += 1
        entry_id = short_id(f"{self.key}:{self._n}")
        when = self.tick(0.3)
        self.entries.append({"type": "custom", "customType": custom_type, "data": data, "id": entry_id,
                             "parentId": self.leaf, "timestamp": iso(when)})
        self.leaf = entry_id
        return entry_id


def billing() -> tuple[Omp18Session, str]:
    s = Omp18Session(
        key="omp18-billing",
        session_id="019a4c2e-7b10-7d35-9f61-2c8e5a1d0b47",
        cwd=CWD,
        start=datetime(2026, 11, 24, 9, 12, 0, tzinfo=timezone.utc),
        flavour="omp",
        header_extra={"title": "Invoice rounding in billing", "titleSource": "auto",
                      "additionalDirectories": ["/home/dev/tally-docs"]},
    )
    # Start-up records, in the order the agent writes them before the first prompt.
    s.model_change18(*SONNET, role="default")
    s.thinking18("medium", "auto")
    s.service_tier({"anthropic": "priority"})
    s.credential_pin("anthropic", "dev@example.com")
    s.user("Invoices for 3 seats at $9.99 show $29.98 instead of $29.97. Find where billing rounds.", after=6)
    s.model_usage("title", "tiny", HAIKU, (412, 11))
    s.append("title_change", {"title": "Invoice rounding in billing", "source": "auto", "trigger": "first-message"},
             after=0.4)
    s.model_usage("auto-thinking", "tiny", HAIKU, (655, 3))
    _, (c1, c2, c3) = s.assistant(
        thinking="Rounding per line item vs on the total. Find the money helpers first.",
        calls=[("glob", {"pattern": "src/billing/**/*.ts"}),
               ("grep", {"pattern": "Math.round", "paths": ["src/billing", "src/lib/money.ts"]}),
               ("read", {"path": "src/billing/invoice.ts", "offset": 30, "limit": 40})],
    )
    s.tool_result(c1, "glob", "src/billing/invoice.ts\nsrc/billing/tax.ts\nsrc/billing/seats.ts\n")
    s.tool_result(c2, "grep", "src/billing/invoice.ts:44:    total += Math.round(seat.price * 100) / 100;\n")
    s.tool_result(c3, "read", "44\t    total += Math.round(seat.price * 100) / 100;\n")
    analysis, _ = s.assistant(
        text="`src/billing/invoice.ts:44` rounds every seat before summing: 3 × 9.99 is summed from rounded "
             "floats, so binary error accumulates. Summing integer cents fixes it.")
    s.label(analysis, "root-cause")
    s.mode_change("plan", {"planFilePath": "/home/dev/.omp/plans/invoice-cents.md"})
    s.user("Plan the change before editing.")
    s.assistant(text="Plan: convert seat prices to integer cents at the boundary, sum cents, format once.")
    s.mode_change("none")
    s.custom_message18("skill-prompt", [{"type": "text", "text": "/skill:tdd Write the failing test first."}],
                       display=True, details={"skill": "tdd"}, attribution="user", after=12)
    _, (c4,) = s.assistant(
        calls=[("edit", {"path": "src/billing/invoice.ts", "old_string": "total += Math.round(seat.price * 100) / 100;",
                         "new_string": "cents += toCents(seat.price);"})])
    reminder = ('<system-reminder reason="rule_violation" rule="money-floats" path=".omp/rules/money-floats.md">\n'
                "Money stays in integer cents; no float arithmetic on prices.\n</system-reminder>")
    s.ttsr_injection(["money-floats"])
    s.tool_result(c4, "edit", [{"type": "text", "text": reminder},
                               {"type": "text", "text": "Successfully replaced 1 occurrence in src/billing/invoice.ts."}])
    s.custom_message18("advisor", "<advisory>\ntoCents must round half away from zero.\n</advisory>", display=True,
                       details={"notes": [{"note": "toCents must round half away from zero.", "severity": "concern",
                                           "advisor": "default"}]})
    s.custom18("tally-ext/checkpoint", {"files": ["src/billing/invoice.ts"]})
    tests_user = s.user("Run the billing tests.")
    _, (c5,) = s.assistant(calls=[("bash", {"command": "bun test src/billing"})])
    s.tool_result(c5, "bash", " 14 pass\n 0 fail\n")
    s.assistant(text="All 14 billing tests pass; 3 × $9.99 now totals $29.97.")
    comp = s.compaction(tests_user, "Fixed invoice rounding: seat prices are summed as integer cents.", 48210,
                        {"readFiles": ["src/billing/invoice.ts"], "modifiedFiles": ["src/billing/invoice.ts"]})
    s.entries[-1].update({"shortSummary": "Invoice rounding fixed", "tokensAfter": 3120})
    # A side branch from the analysis, then back to the compaction with a summary of the detour.
    s.branch(analysis)
    s.user("Alternatively, could we use a decimal library?", after=40)
    s.assistant(text="decimal.js would work but adds 30 kB to the bundle; integer cents are simpler.")
    s.branch_with_summary(comp, "Considered decimal.js: works, but costs bundle size; kept integer cents.",
                          {"readFiles": [], "modifiedFiles": []})
    s.append("reset_boundary", {}, after=20)  # /clear: the model's context starts after this record
    s.service_tier(None)
    s.model_change18(*HAIKU, role="smol")
    s.user("New topic: add a CHANGELOG line for the rounding fix.", after=10)
    _, (c6,) = s.assistant(calls=[("edit", {"path": "CHANGELOG.md", "old_string": "## Unreleased\n",
                                            "new_string": "## Unreleased\n- Invoices sum integer cents.\n"})])
    s.tool_result(c6, "edit", "Successfully replaced 1 occurrence in CHANGELOG.md.")
    s.assistant(text="Added the line under Unreleased.")
    return s, iso(s.clock)


def subagent() -> Omp18Session:
    s = Omp18Session(
        key="omp18-subagent",
        session_id="019a4c31-02aa-7c0e-b3d4-8e7f6a5b4c21",
        cwd=CWD,
        start=datetime(2026, 11, 24, 9, 20, 0, tzinfo=timezone.utc),
        flavour="omp",
        header_extra={"parentSession": "/home/dev/.omp/agent/sessions/--home-dev-tally--/"
                                       "2026-11-24T09-12-00-000Z_019a4c2e-7b10-7d35-9f61-2c8e5a1d0b47.jsonl"},
    )
    s.append("session_init", {
        "systemPrompt": "You are scout, a read-only explorer. Report file paths and line numbers.",
        "task": "List every place in src/ that does float arithmetic on prices.",
        "tools": ["read", "grep", "glob"], "agent": "scout", "modelRole": "smol",
        "resolvedModel": "anthropic/claude-haiku-4-5", "readOnly": True, "spawns": "",
    }, after=0.1)
    s.model_change18(*HAIKU, role="default")
    s.thinking18(None, None)
    s.user("List every place in src/ that does float arithmetic on prices.", after=0.2)
    _, (c1,) = s.assistant(calls=[("grep", {"pattern": "price \\* 100"})])
    s.tool_result(c1, "grep", "src/billing/seats.ts:12:  const total = price * 100;\n")
    s.assistant(text="One place left: `src/billing/seats.ts:12`.")
    return s


def write_omp18(root: str) -> list[str]:
    import os

    s, updated = billing()
    lines = [title_slot("Invoice rounding in billing", "auto", updated)] + [dumps(r) for r in s.records()]
    with open(os.path.join(root, "omp18-billing.jsonl"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")
    sub = subagent()
    with open(os.path.join(root, "omp18-subagent.jsonl"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(dumps(r) for r in sub.records()) + "\n")
    return ["omp18-billing.jsonl", "omp18-subagent.jsonl"]
