"""The rule set the stepper and the Rules tab share: discovered from a folder, editable in place.

Discovery reads only the chosen project folder and the bundled rules: ``home`` is an empty private
folder and ``repo_root`` is the project itself, so a served app never reads the server user's own
``~/.omp`` rules (outside the served roots); ``boundary`` (the served root holding the folder, else
the folder itself) stops the providers' upward walks, e.g. Cline's search for ``.clinerules``. Edits made in the browser are kept as overrides in
memory (the rule file on disk is not rewritten); a file edited on disk is picked up on the next poll.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from workbench.errors import NotFoundError
from workbench.rules import (
    RuleLoadResult,
    build_rule_from_markdown,
    find_bundled_source,
    load_rules,
    read_agent_settings,
)

# Process-wide defaults of the served app, set once by ``workbench serve --no-builtin / --omp-package``.
DEFAULTS: dict[str, Any] = {"builtin": True, "omp_package": None}


def configure(*, builtin: bool = True, omp_package: str | None = None) -> None:
    DEFAULTS.update(builtin=builtin, omp_package=omp_package)


class RuleSet:
    """Rules of one project folder plus in-browser overrides, reloaded when files change."""

    def __init__(self, folder: Path | None, boundary: Path | None = None, *, builtin: bool | None = None) -> None:
        self.folder = folder
        self.boundary = boundary
        self.builtin = DEFAULTS["builtin"] if builtin is None else builtin  # the bundled (builtin-defaults) rules; the Rules tab's switch
        self.home = Path(tempfile.mkdtemp(prefix="workbench-home-"))
        self.overrides: dict[str, str] = {}  # rule name -> edited Markdown (frontmatter + body)
        self.edit_warnings: dict[str, list[str]] = {}
        # The discovered rules with the files' signature they were read at, as one value: workers
        # (timeline, fires, backtest) load while the page's poll compares, and a half-set pair made
        # the poll drop a load in progress (and that load return None).
        self._snapshot: tuple[RuleLoadResult, tuple[Any, ...]] | None = None

    # -- loading -----------------------------------------------------------------------------------
    def loaded(self) -> RuleLoadResult:
        snapshot = self._snapshot
        if snapshot is None:
            # the signature first: a file edited while the rules are read shows at the next poll
            signature = self.signature()
            cwd = str(self.folder) if self.folder else str(self.home)
            # env={} keeps the server user's settings out; only the agent package (its bundled
            # rules) is looked up in the real environment, as the command line does.
            # The project's own config files may switch providers and rules off (the agent's
            # disabledProviders / enabledProviders / disabledExtensions; docs/agent-settings.md).
            switches = read_agent_settings(cwd=cwd, home=self.home, env={})
            result = load_rules(cwd=cwd, home=str(self.home), repo_root=cwd, env={},
                                boundary=str(self.boundary) if self.boundary else cwd,
                                omp_package=_omp_package(),
                                exclude_providers=() if self.builtin else ("builtin-defaults",),
                                enabled_providers=switches.names("enabledProviders"),
                                disabled_providers=switches.names("disabledProviders"),
                                disabled_extensions=switches.names("disabledExtensions"))
            snapshot = self._snapshot = (result, signature)
        return snapshot[0]

    def signature(self) -> tuple[Any, ...]:
        """Names, sizes and mtimes of the rule files under the folder (cheap change detection)."""
        if self.folder is None:
            return ()
        out = []
        for sub in (".omp/rules", ".xcsh/rules", ".agent/rules", ".agents/rules", ".cursor/rules", ".windsurf/rules",
                    ".clinerules", ".github/instructions", ".omp/config.yml", ".omp/settings.json",
                    ".xcsh/config.yml", ".xcsh/settings.json"):
            base = self.folder / sub
            if not base.exists():
                continue
            files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
            for f in files:
                try:
                    st = f.stat()
                except OSError:
                    continue
                out.append((str(f), st.st_size, st.st_mtime_ns))
        return tuple(out)

    def set_builtin(self, on: bool) -> None:
        """Switch the bundled rules on or off (the next ``loaded()`` discovers again)."""
        if on != self.builtin:
            self.builtin = on
            self._snapshot = None

    def changed_on_disk(self) -> bool:
        """True (and the cache dropped) when a rule file was added, removed or edited."""
        snapshot = self._snapshot
        if snapshot is None:
            return False
        if self.signature() != snapshot[1]:
            self._snapshot = None
            return True
        return False

    # -- rules -------------------------------------------------------------------------------------
    def rules(self) -> list[Any]:
        """Active rules in priority order, with browser edits applied."""
        out = []
        for rule in self.loaded().rules:
            text = self.overrides.get(rule.name)
            out.append(self._edited(rule, text) if text is not None else rule)
        return out

    def source_text(self, name: str) -> str:
        """The Markdown of a rule as the editor should show it (the override, else the file)."""
        if name in self.overrides:
            return self.overrides[name]
        loaded = self.loaded()
        rule = loaded.get(name)
        if rule is None:
            return ""
        bundled = loaded.bundled.file_of(name) if loaded.bundled and rule.path.startswith("builtin-defaults:") else None
        path = Path(bundled or rule.path)
        if path.is_file():
            try:
                return path.read_text(encoding="utf-8")
            except OSError:
                pass
        return _as_markdown(rule)

    def edit(self, name: str, text: str) -> Any:
        """Keep ``text`` as the rule's new Markdown; returns the rebuilt rule (raises on bad input)."""
        rule = self.loaded().get(name)
        if rule is None:
            raise NotFoundError(f"rule {name!r} is not in the current rule set")
        built = self._edited(rule, text)
        self.overrides[name] = text
        return built

    def revert(self, name: str) -> None:
        self.overrides.pop(name, None)
        self.edit_warnings.pop(name, None)

    def _edited(self, rule: Any, text: str) -> Any:
        warnings: list[str] = []
        built = build_rule_from_markdown(os.path.basename(rule.path) or f"{rule.name}.md", text, rule.path,
                                         rule.source, rule_name=rule.name, warnings=warnings)
        self.edit_warnings[rule.name] = warnings
        return replace(built, source=rule.source) if built.source is None else built


