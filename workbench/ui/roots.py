"""The served roots: the only folders whose files the app may read.

A browser user can type any path into the "add path" box or a deep link; the server must not become a
file browser for the whole machine. Every path the UI opens goes through ``ServedRoots.resolve``,
which resolves symlinks first (so ``root/link -> /etc`` is refused) and then checks containment.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import AccessError, NotFoundError
from workbench.sessions import STREAM_SUFFIX, is_session_name, session_files


@dataclass(frozen=True, slots=True)
class ServedRoots:
    """Resolved root folders (or single files) given to ``workbench serve``."""

    roots: tuple[Path, ...]

    @classmethod
    def of(cls, paths: Iterable[str | os.PathLike[str]]) -> ServedRoots:
        resolved: list[Path] = []
        for p in paths:
            path = Path(p).expanduser().resolve()
            if not path.exists():
                raise NotFoundError(f"{p}: no such file or folder to serve")
            if path not in resolved:
                resolved.append(path)
        return cls(tuple(resolved))

    def contains(self, path: Path) -> bool:
        for root in self.roots:
            if path == root or (root.is_dir() and path.is_relative_to(root)):
                return True
        return False

    def check_writable(self, path: str | os.PathLike[str]) -> None:
        """A browser may write only files under the served folders (never through a symlink out)."""
        if not self.contains(Path(path).resolve()):
            raise AccessError(f"{path}: outside the served folders; the app writes only files under them")

    def root_of(self, path: Path) -> Path | None:
        """The outermost served folder holding ``path`` (``None`` when no root does)."""
        holders = [r for r in self.roots if r.is_dir() and (path == r or path.is_relative_to(r))]
        return min(holders, key=lambda r: len(r.parts)) if holders else None

    def resolve(self, raw: str | os.PathLike[str]) -> Path:
        """An absolute, symlink-free path under a root; relative paths are taken from each root in turn."""
        text = os.fspath(raw).strip()
        if not text:
            raise AccessError("empty path")
        candidate = Path(text).expanduser()
        options = [candidate] if candidate.is_absolute() else [
            (root if root.is_dir() else root.parent) / candidate for root in self.roots
        ]
        inside, escaped = [], False
        for option in options:
            real = option.resolve()
            if self.contains(real):
                inside.append(real)
            elif option.is_symlink() or option.exists():
                escaped = True  # it exists, but its real path (a symlink's target) is outside
        for real in inside:
            if real.exists():
                return real
        if escaped or not inside:
            raise AccessError(f"{text}: outside the served folders")
        raise NotFoundError(f"{text}: no such file under the served folders")

    def display(self, path: Path) -> str:
        """A short name for a path: relative to its root when possible (what the URL carries)."""
        for root in self.roots:
            base = root if root.is_dir() else root.parent
            if path.is_relative_to(base):
                # relative to its root, without the root's name: ``resolve`` tries each root in turn
                return str(path.relative_to(base))
        return str(path)

    def session_files(self, under: Path | None = None) -> Iterator[Path]:
        """Session files under the roots (``workbench.sessions.session_files``' rule); a root that is a
        single file counts only when it is named like a session."""
        for base in [under] if under is not None else list(self.roots):
            if base.is_dir():
                yield from session_files([base])
            elif is_session_name(base.name):
                yield base

    def stream_files(self) -> Iterator[Path]:
        yield from self._files(None, lambda n: n.endswith(STREAM_SUFFIX))

    def rule_dirs(self) -> Iterator[Path]:
        """Folders that look like a project with rules (``.omp/rules`` or ``.xcsh/rules`` or ``rules/``)."""
        seen: set[Path] = set()
        for root in self.roots:
            if not root.is_dir():
                continue
            for dirpath, dirnames, _ in os.walk(root):
                here = Path(dirpath)
                if any(part in {"node_modules", ".git"} for part in here.parts):
                    dirnames[:] = []
                    continue
                for marker in (".omp", ".xcsh"):
                    if (here / marker / "rules").is_dir() and here not in seen:
                        seen.add(here)
                        yield here
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))

    def _files(self, under: Path | None, keep) -> Iterator[Path]:
        bases = [under] if under is not None else list(self.roots)
        for base in bases:
            if base.is_file():
                if keep(base.name):
                    yield base
                continue
            found: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
                found.extend(Path(dirpath) / f for f in filenames if keep(f))
            # a symlink whose target is outside the roots is not served (nor listed under its target's path)
            yield from sorted(f for f in found if self.contains(f.resolve()))
