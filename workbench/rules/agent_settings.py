"""The agent's ``ttsr.*`` settings and discovery switches, read from its config layers.

oh-my-pi 18.3.4 (``config/settings.ts``) merges, lowest precedence first: the user's global
``<agentDir>/config.yml`` (agentDir = ``$PI_CODING_AGENT_DIR`` or ``<home>/.omp/agent``), then the
project layer (the settings capability's project items in provider priority order, each merged over
the one before: ``<cwd>/.omp/settings.json`` and ``<cwd>/.omp/config.yml`` (read only when ``<cwd>/.omp``
is a non-empty folder), Claude Code's ``<cwd>/.claude/settings.json``, Gemini's
``<cwd>/.gemini/settings.json``, Cursor's ``<cwd>/.cursor/settings.json``; a project item's non-object
``ttsr`` is dropped, as it would shadow the whole group), then runtime overrides. Objects merge key by
key; any other value (arrays and ``null`` included) replaces the one below, and a merged ``null``
counts as unset. A key is read nested (``ttsr: {enabled: …}``) only: a flat ``ttsr.enabled`` key is
no setting. A value of the wrong type (a string for a boolean, an enum value not in the list, a
non-number gap) is ignored with a warning: the default applies, still reported as that layer's. The
workbench's flags are the runtime overrides. The seeds' ``.xcsh`` folder is read too, one step below
``.omp`` of the same level, since 18.3.4 does not know it (docs/agent-settings.md).

Each value in effect carries its source (``flag``, ``project``, ``user``, ``default``) and the file
it came from, so every command can say why a setting has the value it has.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.rules.frontmatter import load_yaml

SettingSource = Literal["flag", "project", "user", "default"]

# ``export/ttsr-settings.ts`` of 18.3.4: the ttsr group, in its declaration order, with its defaults.
TTSR_DEFAULTS: dict[str, Any] = {
    "enabled": True,
    "judge": "auto",
    "contextMode": "discard",
    "interruptMode": "always",
    "repeatMode": "once",
    "repeatGap": 10,
    "builtinRules": True,
    "disabledRules": [],
}
JUDGE_MODES = ("auto", "on", "off")
# The declared type of each setting (``export/ttsr-settings.ts``, ``config/model-settings.ts``,
# ``extensibility/settings.ts``): a tuple lists an enum's values.
_TYPES: dict[str, Any] = {
    "enabled": bool, "judge": JUDGE_MODES, "contextMode": ("discard", "keep"),
    "interruptMode": ("never", "prose-only", "tool-only", "always"), "repeatMode": ("once", "after-gap"),
    "repeatGap": float, "builtinRules": bool, "disabledRules": list,
    "enabledProviders": list, "disabledProviders": list, "disabledExtensions": list,
}
# Project settings of other tools the settings capability reads (cwd only), after ``.omp``'s, by
# provider priority: Claude Code (80), Gemini CLI (60), Cursor (50). OpenCode's JSONC files and
# Codex's TOML are left out (docs/agent-settings.md).
FOREIGN_PROJECT_SETTINGS = (".claude/settings.json", ".gemini/settings.json", ".cursor/settings.json")
# Top-level switches of discovery (``capability/index.ts``, ``extensibility/settings.ts``).
SWITCH_KEYS = ("enabledProviders", "disabledProviders", "disabledExtensions")
NATIVE_DIR = ".omp"
SEED_DIR = ".xcsh"


@dataclass(frozen=True, slots=True)
class SettingValue:
    """One setting in effect: its value, the layer that gave it and that layer's file."""

    key: str
    value: Any
    source: SettingSource
    file: str | None = None
    shadowed: tuple[str, ...] = ()  # files below the winner that set it too

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "file": self.file, "shadowed": list(self.shadowed)}