def _omp_package() -> str | None:
    """The agent package the real environment points at (``WORKBENCH_OMP_PACKAGE`` or a global
    install), or ``"none"``: the app's discovery itself gets no environment."""
    source = find_bundled_source(omp_package=DEFAULTS["omp_package"], env=os.environ, home=Path.home())
    return source.package if source.from_omp else "none"


def _as_markdown(rule: Any) -> str:
    """A Markdown rendering of a rule that has no file (bundled rules)."""
    lines = ["---"]
    if rule.description:
        lines.append(f"description: {rule.description}")
    for key, value in (("condition", rule.condition), ("astCondition", rule.ast_condition), ("scope", rule.scope),
                       ("globs", rule.globs)):
        if value:
            lines.append(f"{key}:")
            lines.extend(f"  - {json.dumps(v, ensure_ascii=False)}" for v in value)  # JSON strings are YAML
    if rule.interrupt_mode:
        lines.append(f"interruptMode: {rule.interrupt_mode}")
    lines.append("---")
    lines.append(rule.content)
    return "\n".join(lines)


def offer_rules(select: Any, names: list[str], preferred: list[str]) -> bool:
    """Offer ``names`` in a rule menu (the Rules tab's editor, the Playground). The rule chosen stays
    chosen while it is offered: True, the caller shows it again; else the first of ``preferred`` (the
    stream-triggered rules), else the first name, is chosen, which shows it through the menu's watcher."""
    current = select.value
    select.options = names
    if current in names:
        return True
    if names:
        select.value = (preferred or names)[0]
    return False
