"""Rule providers: where each agent family keeps its Markdown rules, and how a folder is read.

Each provider is a function ``(ctx, warnings) -> list[Rule]``. A file that cannot be read or built
becomes a warning naming it and never stops the others (the reference's ``loadFilesFromDir``).
Native directories are searched under ``.omp`` (the only config folder of oh-my-pi 18.3.4, so it
ranks first) and then ``.xcsh`` (the name the seeds use; a namesake there is shadowed by the
``.omp`` one), unless ``PI_CONFIG_DIR`` names a single one. User-level folders of other tools
(``~/.cursor/rules``, windsurf's ``global_rules.md``, Claude Code's plugins) load only when opted in
(``user_source_enabled``, the reference's ``isUserSourceEnabled``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from workbench.rules.building import build_rule_from_markdown, rule_from_frontmatter
from workbench.rules.bundled import BundledSource, find_bundled_source
from workbench.rules.frontmatter import parse_frontmatter
from workbench.rules.jsstring import js_trim
from workbench.rules.model import Level, Rule, RuleSource

DEFAULT_CONFIG_DIRS = (".omp", ".xcsh")
# ``capability/index.ts``: tools whose ``~/`` configuration is opt-in through ``enabledProviders``.
FOREIGN_USER_PROVIDERS = frozenset({"cursor", "codex", "claude", "claude-plugins", "gemini", "opencode",
                                    "windsurf", "github"})
MD_OR_MDC = (".md", ".mdc")


@dataclass(frozen=True, slots=True)
class DiscoveryContext:
    """Everything discovery may look at; nothing is read from the real home unless passed in."""

    cwd: Path
    home: Path
    repo_root: Path | None
    agent_dirs: tuple[Path, ...]
    config_dirs: tuple[str, ...]
    env: Mapping[str, str]
    plugin_roots: tuple[Path, ...] = ()
    # Not in the reference: a caller serving only some folders (the web app) sets this so that no
    # upward walk (RULES.md, .agent(s), .clinerules) reads a folder above it. None = walk to ``/``.
    boundary: Path | None = None
    # The bundled rule files in use (an oh-my-pi installation or the workbench's own); resolved by
    # ``load_rules`` only when the builtin-defaults provider runs, since finding it may ask npm.
    bundled: BundledSource | None = None
    omp_package: str | None = None
    # The switches (``enabledProviders``, ``disabledProviders``) and the providers named explicitly
    # (``providers=``), which opt their user-level folders in as the reference's explicitProviders do.
    enabled_providers: frozenset[str] = frozenset()
    disabled_providers: frozenset[str] = frozenset()
    explicit_providers: frozenset[str] = frozenset()


def user_source_enabled(ctx: DiscoveryContext, source: str) -> bool:
    """Whether a provider's user-level (``~/``) folder is read (``isUserSourceEnabled``)."""
    ident = source.removeprefix(".")
    if ident in ctx.disabled_providers:
        return False
    if ident not in FOREIGN_USER_PROVIDERS or ident in ctx.explicit_providers:
        return True
    enabled = ctx.enabled_providers
    if ident in enabled or "*" in enabled or "all" in enabled:
        return True
    if ident == "claude-plugins" and "claude" in enabled:
        return True
    return ident == "claude" and bool((ctx.env.get("CLAUDE_CONFIG_DIR") or "").strip())


Loader = Callable[[DiscoveryContext, list[str]], list[Rule]]


def _is_nonempty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and any(path.iterdir())
    except OSError:
        return False


def _read(path: Path, warnings: list[str]) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        warnings.append(f"Failed to read file: {path}")
        return None


def _list_files(directory: Path, suffixes: tuple[str, ...], *, recursive: bool = False) -> list[Path]:
    """Visible regular files with one of ``suffixes``; sorted so runs are reproducible."""
    if not directory.is_dir():
        return []
    found: list[Path] = []
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    for entry in entries:
        if entry.name.startswith("."):
            continue  # hidden entries are excluded, as by the reference's glob
        if entry.is_dir():
            if recursive:
                found += _list_files(entry, suffixes, recursive=True)
        elif entry.is_file() and entry.name.endswith(suffixes):
            found.append(entry)
    return found


def _source(provider: str, path: Path, level: Level) -> RuleSource:
    # provider_name is filled in by the registry with the provider's display name.
    return RuleSource(provider=provider, provider_name="", path=os.path.abspath(path), level=level)


