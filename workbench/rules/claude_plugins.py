"""The ``claude-plugins`` rule provider ("Claude Code Marketplace", priority 70, oh-my-pi 18.3.4
``discovery/claude-plugins.ts``): ``<plugin>/rules/*.md|mdc`` of each installed marketplace plugin.

Plugins come from three registries (``installed_plugins.json``, ``{"version": n, "plugins":
{"<name>@<marketplace>": [{installPath, scope, projectPath, enabled, version}]}}``):

1. Claude Code's own, ``$CLAUDE_CONFIG_DIR`` or ``<home>/.claude``, ``plugins/installed_plugins.json``;
   its user-scoped plugins load only when ``claude-plugins`` (or ``claude``) is opted in, like every
   foreign tool's user-level folder; project/local ones only for the project they were installed in;
2. oh-my-pi's user registry ``<home>/.omp/plugins/installed_plugins.json`` (replaces Claude Code's
   entries of the same id; not opt-in: the agent installed them);
3. the nearest ``.omp/plugins/installed_plugins.json`` at or above the project (below the home
   folder), whose entries shadow the user ones of the same id.

Not followed: Claude Code's ``enabledPlugins`` overrides in its settings files, ``--plugin-dir`` roots
and the Agent Plugins manifest check (docs/agent-settings.md).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.rules.model import Level, Rule
from workbench.rules.providers import DiscoveryContext, load_dir, user_source_enabled, within

PROVIDER_ID = "claude-plugins"


@dataclass(frozen=True, slots=True)
class PluginRoot:
    id: str
    path: Path
    scope: str  # "user" | "project"
    origin: str  # "claude" | "omp"


def _registry(path: Path, label: str, warnings: list[str]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("version"), int | float) \
            or not isinstance(data.get("plugins"), dict):
        warnings.append(f"Failed to parse {label} plugin registry: {path}")
        return None
    plugins: dict[str, Any] = data["plugins"]
    return plugins


def _entries(plugins: dict[str, Any], warnings: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for plugin_id, entries in plugins.items():
        if not isinstance(entries, list) or not entries:
            continue
        if "@" not in plugin_id:
            warnings.append(f"Invalid plugin ID format (missing @marketplace): {plugin_id}")
            continue
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            if not isinstance(entry.get("installPath"), str) or not entry["installPath"]:
                warnings.append(f"Plugin {plugin_id} entry has no installPath")
                continue
            if entry.get("enabled") is False:
                continue
            out.append((plugin_id, entry))
    return out


def _scope(entry: dict[str, Any]) -> str:
    scope = entry.get("scope")
    return "project" if scope == "local" else scope if isinstance(scope, str) and scope else "user"


def _project_registry(ctx: DiscoveryContext) -> Path | None:
    for directory in [ctx.cwd, *ctx.cwd.parents]:
        if directory == ctx.home or not within(directory, ctx.boundary):
            break  # ~/.omp is the user level, not a project
        if (directory / ".omp").is_dir():
            return directory / ".omp" / "plugins" / "installed_plugins.json"
    return None


def plugin_roots(ctx: DiscoveryContext, warnings: list[str]) -> list[PluginRoot]:
    """The plugin folders in the reference's order (project registry first)."""
    claude_dir = Path(ctx.env.get("CLAUDE_CONFIG_DIR") or ctx.home / ".claude")
    roots: list[PluginRoot] = []
    cwd = os.path.realpath(ctx.cwd)
    for plugin_id, entry in _entries(_registry(claude_dir / "plugins" / "installed_plugins.json", "Claude Code",
                                               warnings) or {}, warnings):
        if entry.get("scope") in ("local", "project"):
            project = entry.get("projectPath")
            if not isinstance(project, str) or os.path.realpath(project) != cwd:
                continue
        roots.append(PluginRoot(plugin_id, Path(entry["installPath"]), _scope(entry), "claude"))
    for plugin_id, entry in _entries(_registry(ctx.home / ".omp" / "plugins" / "installed_plugins.json", "OMP",
                                               warnings) or {}, warnings):
        roots = [r for r in roots if not (r.id == plugin_id and r.origin == "claude")]
        if any(r.id == plugin_id and str(r.path) == entry["installPath"] for r in roots):
            continue
        roots.append(PluginRoot(plugin_id, Path(entry["installPath"]), _scope(entry), "omp"))
    registry = _project_registry(ctx)
    project_roots = [PluginRoot(pid, Path(e["installPath"]), "project", "omp")
                     for pid, e in _entries(_registry(registry, "project", warnings) or {}, warnings)] if registry else []
    if project_roots:
        ids = {r.id for r in project_roots}
        roots = [*project_roots, *(r for r in roots if r.id not in ids)]
    return roots


def load_claude_plugins(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    user_enabled = user_source_enabled(ctx, PROVIDER_ID) or user_source_enabled(ctx, "claude")
    rules: list[Rule] = []
    for root in plugin_roots(ctx, warnings):
        if not user_enabled and root.scope != "project" and root.origin == "claude":
            continue
        level: Level = "project" if root.scope == "project" else "user"
        rules += load_dir(root.path / "rules", PROVIDER_ID, level, warnings)
    return rules
