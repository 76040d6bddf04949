"""Where the bundled (``builtin-defaults``) rule files come from: an oh-my-pi installation, or the
workbench's own rewording in ``workbench/rules/builtin/``.

The agent embeds its 27 bundled rules from ``src/discovery/builtin-rules/*.md`` of the
``@oh-my-pi/pi-coding-agent`` package (listed, in order, by that folder's ``index.ts``). When such a
package is installed, reading those very files tells a rule author exactly what the agent will
inject; the workbench's own files carry the same triggers with bodies in its own words.

Search order (the first that applies wins):

1. an explicit folder (``--omp-package DIR``; the value ``none`` means "do not look, use the
   workbench's files");
2. the environment variable ``WORKBENCH_OMP_PACKAGE`` (same values);
3. a Bun global install: ``$BUN_INSTALL/install/global/node_modules`` (``BUN_INSTALL`` defaulting to
   ``<home>/.bun``);
4. a global npm install: the folder ``npm root -g`` prints (asked once per process, and only when
   the environment given has a ``PATH`` with ``npm`` on it, so a test's ``env={}`` never looks).

A folder named explicitly (1, 2) that is not a usable package is an error naming it; an installation
found by searching (3, 4) that is not usable is skipped with a note, and the search goes on.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from workbench.errors import NotFoundError

OMP_PACKAGE_ENV = "WORKBENCH_OMP_PACKAGE"
AGENT_PACKAGE = "@oh-my-pi/pi-coding-agent"
RULES_SUBDIR = ("src", "discovery", "builtin-rules")
NO_SEARCH = "none"

FoundBy = Literal["option", "env", "bun", "npm", "workbench"]


@dataclass(frozen=True, slots=True)
class BundledSource:
    """The bundled rule files in use: ``files`` holds ``(rule name, file path)`` in load order."""

    kind: Literal["omp-package", "workbench"]
    found_by: FoundBy
    folder: str
    files: tuple[tuple[str, str], ...]
    package: str | None = None  # the package root, for an oh-my-pi installation
    version: str | None = None  # its package.json version
    notes: tuple[str, ...] = ()  # installations found but not used, and why

    @property
    def from_omp(self) -> bool:
        return self.kind == "omp-package"

    def file_of(self, name: str) -> str | None:
        return next((path for rule, path in self.files if rule == name), None)

    def describe(self) -> str:
        """One line for the text outputs (``rules list``, ``replay``)."""
        if self.from_omp:
            via = {"option": "--omp-package", "env": OMP_PACKAGE_ENV, "bun": "Bun global install",
                   "npm": "npm global install"}[self.found_by]
            return f"oh-my-pi {self.version or '(unknown version)'} files at {self.folder} (from {via})"
        # named inside the package, not by its absolute path (that is where the package happens to be
        # installed, a checkout's own path in the README's pictures); to_json() keeps the folder
        return "the workbench's own rewording (workbench/rules/builtin in the package); no oh-my-pi installation in use"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "foundBy": self.found_by,
            "folder": self.folder,
            "package": self.package,
            "version": self.version,
            "count": len(self.files),
            "notes": list(self.notes),
        }


_IMPORT = re.compile(r"""import\s+([A-Za-z_$][\w$]*)\s+from\s+["']\./([^"']+\.md)["']""")
_ENTRY = re.compile(r"""\{\s*name:\s*["']([^"']+)["']\s*,\s*content:\s*([A-Za-z_$][\w$]*)\s*,?\s*\}""")


def _listed_files(folder: Path) -> list[tuple[str, Path]]:
    """The rules the package registers: from ``index.ts`` when it lists them (a file there that is
    not registered is not loaded by the agent either), else every visible ``*.md`` sorted by name."""
    index = folder / "index.ts"
    if index.is_file():
        try:
            text = index.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        imports = dict(_IMPORT.findall(text))
        entries = [(name, folder / imports[ident]) for name, ident in _ENTRY.findall(text) if ident in imports]
        if entries:
            return entries
    try:
        names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".md") and not p.name.startswith("."))
    except OSError:
        return []
    return [(n[: -len(".md")], folder / n) for n in names]


def _package_version(package: Path) -> tuple[str | None, str | None]:
    try:
        data = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None, None
    if not isinstance(data, dict):
        return None, None
    name, version = data.get("name"), data.get("version")
    return (name if isinstance(name, str) else None), (version if isinstance(version, str) else None)


def _inspect(package: Path) -> tuple[Path, list[tuple[str, Path]]] | str:
    """The rules folder and files of an installed agent package, or why it cannot be used."""
    if not package.is_dir():
        return f"{package}: no such folder"
    name, _version = _package_version(package)
    if name is not None and name != AGENT_PACKAGE:
        return f"{package}: package.json names {name!r}, not {AGENT_PACKAGE}"
    folder = package.joinpath(*RULES_SUBDIR)
    if not folder.is_dir():
        return f"{package}: no {'/'.join(RULES_SUBDIR)} folder (is it the {AGENT_PACKAGE} package folder?)"
    files = _listed_files(folder)
    if not files:
        return f"{folder}: no bundled rule files"
    return folder, files


def _omp_source(package: Path, found_by: FoundBy, notes: list[str]) -> BundledSource | str:
    inspected = _inspect(package)
    if isinstance(inspected, str):
        return inspected
    folder, files = inspected
    _name, version = _package_version(package)
    return BundledSource(kind="omp-package", found_by=found_by, folder=str(folder),
                         files=tuple((n, str(p)) for n, p in files), package=str(package),
                         version=version, notes=tuple(notes))


def workbench_source(notes: tuple[str, ...] = ()) -> BundledSource:
    """The workbench's own files (always present: they ship inside the package)."""
    folder = resources.files("workbench.rules") / "builtin"
    names = sorted(e.name for e in folder.iterdir() if e.name.endswith(".md") and not e.name.startswith("."))
    return BundledSource(kind="workbench", found_by="workbench", folder=str(folder),
                         files=tuple((n[: -len(".md")], str(folder / n)) for n in names), notes=notes)