@dataclass(frozen=True, slots=True)
class LayerFile:
    """A config file the layers looked at."""

    path: str
    level: Literal["user", "project"]
    read: bool
    error: str | None = None


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """The ``ttsr.*`` values and the discovery switches in effect, each with its provenance."""

    ttsr: tuple[SettingValue, ...]
    switches: tuple[SettingValue, ...]
    files: tuple[LayerFile, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def get(self, key: str) -> SettingValue:
        found = next((s for s in (*self.ttsr, *self.switches) if s.key == key), None)
        if found is None:
            raise KeyError(key)
        return found

    def value(self, key: str) -> Any:
        return self.get(key).value

    def ttsr_mapping(self) -> dict[str, Any]:
        """The ``ttsr`` group as the manager's settings mapping (camelCase keys)."""
        return {s.key: s.value for s in self.ttsr}

    def names(self, key: str) -> tuple[str, ...]:
        """A switch's string entries (anything else in the list is ignored, as the agent's sets do)."""
        value = self.value(key)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    def to_json(self) -> dict[str, Any]:
        return {
            "ttsr": {s.key: s.to_json() for s in self.ttsr},
            "switches": {s.key: s.to_json() for s in self.switches},
            "files": [{"path": f.path, "level": f.level, "read": f.read, "error": f.error} for f in self.files],
            "warnings": list(self.warnings),
        }


def _is_nonempty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and any(path.iterdir())
    except OSError:
        return False


def _read_file(path: Path, level: Literal["user", "project"]) -> tuple[dict[str, Any] | None, LayerFile]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, LayerFile(str(path), level, read=False)
    except (OSError, UnicodeDecodeError) as exc:
        return None, LayerFile(str(path), level, read=False, error=f"cannot read: {exc}")
    if not text:
        return None, LayerFile(str(path), level, read=False)  # the agent's readFile treats "" as absent
    try:
        data = json.loads(text) if path.suffix == ".json" else load_yaml(text)
    except Exception as exc:  # a broken file is a warning, as the agent logs it and goes on
        return None, LayerFile(str(path), level, read=True, error=f"cannot parse: {exc}")
    if not isinstance(data, dict):
        return {}, LayerFile(str(path), level, read=True)
    return data, LayerFile(str(path), level, read=True)


_MISSING = object()


def _at(data: Mapping[str, Any], segments: list[str]) -> Any:
    """What a layer says at a setting's path: the value (``None`` for ``null``), ``_MISSING`` when it
    says nothing, ``None`` too when a non-object on the way replaces the group below it (the merge
    then holds no value there)."""
    value: Any = data
    for part in segments:
        if not isinstance(value, Mapping):
            return None
        if part not in value:
            return _MISSING
        value = value[part]
    return value


def _fits(key: str, value: Any) -> bool:
    kind = _TYPES[key]
    if kind is bool:
        return isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool) and value == value \
            and value not in (float("inf"), float("-inf"))
    if kind is list:
        return isinstance(value, list)
    return isinstance(value, str) and value in kind


def _drop_group_shadows(data: dict[str, Any]) -> dict[str, Any]:
    """A project item's non-object ``ttsr`` would replace the whole group; the agent drops it."""
    if "ttsr" in data and not isinstance(data["ttsr"], dict):
        return {k: v for k, v in data.items() if k != "ttsr"}
    return data


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _under(cwd: str, prefix: str) -> bool:
    root = os.path.abspath(os.path.expanduser(prefix))
    return cwd == root or cwd.startswith(root.rstrip(os.sep) + os.sep)


def _path_scoped(setting: SettingValue, cwd: str) -> SettingValue:
    """``enabledProviders`` / ``disabledProviders`` entries may be ``{paths: [...], providers: [...]}``,
    which count only when ``cwd`` is under one of the paths (``resolvePathScopedStringArray``)."""
    value = setting.value
    if setting.key == "disabledExtensions" or not isinstance(value, list):
        return setting
    resolved: list[str] = []
    for entry in value:
        if isinstance(entry, str):
            resolved.append(entry)
        elif isinstance(entry, Mapping):
            prefixes = [p for k in ("path", "paths", "pathPrefix", "pathPrefixes") for p in _strings(entry.get(k))]
            if prefixes and any(_under(cwd, p) for p in prefixes):
                resolved += [v for k in ("values", "items", "providers") for v in _strings(entry.get(k))]
    return SettingValue(setting.key, resolved, setting.source, setting.file, setting.shadowed)


def layer_files(
    *, cwd: Path, home: Path, agent_dir: Path | None = None, env: Mapping[str, str] | None = None
) -> list[tuple[Path, Literal["user", "project"]]]:
    """The files of the layers, lowest precedence first."""
    env = env or {}
    files: list[tuple[Path, Literal["user", "project"]]] = []
    if agent_dir is not None:
        user_dirs = [agent_dir]
    elif env.get("PI_CODING_AGENT_DIR"):
        user_dirs = [Path(env["PI_CODING_AGENT_DIR"])]
    else:
        name = env.get("PI_CONFIG_DIR") or NATIVE_DIR
        user_dirs = [home / SEED_DIR / "agent", home / name / "agent"] if name == NATIVE_DIR else [home / name / "agent"]
    for directory in user_dirs:
        files += [(directory / "config.yml", "user")]
    project_names = [SEED_DIR, env.get("PI_CONFIG_DIR") or NATIVE_DIR]
    for name in dict.fromkeys(project_names):
        directory = cwd / name
        if _is_nonempty_dir(directory):
            files += [(directory / "settings.json", "project"), (directory / "config.yml", "project")]
    files += [(cwd / rel, "project") for rel in FOREIGN_PROJECT_SETTINGS]
    return files


