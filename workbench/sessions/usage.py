"""Session totals: tokens and cost of the assistant messages, by model, and tool calls by tool; the
usage of one branch (``branch_usage``) with TTSR judge calls apart per rule and subagents rolled up.

The agent records a ``usage`` block on every assistant message (``input``, ``output``, ``cacheRead``,
``cacheWrite``, ``totalTokens`` and ``cost.total``); the totals add those up over the entries given
(the whole file, or one branch), leaving out what is not a number rather than guessing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.errors import WorkbenchError
from workbench.sessions.entries import Entry, Session
from workbench.sessions.loader import load_session
from workbench.sessions.subagents import SubagentLink, artifacts_folder, child_links
from workbench.sessions.tree import branch_path

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
        if entry.role != "assistant":
            # a tool result's isError is in its head: one left in the file is not read back
            msg = entry.head.get("message") if entry.type == "message" else None
            if isinstance(msg, Mapping) and msg.get("role") == "toolResult" and msg.get("isError") is True:
                errors += 1
            continue
        msg = entry.message
        if msg is None:
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


# -- the usage of one branch (``workbench usage SESSION``) ------------------------------------------------

JUDGE_PURPOSE = "ttsr"  # the purpose omp 18 writes on a TTSR judge call's ``model_usage`` entry
UNATTRIBUTED = "(rule not recorded)"


def _clean(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def tokens_json(tokens: Mapping[str, float], cost: float) -> dict[str, Any]:
    """``input``, ``output``, ``cacheRead``, ``cacheWrite``, ``totalTokens`` and ``cost`` as JSON numbers."""
    return {**{key: _clean(tokens.get(key, 0.0)) for key in TOKEN_FIELDS}, "cost": cost}


@dataclass(frozen=True, slots=True)
class JudgeUsage:
    """The TTSR judge calls recorded on a branch for one rule (``rule`` is ``UNATTRIBUTED`` when the file
    does not say which rule a call judged)."""

    rule: str
    calls: int
    tokens: Mapping[str, float]
    cost: float

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "calls": self.calls, **tokens_json(self.tokens, self.cost)}


@dataclass(frozen=True, slots=True)
class BranchUsage:
    """Tokens and cost of the assistant messages from the root to ``leaf_id``; judge calls apart, per
    rule; the subagent sessions found for it in ``children`` (their totals are rolled up into
    ``tokens``/``cost``, and ``own`` is this session's part alone)."""

    leaf_id: str | None
    own: UsageTotals
    judge: tuple[JudgeUsage, ...] = ()
    children: tuple[ChildUsage, ...] = ()
    missing: tuple[SubagentLink, ...] = ()  # subagents a task result names whose files are not on disk

    @property
    def tokens(self) -> dict[str, float]:
        out = dict(self.own.tokens)
        for child in self.children:
            for key in TOKEN_FIELDS:
                out[key] = out.get(key, 0.0) + child.usage.tokens.get(key, 0.0)
        return out

    @property
    def cost(self) -> float:
        return self.own.cost + sum(child.usage.cost for child in self.children)

    @property
    def messages(self) -> int:
        return self.own.messages + sum(child.usage.messages for child in self.children)

    def by_model(self) -> dict[str, dict[str, Any]]:
        models: dict[str, dict[str, Any]] = {}
        for part in (self, *(c.usage for c in self.children)):
            for m in part.own.by_model:
                per = models.setdefault(m.model, {"messages": 0, "tokens": dict.fromkeys(TOKEN_FIELDS, 0.0), "cost": 0.0})
                per["messages"] += m.messages
                per["cost"] += m.cost
                for key in TOKEN_FIELDS:
                    per["tokens"][key] += m.tokens.get(key, 0.0)
        return {name: {**tokens_json(m["tokens"], m["cost"]), "messages": m["messages"]}
                for name, m in sorted(models.items())}

    def to_json(self) -> dict[str, Any]:
        """The contract's keys; ``judge`` and ``children`` only when there are any."""
        out: dict[str, Any] = {**tokens_json(self.tokens, self.cost), "byModel": self.by_model()}
        if self.judge:
            out["judge"] = [j.to_json() for j in self.judge]
        if self.children:
            out["children"] = [c.to_json() for c in self.children]
        if self.missing:
            out["childrenNotFound"] = [link.to_json() for link in self.missing]
        return out


@dataclass(frozen=True, slots=True)
class ChildUsage:
    """A subagent's session file and the usage at its leaf (its own children rolled up into it); the
    parent's entry that names it (``entry_id``, the task tool's result) when one does."""

    path: str
    session_id: str
    agent: str | None
    usage: BranchUsage
    agent_id: str | None = None
    entry_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "sessionId": self.session_id, "agent": self.agent, "id": self.agent_id,
                "entryId": self.entry_id, **self.usage.to_json()}


