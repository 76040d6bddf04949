"""The files ``workbench rules scan`` looks at, chosen as ``omp ttsr scan`` (oh-my-pi 18.3.4) chooses them.

The agent's scan globs ``**/*`` under the folder with its native walker: hidden files are included,
``.gitignore`` files are respected (unless ``--no-gitignore``) and nothing under ``.git/`` is read.
Files larger than the limit (5 MiB unless ``--max-bytes``; 0 turns it off) are skipped, as are files
whose first 8 KiB hold a NUL byte (binary). Text is decoded as UTF-8 with replacement characters,
as the agent's ``file.text()`` decodes it.

The native walker is not published, so the ``.gitignore`` semantics here are git's own, matched with
``pathspec``'s ``GitIgnoreSpec``: every ``.gitignore`` from the walk's root down to a file's folder
applies, a deeper file's patterns win over a shallower one's, the last matching line of a file wins,
``!`` re-includes, and an ignored folder is not entered (so nothing under it can be re-included).
``.git/info/exclude`` of the root applies as a root-level file. The user's global excludes file is
not read. See docs/rule-authoring.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from workbench.errors import NotFoundError

DEFAULT_MAX_BYTES = 5 * 1024 * 1024
BINARY_PROBE_BYTES = 8192
GIT_DIR = ".git"


@dataclass(frozen=True, slots=True)
class _IgnoreFile:
    base: Path  # the folder the patterns are relative to
    spec: pathspec.GitIgnoreSpec


def _read_ignore(path: Path, base: Path) -> _IgnoreFile | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _IgnoreFile(base, pathspec.GitIgnoreSpec.from_lines(lines)) if lines else None


def _ignored(stack: list[_IgnoreFile], path: Path, is_dir: bool) -> bool:
    """Whether ``path`` is ignored by the ignore files in ``stack`` (shallowest first)."""
    for ignore in reversed(stack):  # the deepest file that says anything decides
        rel = path.relative_to(ignore.base).as_posix() + ("/" if is_dir else "")
        verdict = ignore.spec.check_file(rel).include
        if verdict is not None:
            return bool(verdict)
    return False


def _root_stack(root: Path, folder: Path) -> list[_IgnoreFile]:
    """The ignore files that apply above ``folder``: ``root``'s exclude file and every ``.gitignore``
    from ``root`` down to ``folder``'s parent (``folder``'s own is read by the walk)."""
    stack: list[_IgnoreFile] = []
    exclude = _read_ignore(root / GIT_DIR / "info" / "exclude", root)
    if exclude is not None:
        stack.append(exclude)
    if folder == root or root not in folder.parents:
        return stack
    for step in [root, *reversed([p for p in folder.parents if root in p.parents])]:
        found = _read_ignore(step / ".gitignore", step)
        if found is not None:
            stack.append(found)
    return stack


def _walk_folder(folder: Path, root: Path, gitignore: bool) -> Iterator[Path]:
    top = folder if root != folder and root not in folder.parents else root
    stack = _root_stack(top, folder) if gitignore else []

    def visit(current: Path, stack: list[_IgnoreFile]) -> Iterator[Path]:
        if gitignore:
            own = _read_ignore(current / ".gitignore", current)
            stack = [*stack, own] if own is not None else stack
        try:
            children = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            return
        subfolders: list[Path] = []
        for child in children:
            path = Path(child.path)
            try:
                is_dir = child.is_dir(follow_symlinks=False)
                is_file = child.is_file()
            except OSError:
                continue
            if is_dir:
                if child.name == GIT_DIR or (gitignore and _ignored(stack, path, True)):
                    continue
                subfolders.append(path)
            elif is_file and not (gitignore and _ignored(stack, path, False)):
                yield path
        for sub in subfolders:
            yield from visit(sub, stack)

    yield from visit(folder, stack)


def scan_files(paths: Iterable[str], *, root: str | os.PathLike[str] | None = None,
               gitignore: bool = True) -> Iterator[Path]:
    """The files to scan: files named directly (always, even when ignored), and the files under
    named folders, walked from ``root`` (the project folder; the folder itself when outside it)."""
    base = Path(root if root is not None else os.getcwd()).resolve()
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            yield p
        elif p.is_dir():
            yield from _walk_folder(p.resolve(), base, gitignore)
        else:
            raise NotFoundError(f"{raw}: no such file or directory")


def read_scan_text(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[str | None, str | None]:
    """(text, None), or (None, why it is skipped): larger than ``max_bytes`` (0: no limit), binary
    (a NUL in the first 8 KiB) or unreadable."""
    try:
        size = path.stat().st_size
        if max_bytes > 0 and size > max_bytes:
            return None, f"large: {size} bytes, over the {max_bytes}-byte limit (--max-bytes)"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"unreadable: {exc.strerror}"
    if b"\0" in data[:BINARY_PROBE_BYTES]:
        return None, "binary"
    return data.decode("utf-8", errors="replace"), None