def read_agent_settings(
    *,
    cwd: str | os.PathLike[str],
    home: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> AgentSettings:
    """The settings in effect for a project ``cwd``: files in the agent's order, ``flags`` (camelCase
    keys of the ttsr group or switch names; ``None`` = not given) above them."""
    layers: list[tuple[str, SettingSource, Mapping[str, Any]]] = []
    files: list[LayerFile] = []
    warnings: list[str] = []
    for path, level in layer_files(cwd=Path(os.path.abspath(cwd)), home=Path(os.path.abspath(home)),
                                   agent_dir=Path(os.path.abspath(agent_dir)) if agent_dir is not None else None,
                                   env=env):
        if level == "project" and path.parent.name not in (NATIVE_DIR, SEED_DIR) and not path.is_file():
            continue  # another tool's settings file: listed only when there is one
        data, info = _read_file(path, level)
        files.append(info)
        if info.error:
            warnings.append(f"{info.path}: {info.error}")
        if data is not None:
            layers.append((str(path), level, _drop_group_shadows(data) if level == "project" else data))
    given = {k: v for k, v in (flags or {}).items() if v is not None}

    def resolve(key: str, dotted: str, default: Any) -> SettingValue:
        segments = dotted.split(".")
        said = [(p, lvl, _at(d, segments)) for p, lvl, d in layers]
        said = [f for f in said if f[2] is not _MISSING]
        setters = [p for p, _lvl, v in said if v is not None]
        if key in given:
            return SettingValue(key, given[key], "flag", None, tuple(reversed(setters)))
        # The merge keeps the highest layer's word; a null there (or a group replaced on the way)
        # leaves the setting unset (``configuredValue``).
        if not said or said[-1][2] is None:
            return SettingValue(key, default, "default")
        path, lvl, value = said[-1]
        shadowed = tuple(p for p in reversed(setters) if p != path)
        if not _fits(key, value):
            warnings.append(f"{path}: {dotted} {json.dumps(value)} is not a valid value; the default "
                            f"{json.dumps(default)} applies")
            value = default
        return SettingValue(key, value, lvl, path, shadowed)

    ttsr = tuple(resolve(k, f"ttsr.{k}", d) for k, d in TTSR_DEFAULTS.items())
    where = os.path.abspath(cwd)
    switches = tuple(_path_scoped(resolve(k, k, []), where) for k in SWITCH_KEYS)
    return AgentSettings(ttsr=ttsr, switches=switches, files=tuple(files), warnings=tuple(warnings))


@dataclass(frozen=True, slots=True)
class JudgeState:
    """Whether judged (``question:``) rules are judged, from ``ttsr.judge`` and an explicit judge.

    18.3.4 (``AgentSession.ruleJudge``): ``off`` never judges; ``auto`` (the default) judges only when
    the judge model role resolves to a native judge model; ``on`` always does. The workbench has no
    model roles, so ``auto`` never resolves by itself: an explicit judge (``--judge``) is the only one,
    and it counts as ``on`` set by a flag."""

    mode: Any
    source: SettingSource
    active: bool
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "source": self.source, "active": self.active, "why": self.why}


def judge_state(settings: AgentSettings, judge_given: bool) -> JudgeState:
    setting = settings.get("judge")
    mode, source = setting.value, setting.source
    if judge_given:
        return JudgeState(mode, source, True, "an explicit judge (--judge) answers the judged rules")
    if mode == "off":
        return JudgeState(mode, source, False, "ttsr.judge is off: judged rules stay inactive")
    if mode == "on":
        return JudgeState(mode, source, False, "ttsr.judge is on, but no judge is given (--judge)")
    return JudgeState(mode, source, False, "ttsr.judge is auto and no native judge model resolves here "
                      "(the workbench has no model roles): judged rules stay inactive unless --judge gives one")
