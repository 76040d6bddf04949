"""``agents:`` frontmatter (oh-my-pi 18.1.6+, ``capability/rule.ts``): which agents a rule applies to.

A rule without ``agents`` applies to every agent. Otherwise it applies when one of its lowercased
glob patterns matches the running agent's name: ``main`` for a top-level session, ``sub`` for a
subagent without a definition name, else the agent definition's name (``scout``, ``reviewer``…).
The reference matches with ``Bun.Glob``; agent names hold no ``/``, so only ``*``, ``?``, ``[...]``,
``{a,b}`` and ``\\`` escapes matter, and this module translates just those (docs/agent-settings.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from workbench.rules.conditions import normalize_scope_field

MAIN_AGENT = "main"
SUB_AGENT = "sub"
AgentSource = Literal["flag", "session", "default"]


def parse_rule_agents(value: Any) -> tuple[str, ...] | None:
    """The ``agents`` field as lowercased patterns (``parseRuleAgents``); ``None`` when absent/empty."""
    tokens = normalize_scope_field(value)
    if not tokens:
        return None
    out = [re.sub(r"\s*,\s*", ",", t).lower() for t in tokens]
    return tuple(dict.fromkeys(out))


def _translate(glob: str, i: int = 0, inside: bool = False) -> tuple[str, int]:
    out: list[str] = []
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        if c == "*":
            while i < len(glob) and glob[i] == "*":
                i += 1
            out.append(".*")
            continue
        if c == "?":
            out.append(".")
        elif c == "[":
            end = glob.find("]", i + 2 if i + 1 < len(glob) and glob[i + 1] in "!^" else i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1:end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "{":
            alternatives: list[str] = []
            i += 1
            while True:
                part, i = _translate(glob, i, inside=True)
                alternatives.append(part)
                if i >= len(glob) or glob[i] == "}":
                    break
                i += 1  # the comma
            out.append("(?:" + "|".join(alternatives) + ")")
        elif inside and c in ",}":
            return "".join(out), i
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out), i


@functools.lru_cache(maxsize=256)
def _compiled(glob: str) -> re.Pattern[str]:
    return re.compile(_translate(glob)[0], re.DOTALL)


def agent_glob_match(pattern: str, name: str) -> bool:
    return pattern == name or _compiled(pattern).fullmatch(name) is not None


def rule_applies_to_agent(agents: Sequence[str] | None, agent_name: str | None) -> bool:
    """``ruleAppliesToAgent``: no patterns, or no agent name (inventory listings), admits the rule."""
    if not agents or agent_name is None:
        return True
    name = agent_name.strip().lower()
    return any(agent_glob_match(p, name) for p in agents)


def agent_from_session(session: Any) -> tuple[str, AgentSource, str]:
    """The agent a session ran as, and why: the latest ``session_init`` entry's ``agent`` (a subagent
    session; ``sub`` when it names none), else ``sub`` for a header naming a ``parentSession``, else
    ``main``. ``session`` is anything with ``header`` and ``entries`` (each with ``raw``)."""
    if session is None:
        return MAIN_AGENT, "default", "no session"
    init: Mapping[str, Any] | None = None
    for entry in getattr(session, "entries", ()) or ():
        if getattr(entry, "type", "session_init") != "session_init":
            continue  # an Entry of another type: its record is not read (it may be left in the file)
        raw = getattr(entry, "raw", entry)
        # (no ABC check for the usual dict: 100,000 of them cost the Stepper's preparation 0.1 s)
        if (type(raw) is dict or isinstance(raw, Mapping)) and raw.get("type") == "session_init":
            init = raw
    if init is not None:
        agent = init.get("agent")
        if isinstance(agent, str) and agent.strip():
            return agent.strip(), "session", "session_init entry names the agent"
        return SUB_AGENT, "session", "session_init entry without an agent name (a subagent)"
    header = getattr(session, "header", None) or {}
    if isinstance(header, Mapping) and isinstance(header.get("parentSession"), str):
        return SUB_AGENT, "session", "the header names a parentSession (a subagent session)"
    return MAIN_AGENT, "default", "no session_init entry: a top-level session"


def rules_for_agent(rules: Sequence[Any], agent_name: str | None) -> list[Any]:
    """The rules whose ``agents`` admit ``agent_name`` (what ``bucketRules`` keeps), order kept."""
    return [r for r in rules if rule_applies_to_agent(getattr(r, "agents", None), agent_name)]
