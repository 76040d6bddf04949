"""The agent's own reminder templates, read from the installed oh-my-pi package.

The model receives each fired rule wrapped in one of three templates of the agent package,
``src/prompts/system/ttsr-interrupt.md`` (the stream was cut), ``ttsr-tool-reminder.md`` (folded into a
tool result) and ``ttsr-warning.md`` (a judged rule's verdict). When the package is installed (found as
the bundled rule files are: ``--omp-package``, ``WORKBENCH_OMP_PACKAGE``, a Bun or npm global install;
``workbench.rules.bundled``) those files are read, so the texts the views show are the ones the model
sees; otherwise the workbench's own wording (``workbench.ttsr.templates``) is the fallback. A package
missing one of the files gives the fallback for that one, with a note.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.rules.bundled import BundledSource, find_bundled_source

PROMPTS_SUBDIR = ("src", "prompts", "system")
# key (as ``workbench.replay`` takes templates) -> the agent's file name
TEMPLATE_FILES: tuple[tuple[str, str], ...] = (
    ("interrupt", "ttsr-interrupt.md"),
    ("reminder", "ttsr-tool-reminder.md"),
    ("warning", "ttsr-warning.md"),
)


@dataclass(frozen=True, slots=True)
class AgentTemplates:
    """Which reminder templates are in use: per key, the agent's text and file, or ``None`` (fallback)."""

    kind: Literal["omp-package", "workbench"]
    texts: Mapping[str, str]
    files: Mapping[str, str]
    package: str | None = None
    version: str | None = None
    found_by: str | None = None
    notes: tuple[str, ...] = ()

    def templates(self) -> dict[str, str] | None:
        """The mapping ``workbench.replay`` takes (``None``: the workbench's own wording throughout)."""
        return dict(self.texts) or None

    def source_of(self, key: str) -> str:
        return "omp-package" if key in self.texts else "workbench"

    def describe(self) -> str:
        if not self.texts:
            return "reminder templates: the workbench's own wording (no oh-my-pi installation in use)"
        own = [k for k, _f in TEMPLATE_FILES if k not in self.texts]
        tail = f"; the workbench's own for {', '.join(own)}" if own else ""
        return f"reminder templates: oh-my-pi {self.version or '?'} files at {self.package}{tail}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "package": self.package,
            "version": self.version,
            "foundBy": self.found_by,
            "templates": {key: {"source": self.source_of(key), "file": self.files.get(key)} for key, _f in TEMPLATE_FILES},
            "notes": list(self.notes),
            "description": self.describe(),
        }


def templates_from(bundled: BundledSource | None) -> AgentTemplates:
    """The templates of the package ``bundled`` names (the fallback for the workbench's own files)."""
    if bundled is None or not bundled.from_omp or bundled.package is None:
        return AgentTemplates(kind="workbench", texts={}, files={})
    folder = Path(bundled.package).joinpath(*PROMPTS_SUBDIR)
    texts: dict[str, str] = {}
    files: dict[str, str] = {}
    notes: list[str] = []
    for key, name in TEMPLATE_FILES:
        path = folder / name
        try:
            texts[key] = path.read_text(encoding="utf-8")
            files[key] = str(path)
        except (OSError, UnicodeDecodeError):
            notes.append(f"{path}: not readable; the workbench's own {key} template is used")
    return AgentTemplates(kind="omp-package" if texts else "workbench", texts=texts, files=files,
                          package=bundled.package, version=bundled.version, found_by=bundled.found_by,
                          notes=tuple(notes))


def find_agent_templates(
    *, omp_package: str | os.PathLike[str] | None, env: Mapping[str, str], home: Path,
    bundled: BundledSource | None = None,
) -> AgentTemplates:
    """The templates in use: those of ``bundled`` when given, else of the package found by the same
    lookup as the bundled rule files."""
    if bundled is None:
        bundled = find_bundled_source(omp_package=omp_package, env=env, home=home)
    return templates_from(bundled)
