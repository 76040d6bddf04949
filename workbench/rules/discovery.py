"""``load_rules``: every provider, merged by priority, de-duplicated by name (the reference's
``loadCapability("rules")``).

Providers are kept in registration order (native, builtin-defaults, claude-plugins, cline, agents,
cursor, github, omp-plugins, windsurf: oh-my-pi 18.3.4's import order) and then stably sorted by
priority, highest first, so claude-plugins precedes agents and cursor precedes windsurf at equal
priority. ``disabledProviders`` leaves a provider out; ``enabledProviders`` opts a foreign tool's
user-level folder in (``providers.user_source_enabled``). The first rule of a name wins; later namesakes are kept in ``items`` and marked
shadowed. Validation runs after de-duplication, as in the reference: an invalid rule still shadows a
valid namesake of lower priority and then disappears with a warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from workbench.rules.bundled import BundledSource, find_bundled_source
from workbench.rules.claude_plugins import load_claude_plugins
from workbench.rules.model import Rule
from workbench.rules.providers import (
    BUILTIN_PROVIDER,
    DEFAULT_CONFIG_DIRS,
    FOREIGN_USER_PROVIDERS,
    DiscoveryContext,
    Loader,
    load_agents,
    load_builtin,
    load_cline,
    load_cursor,
    load_github,
    load_native,
    load_plugins,
    load_windsurf,
    user_source_enabled,
    within,
)


@dataclass(frozen=True, slots=True)
class RuleProvider:
    id: str
    display_name: str
    priority: int
    load: Loader


_REGISTRATION_ORDER = (
    RuleProvider("native", "OMP", 100, load_native),
    RuleProvider(BUILTIN_PROVIDER, "Builtin Defaults", 1, load_builtin),
    RuleProvider("claude-plugins", "Claude Code Marketplace", 70, load_claude_plugins),
    RuleProvider("cline", "Cline", 40, load_cline),
    RuleProvider("agents", "Agent Dirs (.agent/.agents)", 70, load_agents),
    RuleProvider("cursor", "Cursor", 50, load_cursor),
    RuleProvider("github", "GitHub Copilot", 30, load_github),
    RuleProvider("omp-plugins", "OMP Extension Packages", 90, load_plugins),
    RuleProvider("windsurf", "Windsurf", 50, load_windsurf),
)
# sorted() is stable: equal priorities keep registration order.
PROVIDERS: tuple[RuleProvider, ...] = tuple(sorted(_REGISTRATION_ORDER, key=lambda p: -p.priority))


@dataclass(frozen=True, slots=True)
class DiscoveredRule:
    """One rule as a provider produced it, active or not."""

    rule: Rule
    provider: str
    provider_name: str
    level: str
    path: str
    shadowed_by: str | None = None  # path of the rule of the same name that won
    shadowed_by_provider: str | None = None
    invalid: str | None = None  # the validation error when the winner was discarded
    disabled: str | None = None  # why the agent leaves it out before de-duplication (``enabled: false``)

    @property
    def active(self) -> bool:
        return self.shadowed_by is None and self.invalid is None and self.disabled is None

    @property
    def shadowed(self) -> bool:
        return self.shadowed_by is not None


@dataclass(frozen=True, slots=True)
class ProviderSwitch:
    """A rule provider and the switches that decide whether (and which of its levels) it ran."""

    id: str
    name: str
    priority: int
    ran: bool
    user_level: bool  # its ``~/`` folder was read (foreign tools: only when opted in)
    why: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "priority": self.priority, "ran": self.ran,
                "userLevel": self.user_level, "why": self.why}


def _switch(provider: RuleProvider, ctx: DiscoveryContext, wanted: set[str] | None, excluded: set[str]) -> ProviderSwitch:
    pid = provider.id
    if pid in ctx.disabled_providers:
        return ProviderSwitch(pid, provider.display_name, provider.priority, False, False, "in disabledProviders")
    if (wanted is not None and pid not in wanted) or pid in excluded:
        return ProviderSwitch(pid, provider.display_name, provider.priority, False, False, "not selected")
    user = user_source_enabled(ctx, pid)
    if pid not in FOREIGN_USER_PROVIDERS:
        why = "on"
    elif pid in ctx.explicit_providers:
        why = "named explicitly: user-level folder read"
    elif user:
        why = "user-level folder opted in (enabledProviders)"
    else:
        why = "project folders only; user-level folder is opt-in (enabledProviders)"
    return ProviderSwitch(pid, provider.display_name, provider.priority, True, user, why)


@dataclass(frozen=True, slots=True)
class RuleLoadResult:
    """Active rules (priority order), every discovered item (shadowed/invalid included) and warnings;
    ``bundled`` names the bundled rule files read (``None`` when the builtin provider did not run)."""

    rules: tuple[Rule, ...]
    items: tuple[DiscoveredRule, ...]
    warnings: tuple[str, ...]
    bundled: BundledSource | None = None
    providers: tuple[ProviderSwitch, ...] = ()

    def get(self, name: str) -> Rule | None:
        return next((r for r in self.rules if r.name == name), None)


def find_repo_root(cwd: Path, boundary: Path | None = None) -> Path | None:
    """The nearest folder at or above ``cwd`` (and not above ``boundary``) holding ``.git``."""
    for directory in [cwd, *cwd.parents]:
        if not within(directory, boundary):
            break
        if (directory / ".git").exists():
            return directory
    return None


def _validate(rule: Rule) -> str | None:
    if not rule.name:
        return "Missing rule name"
    if not rule.path:
        return "Missing rule path"
    if not isinstance(rule.content, str) or not rule.content:
        return "Rule must have content"
    return None


def _candidates(providers: list[RuleProvider], ctx: DiscoveryContext, disabled: set[str],
                warnings: list[str]) -> list[tuple[RuleProvider, Rule]]:
    """Every rule the chosen providers produce, in provider order, named after their provider."""
    candidates: list[tuple[RuleProvider, Rule]] = []
    for provider in providers:
        provider_warnings: list[str] = []
        try:
            produced = provider.load(ctx, provider_warnings)
        except Exception as exc:  # one provider failing never hides the others
            produced = []
            provider_warnings.append(f"Failed to load: {exc}")
        warnings += [f"[{provider.display_name}] {w}" for w in provider_warnings]
        for rule in produced:
            if rule.source is None:
                warnings.append(f"[{provider.display_name}] Skipping item without source: {rule.name}")
                continue
            if f"rule:{rule.name}" in disabled:
                continue
            named = replace(rule, source=replace(rule.source, provider_name=provider.display_name))
            candidates.append((provider, named))
    return candidates


def _merge(candidates: list[tuple[RuleProvider, Rule]], warnings: list[str]) -> list[DiscoveredRule]:
    """The first rule of a name wins; the later ones are shadowed (disabled files shadow nothing)."""
    winners: dict[str, Rule] = {}
    items: list[DiscoveredRule] = []
    invalid: list[str] = []
    for provider, rule in candidates:
        winner = winners.get(rule.name)
        base = dict(rule=rule, provider=provider.id, provider_name=provider.display_name,
                    level=rule.source.level if rule.source else "project", path=rule.path)
        if provider.id != BUILTIN_PROVIDER and (rule.frontmatter or {}).get("enabled") is False:
            # oh-my-pi 18.3 drops a discovered file whose frontmatter says `enabled: false` before
            # de-duplication (so it shadows nothing); the bundled provider builds its files regardless.
            items.append(DiscoveredRule(**base, disabled="enabled: false in its frontmatter"))  # type: ignore[arg-type]
            continue
        if winner is not None:
            items.append(DiscoveredRule(**base, shadowed_by=winner.path,  # type: ignore[arg-type]
                                        shadowed_by_provider=winner.source.provider if winner.source else None))
            continue
        winners[rule.name] = rule
        error = _validate(rule)
        if error:
            invalid.append(f"[{provider.display_name}] Invalid item at {rule.path}: {error}")
        items.append(DiscoveredRule(**base, invalid=error))  # type: ignore[arg-type]
    # The reference validates the survivors from the last to the first, so its warnings come reversed.
    warnings += reversed(invalid)
    return items


def load_rules(
    *,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    repo_root: str | os.PathLike[str] | None = None,
    agent_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    plugin_roots: Iterable[str | os.PathLike[str]] = (),
    providers: Iterable[str] | None = None,
    exclude_providers: Iterable[str] = (),
    disabled_extensions: Iterable[str] = (),
    boundary: str | os.PathLike[str] | None = None,
    omp_package: str | os.PathLike[str] | None = None,
    enabled_providers: Iterable[str] = (),
    disabled_providers: Iterable[str] = (),
) -> RuleLoadResult:
    """Discover rules from every provider (or only ``providers``) and merge them.

    ``disabled_extensions`` holds extension ids ``rule:<name>`` to skip. Every provider warning is
    kept, prefixed ``[<display name>] ``; a provider that raises becomes ``Failed to load: ...``.
    ``boundary`` (not in the reference): no provider's upward walk leaves this folder; ``None`` (the
    default) walks up to ``/`` as the reference does.
    ``enabled_providers`` / ``disabled_providers``: the agent's ``enabledProviders`` (opt a foreign
    tool's user-level folder in; ``*`` or ``all`` for every one) and ``disabledProviders``.
    ``omp_package``: the oh-my-pi agent package folder to read the bundled rules from (``"none"``:
    the workbench's own files); without it ``WORKBENCH_OMP_PACKAGE`` and global installs are tried
    (``workbench.rules.bundled``). A folder named that is no agent package raises ``NotFoundError``.
    """
    wanted = set(providers) if providers is not None else None
    excluded = set(exclude_providers)
    env = dict(os.environ if env is None else env)
    cwd_path = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
    home_path = Path(os.path.abspath(home if home is not None else env.get("HOME") or Path.home()))
    limit = Path(os.path.abspath(boundary)) if boundary is not None else None
    root = Path(os.path.abspath(repo_root)) if repo_root is not None else find_repo_root(cwd_path, limit)
    config_dirs = (env["PI_CONFIG_DIR"],) if env.get("PI_CONFIG_DIR") else DEFAULT_CONFIG_DIRS
    if agent_dir is not None:
        agent_dirs: tuple[Path, ...] = (Path(os.path.abspath(agent_dir)),)
    elif env.get("PI_CODING_AGENT_DIR"):
        agent_dirs = (Path(os.path.abspath(env["PI_CODING_AGENT_DIR"])),)
    else:
        agent_dirs = tuple(home_path / name / "agent" for name in config_dirs)
    ctx = DiscoveryContext(
        cwd=cwd_path,
        home=home_path,
        repo_root=root,
        agent_dirs=agent_dirs,
        config_dirs=config_dirs,
        env=env,
        plugin_roots=tuple(Path(os.path.abspath(p)) for p in plugin_roots),
        boundary=limit,
        omp_package=os.fspath(omp_package) if omp_package is not None else None,
        enabled_providers=frozenset(enabled_providers),
        disabled_providers=frozenset(disabled_providers),
        explicit_providers=frozenset(wanted or ()),
    )
    excluded |= ctx.disabled_providers
    bundled = None
    if (wanted is None or BUILTIN_PROVIDER in wanted) and BUILTIN_PROVIDER not in excluded:
        # Resolved before the providers run so that a bad --omp-package is an error, not a warning.
        bundled = find_bundled_source(omp_package=ctx.omp_package, env=ctx.env, home=ctx.home)
        ctx = replace(ctx, bundled=bundled)
    switches = tuple(_switch(p, ctx, wanted, excluded) for p in PROVIDERS)
    warnings: list[str] = []
    chosen = [p for p in PROVIDERS if (wanted is None or p.id in wanted) and p.id not in excluded]
    candidates = _candidates(chosen, ctx, set(disabled_extensions), warnings)
    items = _merge(candidates, warnings)
    active = tuple(item.rule for item in items if item.active)
    return RuleLoadResult(rules=active, items=tuple(items), warnings=tuple(warnings), bundled=bundled,
                          providers=switches)