@functools.lru_cache(maxsize=8)
def _npm_root(npm: str, prefix: str | None) -> str | None:
    # One subprocess per (npm, prefix) and process: `npm root -g` takes a few hundred milliseconds.
    env = dict(os.environ)
    if prefix is not None:
        env["npm_config_prefix"] = prefix
    try:
        done = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=20, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    root = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else []
    return root[0] if root else None


def global_candidates(env: Mapping[str, str], home: Path) -> Iterator[tuple[FoundBy, Path]]:
    """Where a global install of the agent would be, Bun's first (the agent's own installer); lazy,
    so npm is only asked when no Bun install was taken."""
    bun_root = Path(env.get("BUN_INSTALL") or home / ".bun")
    yield "bun", bun_root / "install" / "global" / "node_modules" / AGENT_PACKAGE
    path = env.get("PATH")
    npm = shutil.which("npm", path=path) if path else None
    if npm:
        prefix = env.get("npm_config_prefix") or env.get("NPM_CONFIG_PREFIX")
        root = _npm_root(npm, prefix)
        if root:
            yield "npm", Path(root) / AGENT_PACKAGE


def find_bundled_source(
    *, omp_package: str | os.PathLike[str] | None, env: Mapping[str, str], home: Path, search: bool = True
) -> BundledSource:
    """Resolve the bundled rule files to use (see the module docstring for the order)."""
    explicit: tuple[FoundBy, str] | None = None
    if omp_package is not None and str(omp_package) != "":
        explicit = ("option", os.fspath(omp_package))
    elif env.get(OMP_PACKAGE_ENV):
        explicit = ("env", env[OMP_PACKAGE_ENV])
    if explicit is not None:
        found_by, value = explicit
        if value == NO_SEARCH:
            return workbench_source()
        result = _omp_source(Path(os.path.abspath(os.path.expanduser(value))), found_by, [])
        if isinstance(result, str):
            flag = "--omp-package" if found_by == "option" else OMP_PACKAGE_ENV
            raise NotFoundError(f"{flag} {value}: not an oh-my-pi agent package ({result})")
        return result
    notes: list[str] = []
    if search:
        for found_by, package in global_candidates(env, home):
            if not package.exists():
                continue
            result = _omp_source(package, found_by, notes)
            if isinstance(result, BundledSource):
                return result
            notes.append(f"{found_by} install skipped: {result}")
    return workbench_source(tuple(notes))