def _build(
    path: Path,
    provider: str,
    level: Level,
    warnings: list[str],
    *,
    rule_name: str | None = None,
    strip: str = r"\.(md|mdc)$",
) -> Rule | None:
    content = _read(path, warnings)
    if content is None:
        return None
    try:
        return build_rule_from_markdown(
            path.name,
            content,
            str(path),
            _source(provider, path, level),
            rule_name=rule_name,
            strip_name_pattern=strip,
            warnings=warnings,
        )
    except Exception as exc:  # a broken file must not stop discovery of the others
        warnings.append(f"Failed to parse {path}: {exc}")
        return None


def load_dir(
    directory: Path,
    provider: str,
    level: Level,
    warnings: list[str],
    *,
    suffixes: tuple[str, ...] = MD_OR_MDC,
    strip: str = r"\.(md|mdc)$",
) -> list[Rule]:
    rules = (_build(p, provider, level, warnings, strip=strip) for p in _list_files(directory, suffixes))
    return [r for r in rules if r is not None]


def _sticky(path: Path, name: str, level: Level, warnings: list[str]) -> Rule | None:
    """A ``RULES.md`` file: always applied whatever its frontmatter says.

    Skipped only when absent, unreadable or of zero length: the reference tests ``!content`` on the
    raw text, so a file of blanks still becomes a (blank) always-apply rule, and one whose body is
    empty after the frontmatter is then dropped by validation with its warning.
    """
    if not path.is_file():
        return None
    content = _read(path, warnings)
    if not content:
        return None
    rule = _build(path, "native", level, warnings, rule_name=name)
    return replace(rule, always_apply=True) if rule else None


def within(directory: Path, boundary: Path | None) -> bool:
    """True when ``directory`` is ``boundary`` or below it (always true without a boundary)."""
    return boundary is None or directory == boundary or boundary in directory.parents


def _walk_up(start: Path, stop: Path | None, boundary: Path | None = None) -> list[Path]:
    """``start`` and its parents up to ``stop`` (inclusive) when ``stop`` is an ancestor, else to ``/``;
    folders outside ``boundary`` are left out (none at all when ``start`` itself is outside it)."""
    dirs = [start]
    if stop is not None and (start == stop or stop in start.parents):
        for parent in start.parents:
            if parent == stop or stop in parent.parents:
                dirs.append(parent)
    else:
        dirs = [start, *start.parents]
    return [d for d in dirs if within(d, boundary)]


