"""Which rules a command runs with, and for which agent: one typed value for every discovering command.

``RuleSetOptions`` is what the command line's rule-set and agent switches mean (``--rules``,
``--cwd``, ``--home``, ``--agent-dir``, ``--disable-rule``, ``--no-builtin``, ``--omp-package``,
``--agent``, ``--edit-mode``), handed to the library instead of a bag of keywords;
``discover_rule_set`` reads the rules it names. ``--rules PATH`` means the same everywhere
(docs/cli.md): a rule file, a folder of rule files, or a project folder discovered as the agent does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from workbench.errors import NotFoundError
from workbench.rules.bundled import BundledSource
from workbench.rules.discovery import DiscoveredRule, ProviderSwitch, RuleLoadResult, load_rules
from workbench.rules.files import RULE_SUFFIXES, load_rule_paths
from workbench.rules.model import Rule

__all__ = ["AGENT_EDIT_MODES", "DEFAULT_AGENT", "PROJECT_MARKERS", "RuleSetOptions", "discover_rule_set",
           "is_project_folder"]

# ``auto``: the mode is read from each call's arguments (a recording does not say which mode ran).
AGENT_EDIT_MODES: tuple[str, ...] = ("auto", "hashline", "apply_patch", "patch", "replace", "sloppy")
DEFAULT_AGENT = "main"
BUILTIN_PROVIDER = "builtin-defaults"

# A folder holding one of these is a project even when rule-like ``.md`` files (a README) sit at its top.
PROJECT_MARKERS: tuple[str, ...] = (".git", ".omp", ".xcsh", ".agent", ".agents", ".claude", ".cursor",
                                    ".windsurf", ".clinerules", ".github", ".codex", ".gemini")


@dataclass(frozen=True, slots=True)
class RuleSetOptions:
    """The rule set and agent a command runs with (every field: ``None`` / empty = the default).

    ``rules``: the ``--rules`` paths in order (first rule of a name wins); empty: discover from
    ``cwd``. ``builtin``: the bundled rules (``builtin-defaults``) take part. ``agent``: the agent
    ``agents:`` frontmatter is checked against (``None``: from the session, else ``main``).
    ``edit_mode``: how edit calls are read (``auto``: from each call's arguments).
    """

    rules: tuple[str, ...] = ()
    cwd: str | None = None
    home: str | None = None
    agent_dir: str | None = None
    disabled_rules: tuple[str, ...] = ()
    builtin: bool = True
    omp_package: str | None = None
    agent: str | None = None
    edit_mode: str = "auto"

    def __post_init__(self) -> None:
        if self.edit_mode not in AGENT_EDIT_MODES:
            raise ValueError(f"edit_mode {self.edit_mode!r}: one of {', '.join(AGENT_EDIT_MODES)}")

    def agent_for(self, session_agent: str | None = None) -> str:
        """The agent name in effect: the option, else the session's, else ``main``."""
        return self.agent or session_agent or DEFAULT_AGENT

    @property
    def fixed_edit_mode(self) -> str | None:
        """The edit mode to force on every call (``None`` for ``auto``), as the engine takes it."""
        return None if self.edit_mode == "auto" else self.edit_mode

    @property
    def project(self) -> str:
        """The folder paths match against when the input does not say: ``cwd``, else the first
        ``--rules`` folder (a rule file: its folder), else the current folder."""
        if self.cwd is not None:
            return str(Path(self.cwd).resolve())
        if self.rules:
            first = Path(self.rules[0]).resolve()
            return str(first if first.is_dir() else first.parent)
        return os.getcwd()

    def with_rules(self, *rules: str) -> RuleSetOptions:
        return replace(self, rules=tuple(rules))


def is_project_folder(folder: Path) -> bool:
    """A folder to discover rules from (rather than a folder of rule files)."""
    if any((folder / marker).exists() for marker in PROJECT_MARKERS):
        return True
    return not any(f.is_file() and f.suffix in RULE_SUFFIXES for f in folder.iterdir())


def discover_rule_set(options: RuleSetOptions, **switches: Any) -> RuleLoadResult:
    """The rules ``options`` name, with ``builtin`` and ``disabled_rules`` applied.

    Each ``rules`` path is a rule file, a folder of rule files (its ``.md`` / ``.mdc`` files) or a
    project folder discovered as the agent does (every provider, user-level rules under ``home``,
    the bundled ones). Without ``rules``, ``cwd`` is discovered. A missing path raises
    ``NotFoundError``. ``switches`` go to ``load_rules`` (the provider switches in effect)."""
    warnings: list[str] = []
    found: dict[str, Rule] = {}
    items: list[DiscoveredRule] = []
    bundled: BundledSource | None = None
    providers: tuple[ProviderSwitch, ...] = ()
    for raw in options.rules or (None,):
        if raw is not None and not Path(raw).exists():
            raise NotFoundError(f"{raw}: no such file or directory")
        if raw is None or (Path(raw).is_dir() and is_project_folder(Path(raw))):
            cwd = options.cwd if raw is None else str(Path(raw).resolve())
            loaded = load_rules(cwd=cwd, home=options.home, agent_dir=options.agent_dir,
                                omp_package=options.omp_package, **switches)
            warnings.extend(loaded.warnings)
            items.extend(loaded.items)
            bundled = bundled or loaded.bundled
            providers = providers or loaded.providers
            rules = list(loaded.rules)
        else:
            rules = load_rule_paths([raw], warnings)
        for rule in rules:
            found.setdefault(rule.name, rule)
    disabled = set(options.disabled_rules)
    kept = tuple(r for r in found.values() if r.name not in disabled and (options.builtin or not _bundled(r)))
    return RuleLoadResult(rules=kept, items=tuple(items), warnings=tuple(warnings), bundled=bundled,
                          providers=providers)


def _bundled(rule: Rule) -> bool:
    return rule.source is not None and rule.source.provider == BUILTIN_PROVIDER
