"""The agent's settings and switches as the commands that discover rules read them.

One place for reading the config layers under the flags (``workbench.rules.agent_settings``), for the
agent a replay stands in for and for the ``settings`` / ``agent`` blocks of ``--json``; the commands
(``rules``, ``replay``, ``backtest``) call these so they agree (docs/agent-settings.md). The flags
themselves (``--agent``, the provider switches) are defined in ``workbench.cli.options``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from workbench.rules import (
    AgentSettings,
    AgentTemplates,
    agent_from_session,
    find_agent_templates,
    judge_state,
    read_agent_settings,
)


def _flag_value(args: argparse.Namespace, name: str) -> Any:
    return getattr(args, name, None)


def flags_of(args: argparse.Namespace, files_disabled: list[str] | None = None) -> dict[str, Any]:
    """The flags as runtime overrides of the layers (``None``: not given, the files decide).

    ``--disable-rule`` adds to the files' ``ttsr.disabledRules`` rather than replacing it, so that a
    name given on the command line never re-enables one the project switched off."""
    disabled = list(_flag_value(args, "disable_rule") or [])
    judge = _flag_value(args, "judge")
    return {
        "enabled": None,
        "judge": "on" if judge is not None else None,
        "contextMode": _flag_value(args, "context_mode"),
        "interruptMode": _flag_value(args, "interrupt_mode"),
        "repeatMode": _flag_value(args, "repeat_mode"),
        "repeatGap": _flag_value(args, "repeat_gap"),
        "builtinRules": False if _flag_value(args, "no_builtin") else None,
        "disabledRules": [*(files_disabled or []), *disabled] if disabled else None,
        "enabledProviders": _flag_value(args, "enable_provider"),
        "disabledProviders": _flag_value(args, "disable_provider"),
    }


def read_settings(args: argparse.Namespace, cwd: str | os.PathLike[str] | None) -> AgentSettings:
    """The layers for the project ``cwd`` (default: the current folder) with ``args`` above them."""
    where = os.path.abspath(cwd if cwd is not None else os.getcwd())
    home = _flag_value(args, "home") or os.environ.get("HOME") or str(Path.home())
    agent_dir = _flag_value(args, "agent_dir")
    env = dict(os.environ)
    plain = read_agent_settings(cwd=where, home=home, agent_dir=agent_dir, env=env)
    return read_agent_settings(cwd=where, home=home, agent_dir=agent_dir, env=env,
                               flags=flags_of(args, list(plain.names("disabledRules"))))


def discovery_switches(settings: AgentSettings) -> dict[str, Any]:
    """``load_rules`` keywords for the switches in effect."""
    return {
        "enabled_providers": settings.names("enabledProviders"),
        "disabled_providers": settings.names("disabledProviders"),
        "disabled_extensions": settings.names("disabledExtensions"),
    }


def resolve_agent(args: argparse.Namespace, session: Any = None) -> dict[str, str]:
    """The agent the rules' ``agents:`` are checked against: ``--agent``, else from the session
    (``session_init``, a subagent's header), else ``main``; with where it came from."""
    flag = _flag_value(args, "agent")
    if isinstance(flag, str) and flag.strip():
        return {"name": flag.strip(), "source": "flag", "why": "--agent"}
    name, source, why = agent_from_session(session)
    return {"name": name, "source": source, "why": why}


def templates_for(args: argparse.Namespace, bundled: Any = None) -> AgentTemplates:
    """The reminder templates in use (the installed agent's, else the workbench's own)."""
    home = Path(_flag_value(args, "home") or os.environ.get("HOME") or Path.home())
    return find_agent_templates(omp_package=_flag_value(args, "omp_package"), env=os.environ, home=home,
                                bundled=bundled)


def config_json(settings: AgentSettings, agent: dict[str, str], *, providers: Any = None,
                templates: AgentTemplates | None = None, judge_given: bool | None = None) -> dict[str, Any]:
    """The ``settings`` / ``agent`` / ``providers`` / ``templates`` blocks of a command's ``--json``."""
    block = settings.to_json()
    if judge_given is not None:
        block["judgeState"] = judge_state(settings, judge_given).to_json()
    return {
        "settings": block,
        "agent": agent,
        "providers": [p.to_json() for p in providers] if providers is not None else None,
        "templates": templates.to_json() if templates is not None else None,
    }


def config_lines(settings: AgentSettings, agent: dict[str, str]) -> list[str]:
    """The text outputs' lines: the agent and every setting or switch that is not its default."""
    lines = [f"agent: {agent['name']} ({agent['source']}: {agent['why']})"]
    for s in (*settings.ttsr, *settings.switches):
        if s.source != "default":
            where = "flag" if s.source == "flag" else f"{s.source} file {s.file}"
            lines.append(f"setting {s.key} = {s.value!r} ({where})")
    return lines