def load_native(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    for name in ctx.config_dirs:
        if _is_nonempty_dir(ctx.cwd / name):
            rules += load_dir(ctx.cwd / name / "rules", "native", "project", warnings)
    for agent_dir in ctx.agent_dirs:
        if _is_nonempty_dir(agent_dir):
            rules += load_dir(agent_dir / "rules", "native", "user", warnings)
    for agent_dir in ctx.agent_dirs:
        sticky = _sticky(agent_dir / "RULES.md", "RULES", "user", warnings)
        if sticky:
            rules.append(sticky)
    # Project RULES.md: the nearest non-empty config dir walking up from cwd (to the repo root or /).
    for directory in _walk_up(ctx.cwd, ctx.repo_root, ctx.boundary):
        candidates = [directory / n for n in ctx.config_dirs if _is_nonempty_dir(directory / n)]
        if not candidates:
            continue
        for candidate in candidates:
            sticky = _sticky(candidate / "RULES.md", "RULES@project", "project", warnings)
            if sticky:
                rules.append(sticky)
                break
        break
    return rules


def load_agents(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    stop = ctx.repo_root
    if stop is None and (ctx.cwd == ctx.home or ctx.home in ctx.cwd.parents):
        stop = ctx.home
    for directory in _walk_up(ctx.cwd, stop, ctx.boundary):
        if directory == ctx.home:
            continue  # the home folder's own .agent(s) are the user level, read below
        for sub in (".agent", ".agents"):
            rules += load_dir(directory / sub / "rules", "agents", "project", warnings)
    for sub in (".agent", ".agents"):
        rules += load_dir(ctx.home / sub / "rules", "agents", "user", warnings)
    return rules


def load_cursor(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    user = (load_dir(ctx.home / ".cursor" / "rules", "cursor", "user", warnings, suffixes=(".mdc", ".md"))
            if user_source_enabled(ctx, "cursor") else [])
    return [*user, *load_dir(ctx.cwd / ".cursor" / "rules", "cursor", "project", warnings, suffixes=(".mdc", ".md"))]


def load_windsurf(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    global_rules = ctx.home / ".codeium" / "windsurf" / "memories" / "global_rules.md"
    if user_source_enabled(ctx, "windsurf") and global_rules.is_file():
        content = _read(global_rules, warnings)
        # The reference tests the raw text (``if (content)``): a file of blanks is still a rule.
        if content:
            rule = _build(global_rules, "windsurf", "user", warnings, rule_name="global_rules")
            if rule:
                rules.append(rule)
    rules += load_dir(ctx.cwd / ".windsurf" / "rules", "windsurf", "project", warnings, suffixes=(".md",), strip=r"\.md$")
    return rules


def load_cline(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    for directory in _walk_up(ctx.cwd, None, ctx.boundary):
        candidate = directory / ".clinerules"
        if candidate.is_dir():
            return load_dir(candidate, "cline", "project", warnings, suffixes=(".md",), strip=r"\.md$")
        if candidate.is_file():
            rule = _build(candidate, "cline", "project", warnings, rule_name="clinerules")
            return [rule] if rule else []
    return []


_GITHUB_SUFFIX = ".instructions.md"
_MATCH_ALL = {"*", "**", "**/*"}


def _apply_to(value: object) -> list[str] | None:
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list):
        parts = [p for v in value if isinstance(v, str) for p in v.split(",")]
    else:
        return None
    return [t for t in (js_trim(p) for p in parts) if t]


def _github_rule(path: Path, level: Level, warnings: list[str]) -> Rule | None:
    content = _read(path, warnings)
    if content is None:
        return None
    try:
        parsed = parse_frontmatter(content, source=str(path))
        warnings.extend(parsed.warnings)
        name = path.name[: -len(_GITHUB_SUFFIX)]
        rule = rule_from_frontmatter(name, parsed.frontmatter, parsed.body, str(path), _source("github", path, level))
    except Exception as exc:
        warnings.append(f"Failed to parse {path}: {exc}")
        return None
    globs = _apply_to(parsed.frontmatter.get("applyTo"))
    if not globs:
        warnings.append(f"Missing applyTo in {path}; loaded without GitHub glob scoping.")
        if rule.description is None:
            rule = replace(rule, description="GitHub Copilot instructions without applyTo metadata")
        return rule
    if any(g in _MATCH_ALL for g in globs):
        return replace(rule, always_apply=True, globs=None)
    description = rule.description
    if description is None:
        description = f"GitHub Copilot instructions for {', '.join(globs)}"
    return replace(rule, always_apply=False, globs=tuple(globs), description=description)


def load_github(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    places: list[tuple[Path, Level]] = [(ctx.cwd / ".github" / "instructions", "project")]
    extra = ctx.env.get("COPILOT_CUSTOM_INSTRUCTIONS_DIRS", "")
    for entry in (js_trim(e) for e in extra.split(",")):
        if entry:
            places.append((ctx.cwd / entry / ".github" / "instructions", "user"))
    rules: list[Rule] = []
    for directory, level in places:
        for path in _list_files(directory, (".md",), recursive=True):
            if path.name.endswith(_GITHUB_SUFFIX):
                rule = _github_rule(path, level, warnings)
                if rule:
                    rules.append(rule)
    return rules


def load_plugins(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    for root in ctx.plugin_roots:
        rules += load_dir(root / "rules", "omp-plugins", "user", warnings)
    return rules


BUILTIN_PROVIDER = "builtin-defaults"


def bundled_source(ctx: DiscoveryContext) -> BundledSource:
    """The bundled files ``load_builtin`` reads for ``ctx`` (resolved now when ``load_rules`` did not)."""
    if ctx.bundled is not None:
        return ctx.bundled
    return find_bundled_source(omp_package=ctx.omp_package, env=ctx.env, home=ctx.home)


def load_builtin(ctx: DiscoveryContext, warnings: list[str]) -> list[Rule]:
    """The bundled rules, each with the virtual path ``builtin-defaults:<name>.md`` and level "user"
    (the reference's ``builtin-defaults`` provider), read from the files ``bundled_source`` names.

    Built as the agent builds them: ``buildRuleFromMarkdown`` with ``ruleName`` = the registered
    name, so an ``enabled`` key or an odd file name cannot change or drop a bundled rule.
    """
    rules: list[Rule] = []
    for name, file_path in bundled_source(ctx).files:
        virtual = f"{BUILTIN_PROVIDER}:{name}.md"
        try:
            content = Path(file_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            warnings.append(f"Failed to read file: {file_path}")
            continue
        try:
            source = RuleSource(provider=BUILTIN_PROVIDER, provider_name="", path=virtual, level="user")
            rules.append(build_rule_from_markdown(f"{name}.md", content, virtual, source, rule_name=name,
                                                  warnings=warnings))
        except Exception as exc:  # one broken bundled file must not hide the others
            warnings.append(f"Failed to parse {file_path}: {exc}")
    return rules
