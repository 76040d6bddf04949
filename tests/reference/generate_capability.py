"""Seeded generators of capability cases: a project folder and a home folder, as files to write.

One case is one agent start: rule files of every provider oh-my-pi 18.3.4 loads rules from (``.omp``
project and user folders with their ``RULES.md``, ``.agent``/``.agents`` along the walk up,
``.cursor``, ``.windsurf`` and windsurf's ``global_rules.md``, ``.clinerules`` as a folder or a file,
``.github/instructions``, Claude Code marketplace plugins of Claude's and oh-my-pi's registries, the
user-level folders of foreign tools that load only when opted in), names that collide between
providers and levels, frontmatter variants (descriptions, globs, ``alwaysApply``, conditions and
scopes, ``enabled: false``, ``agents:``, kebab-case keys, empty bodies), and config files at each
layer (``~/.omp/agent/config.yml``, the project's ``.omp/settings.json`` and ``.omp/config.yml``,
the project settings of Claude Code, Cursor and Gemini) with ``ttsr.*`` keys, the provider switches
(``enabledProviders`` / ``disabledProviders``, path-scoped entries included) and
``disabledExtensions: rule:<name>``, some of them of the wrong type; runtime overrides (the CLI's
flags) above them. A few cases carry the seeds' ``.xcsh`` folders, which 18.3.4 does not read.

Paths are relative to the case's folder; ``tests/reference/test_capability.py`` writes them.
"""

from __future__ import annotations

import json
import random
from typing import Any

NAMES = ["style", "no-console", "tests", "docs", "naming", "security", "ts-no-any", "perf", "imports"]
BODIES = ["Use the project's style.", "Prefer small functions.\nName them well.", "Never log secrets.",
          "Keep tests fast.\n\n- one\n- two"]
FRONTMATTER: list[dict[str, Any] | None] = [
    None, None, {"description": "Style rules"}, {"alwaysApply": True}, {"alwaysApply": False, "description": "d"},
    {"globs": ["*.ts", "src/**"]}, {"globs": "*.py"}, {"condition": "console\\.log\\("},
    {"condition": ["TODO", "FIXME"], "scope": "text, tool:edit(*.ts)"}, {"enabled": False}, {"enabled": True},
    {"agents": "main"}, {"agents": ["scout", "task-*"]}, {"interruptMode": "never"}, {"always-apply": True},
    {"description": "Judge", "question": "Does the reply log a secret?"},
]
TTSR_VALUES: dict[str, list[Any]] = {
    "enabled": [True, False, "yes"],
    "judge": ["auto", "on", "off", "maybe"],
    "contextMode": ["discard", "keep", "both"],
    "interruptMode": ["never", "prose-only", "tool-only", "always", "sometimes"],
    "repeatMode": ["once", "after-gap"],
    "repeatGap": [3, 20, "5", None],
    "builtinRules": [True, False],
    "disabledRules": [["style"], ["tests", "docs"], [], "style"],
}
PROVIDERS = ["native", "agents", "cursor", "windsurf", "cline", "github", "claude-plugins", "builtin-defaults",
             "claude", "omp-plugins"]
FOREIGN = ["cursor", "windsurf", "claude-plugins", "claude", "github"]


def _rule_text(rng: random.Random) -> str:
    front = rng.choice(FRONTMATTER)
    body = rng.choice(BODIES) if rng.random() > 0.06 else rng.choice(["", "   \n"])
    if front is None:
        return body + "\n"
    lines = ["---"] + [f"{k}: {json.dumps(v)}" for k, v in front.items()] + ["---"]
    return "\n".join(lines) + "\n" + body + "\n"


def _github_text(rng: random.Random) -> str:
    apply_to = rng.choice([None, "**", "*.ts", "src/**/*.py, docs/**", ["*.md", "*.ts"], "**/*", ""])
    front = {"applyTo": apply_to} if apply_to is not None else {}
    if rng.random() < 0.3:
        front["description"] = "GitHub instructions"
    body = rng.choice(BODIES)
    if not front:
        return body + "\n"
    return "---\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in front.items()) + "---\n" + body + "\n"


def _name(rng: random.Random) -> str:
    return rng.choice(NAMES)