def _judge_rule(entry: Entry, after: Iterable[Entry]) -> str:
    obj = entry.obj
    for key in ("rule", "ruleName"):  # not written by omp 18.3.4; read if a later version records it
        if isinstance(obj.get(key), str) and obj[key]:
            return str(obj[key])
    # A delivered verdict is followed on the branch by the injection naming its rule, before the
    # model's next reply; a "no" leaves nothing to attribute it to.
    for later in after:
        if later.type == "ttsr_injection":
            rules = later.obj.get("injectedRules")
            if isinstance(rules, list) and rules and all(isinstance(r, str) for r in rules):
                return ", ".join(rules)
            break
        msg = later.message
        if msg is not None and msg.get("role") == "assistant":
            break
    return UNATTRIBUTED


def judge_usage(path: Sequence[Entry]) -> tuple[JudgeUsage, ...]:
    """The ``model_usage`` entries of purpose ``ttsr`` on ``path`` (root→leaf), summed per rule."""
    rules: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(path):
        if entry.type != "model_usage" or entry.obj.get("purpose") != JUDGE_PURPOSE:
            continue
        rule = _judge_rule(entry, path[i + 1:])
        per = rules.setdefault(rule, {"calls": 0, "tokens": dict.fromkeys(TOKEN_FIELDS, 0.0), "cost": 0.0})
        per["calls"] += 1
        usage = entry.obj.get("usage")
        usage = usage if isinstance(usage, Mapping) else {}
        for key in TOKEN_FIELDS:
            per["tokens"][key] += _number(usage.get(key))
        spent = usage.get("cost")
        per["cost"] += _number(spent.get("total")) if isinstance(spent, Mapping) else 0.0
    return tuple(JudgeUsage(rule, r["calls"], r["tokens"], r["cost"]) for rule, r in sorted(rules.items()))


def branch_entries(session: Session, leaf: str | None = None) -> list[Entry]:
    """Root→leaf entries; the leaf defaults to the file's (its last entry)."""
    start = leaf if leaf is not None else (session.entries[-1].id if session.entries else None)
    return branch_path(session.by_id, start)


def _agent_of(child: Session) -> str | None:
    for entry in child.entries:
        if entry.type == "session_init":
            agent = entry.obj.get("agent")
            return agent if isinstance(agent, str) else None
    return None


def branch_usage(session: Session, leaf: str | None = None, *, children: bool = True, _depth: int = 0) -> BranchUsage:
    """The usage of the conversation at ``leaf`` (default: the file's leaf), with the subagents'
    sessions found for it rolled up (``children=False``: this file alone). A subagent counts where the
    task result that names it is on the branch; one found only on disk (no result names it) counts on
    every branch, since nothing says where it was started."""
    path = branch_entries(session, leaf)
    kids: list[ChildUsage] = []
    missing: list[SubagentLink] = []
    if children and _depth < _MAX_DEPTH:
        # A subagent started on another branch is not part of this conversation. Only a folder of
        # subagents needs the whole file (to find the files no result names); else the branch will do.
        on_path = {entry.id for entry in path}
        has_folder = artifacts_folder(session.path).is_dir()
        links = child_links(session) if has_folder else child_links(session, path)
        for link in links:
            if link.entry_id is not None and link.entry_id not in on_path:
                continue
            kid = _child_usage(link, _depth)
            if kid is not None:
                kids.append(kid)
            elif link.path is None:
                missing.append(link)
    return BranchUsage(path[-1].id if path else None, usage_totals(path), judge_usage(path), tuple(kids), tuple(missing))


def _child_usage(link: SubagentLink, depth: int) -> ChildUsage | None:
    if link.path is None:
        return None  # named by a task result but not on disk: nothing to add up
    try:
        stat = os.stat(link.path)
    except OSError:
        return None
    read = _child_session_usage(str(link.path), stat.st_size, stat.st_mtime_ns, depth)
    if read is None:
        return None  # a child that cannot be read is left out, as a missing one is
    session_id, agent, usage = read
    return ChildUsage(str(link.path), session_id, agent or link.agent, usage, link.agent_id, link.entry_id)


@functools.lru_cache(maxsize=256)
def _child_session_usage(path: str, size: int, mtime_ns: int, depth: int) -> tuple[str, str | None, BranchUsage] | None:
    """A subagent file's id, agent and usage at its leaf, kept while the file is unchanged (its size and
    time are part of the key): the Entry view asks for the branch's usage on every selection, and a
    child's file is read whole to answer."""
    try:
        child = load_session(path, strict=False)
    except WorkbenchError:
        return None
    return child.id, _agent_of(child), branch_usage(child, children=True, _depth=depth + 1)


_MAX_DEPTH = 8  # subagents of subagents: a cycle of parentSession links stops here