def _put(files: dict[str, str], folder: str, stem: str, ext: str, text: str) -> None:
    """Add a rule file unless its folder already has one of that name (``x.md`` beside ``x.mdc``):
    which of two would win is the order of the agent's native glob, which is not published."""
    if any(p.startswith(f"{folder}/{stem}.") and "/" not in p[len(folder) + 1:] for p in files):
        return
    files[f"{folder}/{stem}{ext}"] = text


def _settings(rng: random.Random, keys: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    ttsr: dict[str, Any] = {}
    for key in rng.sample(list(TTSR_VALUES), keys):
        ttsr[key] = rng.choice(TTSR_VALUES[key])
    if ttsr:
        if rng.random() < 0.15:  # the flat spelling of one key beside the group
            key = next(iter(ttsr))
            data[f"ttsr.{key}"] = ttsr.pop(key)
        data["ttsr"] = ttsr
    return data


def _switches(rng: random.Random, data: dict[str, Any], project: str) -> None:
    if rng.random() < 0.35:
        chosen = rng.sample(FOREIGN + ["*", "all", "codex"], rng.randint(1, 2))
        if rng.random() < 0.2:
            # path-scoped entry: counts only under the project folder
            where = rng.choice([project, "/nowhere/else"])
            data["enabledProviders"] = [{"paths": [where], "providers": chosen}]
        else:
            data["enabledProviders"] = chosen
    if rng.random() < 0.2:
        data["disabledProviders"] = rng.sample(PROVIDERS, rng.randint(1, 2))
    if rng.random() < 0.3:
        data["disabledExtensions"] = [f"rule:{n}" for n in rng.sample(NAMES, rng.randint(1, 2))] + (
            ["skill:x"] if rng.random() < 0.3 else [])


def _yaml(data: dict[str, Any]) -> str:
    # JSON is YAML 1.2; one key per line keeps the files readable in a failure message.
    return "".join(f"{json.dumps(k)}: {json.dumps(v)}\n" for k, v in data.items())


def capability_case(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    files: dict[str, str] = {}
    inside_home = rng.random() < 0.2
    project = "home/work/proj" if inside_home else "proj"
    sub = rng.choice(["", "", "", "/pkg", "/pkg/src"])
    cwd = project + sub
    if rng.random() < 0.6:
        files[f"{project}/.git/HEAD"] = "ref: refs/heads/main\n"
    # Native (.omp) project and user rules, RULES.md at both levels.
    omp_dirs = [f"{project}/.omp" if not sub or rng.random() < 0.5 else f"{cwd}/.omp"]
    for directory in omp_dirs:
        for _ in range(rng.randint(0, 3)):
            _put(files, f"{directory}/rules", _name(rng), rng.choice([".md", ".md", ".mdc"]), _rule_text(rng))
        if rng.random() < 0.25:
            files[f"{directory}/RULES.md"] = _rule_text(rng)
    for _ in range(rng.randint(0, 2)):
        files[f"home/.omp/agent/rules/{_name(rng)}.md"] = _rule_text(rng)
    if rng.random() < 0.2:
        files["home/.omp/agent/RULES.md"] = _rule_text(rng)
    # .agent / .agents along the walk up and in the home folder.
    for directory in rng.sample([cwd, project, "home"], rng.randint(0, 2)):
        for _ in range(rng.randint(1, 2)):
            files[f"{directory}/{rng.choice(['.agent', '.agents'])}/rules/{_name(rng)}.md"] = _rule_text(rng)
    # Cursor, Windsurf, Cline, GitHub: project folders (cwd only) and the opt-in user folders.
    if rng.random() < 0.45:
        for _ in range(rng.randint(1, 2)):
            _put(files, f"{cwd}/.cursor/rules", _name(rng), rng.choice([".mdc", ".md"]), _rule_text(rng))
    if rng.random() < 0.3:
        files[f"home/.cursor/rules/{_name(rng)}.mdc"] = _rule_text(rng)
    if rng.random() < 0.35:
        files[f"{cwd}/.windsurf/rules/{_name(rng)}.md"] = _rule_text(rng)
    if rng.random() < 0.25:
        files["home/.codeium/windsurf/memories/global_rules.md"] = _rule_text(rng)
    if rng.random() < 0.3:
        where = rng.choice([cwd, project])
        if rng.random() < 0.5:
            files[f"{where}/.clinerules"] = _rule_text(rng)
        else:
            for _ in range(rng.randint(1, 2)):
                files[f"{where}/.clinerules/{_name(rng)}.md"] = _rule_text(rng)
    if rng.random() < 0.35:
        # One name once in the whole tree: the order of two namesakes in different subfolders would
        # be the native glob's.
        for name in rng.sample(NAMES, rng.randint(1, 2)):
            folder = rng.choice(["", "backend/", "deep/er/"])
            stem = name + rng.choice([".instructions", ".instructions", ""])
            files[f"{cwd}/.github/instructions/{folder}{stem}.md"] = _github_text(rng)
    # Claude Code marketplace plugins: Claude's registry (user scope: opt-in) and oh-my-pi's.
    if rng.random() < 0.3:
        plugins: dict[str, list[dict[str, Any]]] = {}
        for i in range(rng.randint(1, 2)):
            install = f"home/.claude/plugins/cache/mkt/p{i}"
            files[f"{install}/rules/{_name(rng)}.md"] = _rule_text(rng)
            entry: dict[str, Any] = {"installPath": "@ROOT@/" + install, "version": "1.0.0",
                                     "scope": rng.choice(["user", "user", "project"])}
            if entry["scope"] == "project":
                entry["projectPath"] = "@ROOT@/" + rng.choice([cwd, "elsewhere"])
            plugins[f"p{i}@mkt"] = [entry]
        registry = rng.choice(["home/.claude/plugins", "home/.claude/plugins", "home/.omp/plugins"])
        files[f"{registry}/installed_plugins.json"] = json.dumps({"version": 2, "plugins": plugins})
    # The seeds' layout (.xcsh), which 18.3.4 does not know.
    if rng.random() < 0.12:
        files[f"{project}/.xcsh/rules/{_name(rng)}.md"] = _rule_text(rng)
        if rng.random() < 0.5:
            files[f"{project}/.xcsh/config.yml"] = _yaml(_settings(rng, 1))
    # Config layers.
    absolute_project = "@ROOT@/" + project
    if rng.random() < 0.6:
        data = _settings(rng, rng.randint(0, 4))
        _switches(rng, data, absolute_project)
        files["home/.omp/agent/config.yml"] = _yaml(data)
    for name in ("settings.json", "config.yml"):
        if rng.random() < 0.4:
            data = _settings(rng, rng.randint(1, 3))
            _switches(rng, data, absolute_project)
            files[f"{cwd}/.omp/{name}"] = json.dumps(data) if name.endswith(".json") else _yaml(data)
    if rng.random() < 0.12:
        tool = rng.choice([".claude", ".cursor", ".gemini"])
        files[f"{cwd}/{tool}/settings.json"] = json.dumps(_settings(rng, rng.randint(1, 2)))
    overrides: dict[str, Any] = {}
    if rng.random() < 0.3:
        for key in rng.sample(["contextMode", "interruptMode", "repeatMode", "repeatGap", "builtinRules"],
                              rng.randint(1, 2)):
            value = rng.choice([v for v in TTSR_VALUES[key] if v not in ("both", "sometimes", "5", None)])
            overrides[f"ttsr.{key}"] = value
    if rng.random() < 0.15:
        overrides["enabledProviders"] = rng.sample(FOREIGN, 1)
    if rng.random() < 0.1:
        overrides["disabledProviders"] = rng.sample(PROVIDERS, 1)
    return {"seed": seed, "files": files, "cwd": cwd, "overrides": overrides}


# Small built folders for the corners the random ones reach rarely: blank files where a single-file
# rule is read (windsurf's global_rules.md, .clinerules, RULES.md), a disabled or empty winner over a
# namesake, a disabledExtensions entry for a name several providers hold, an .omp folder holding only
# settings, foreign user folders switched on by every spelling.
EDGES: list[dict[str, Any]] = [
    {"home/.codeium/windsurf/memories/global_rules.md": "  \n\n", "home/.omp/agent/config.yml": '"enabledProviders": ["windsurf"]\n'},
    {"home/.codeium/windsurf/memories/global_rules.md": "---\ndescription: x\n---\n", "home/.omp/agent/config.yml": '"enabledProviders": ["*"]\n'},
    {"proj/.clinerules": "\n"},
    {"proj/.clinerules": "---\nalwaysApply: true\n---\n\n"},
    {"proj/.omp/RULES.md": " \n", "home/.omp/agent/RULES.md": "---\nenabled: false\n---\nx\n"},
    {"proj/.omp/rules/style.md": "---\nenabled: false\n---\nnot this\n", "proj/.cursor/rules/style.mdc": "cursor's\n"},
    {"proj/.omp/rules/style.md": "---\ndescription: empty\n---\n", "proj/.agents/rules/style.md": "agents'\n"},
    {"proj/.omp/rules/style.md": "native\n", "proj/.agents/rules/style.md": "agents'\n",
     "proj/.omp/config.yml": '"disabledExtensions": ["rule:style"]\n'},
    {"proj/.omp/settings.json": '{"ttsr": {"repeatGap": 4}}', "proj/.agents/rules/docs.md": "d\n"},
    {"proj/.omp/config.yml": "", "proj/.omp/rules/a.md": "a\n"},
    {"home/.cursor/rules/c.mdc": "c\n", "home/.omp/agent/config.yml": '"enabledProviders": ["all"]\n'},
    {"home/.cursor/rules/c.mdc": "c\n", "home/.omp/agent/config.yml": '"enabledProviders": ["cursor"]\n',
     "proj/.omp/config.yml": '"disabledProviders": ["cursor"]\n'},
    {"home/.claude/plugins/cache/m/p/rules/r.md": "r\n", "home/.omp/agent/config.yml": '"enabledProviders": ["claude"]\n',
     "home/.claude/plugins/installed_plugins.json":
         '{"version": 2, "plugins": {"p@m": [{"installPath": "@ROOT@/home/.claude/plugins/cache/m/p", "scope": "user"}]}}'},
    {"home/.claude/plugins/cache/m/p/rules/r.md": "r\n",
     "home/.claude/plugins/installed_plugins.json":
         '{"version": 2, "plugins": {"p@m": [{"installPath": "@ROOT@/home/.claude/plugins/cache/m/p", "scope": "local", '
         '"projectPath": "@ROOT@/proj"}], "bad": [{"installPath": "/x"}], "q@m": [{"scope": "user"}]}}'},
    {"home/.omp/plugins/cache/p/rules/r.md": "r\n", "home/.omp/plugins/installed_plugins.json":
         '{"version": 1, "plugins": {"p@m": [{"installPath": "@ROOT@/home/.omp/plugins/cache/p", "enabled": false}]}}'},
    {"proj/.github/instructions/a.instructions.md": "---\napplyTo: \"**/*\"\n---\nall\n",
     "proj/.github/instructions/b.instructions.md": "---\napplyTo: [\"*.ts, *.js\", \" \"]\ndescription: mine\n---\nb\n",
     "proj/.github/instructions/c.instructions.md": "no frontmatter\n"},
    {"proj/.omp/config.yml": '"ttsr": "off"\n', "home/.omp/agent/config.yml": '"ttsr": {"enabled": false}\n'},
    {"home/.omp/agent/config.yml": '"ttsr": "off"\n', "proj/.omp/config.yml": '"ttsr": {"repeatMode": "after-gap"}\n'},
    {"proj/.omp/config.yml": '"ttsr": {"repeatGap": 2.5, "disabledRules": [1, "x"]}\n"enabledProviders": "cursor"\n'},
    {"proj/.claude/settings.json": '{"ttsr": {"judge": "off"}}', "proj/.cursor/settings.json": '{"ttsr": {"judge": "on"}}',
     "proj/.omp/config.yml": '"ttsr": {"judge": "auto"}\n'},
]


def edge_case(index: int) -> dict[str, Any]:
    files = dict(EDGES[index])
    files.setdefault("proj/.git/HEAD", "ref: refs/heads/main\n")
    return {"seed": 50_000 + index, "files": files, "cwd": "proj", "overrides": {}}
