"""Subagents: the session files an omp 18 session started, and the way back from a child to its parent.

Where oh-my-pi 18.3.4 puts them (``src/task/executor.ts``, ``src/task/structured-subagent.ts``): a
session's artifacts folder is its file without ``.jsonl``; a subagent with id ``ID`` writes
``<artifacts>/ID.jsonl``, whose header's ``parentSession`` names the parent's file, and starts with a
``session_init`` entry (``agent``, ``task``, ``tools``). The task tool's result in the parent lists
the agents it ran (``details.results[]``: ``id``, ``agent``, ``description``), which is how an entry
of the parent names its children. A subagent's own subagents sit in its own artifacts folder.

Files are often moved or copied before a support engineer sees them (the ``parentSession`` path is then
another machine's), so a link holds when the header names the parent by its path, its file name or its
session id. Reading is header-only (``session_info``): finding the children of a file never loads them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.sessions.entries import Entry, Session
from workbench.sessions.files import STREAM_SUFFIX
from workbench.sessions.loader import session_info

__all__ = ["SubagentLink", "artifacts_folder", "child_links", "entry_links", "parent_file", "points_back", "subagent_files"]

SESSION_SUFFIX = ".jsonl"


@dataclass(frozen=True, slots=True)
class SubagentLink:
    """One subagent of a session: its id (the child file's stem), its agent, the parent's entry that
    names it (``None`` when it is only found on disk) and its file (``None`` when not on disk)."""

    agent_id: str
    path: Path | None
    agent: str | None = None
    entry_id: str | None = None
    description: str | None = None

    @property
    def found(self) -> bool:
        return self.path is not None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.agent_id, "path": str(self.path) if self.path else None, "agent": self.agent,
                "entryId": self.entry_id, "description": self.description}


def artifacts_folder(session_path: str | os.PathLike[str]) -> Path:
    """The folder the agent keeps a session's subagents in: its file without ``.jsonl``."""
    path = Path(session_path)
    return path.with_name(path.name[: -len(SESSION_SUFFIX)]) if path.name.endswith(SESSION_SUFFIX) else path.with_suffix("")


def _names_session(reference: str, path: Path, session_id: str | None) -> bool:
    """Whether a ``parentSession`` value names the session at ``path`` (by path, file name or id)."""
    if reference == session_id or reference == str(path):
        return True
    try:
        if Path(reference).resolve() == path.resolve():
            return True
    except (OSError, ValueError):
        pass
    return Path(reference).name == path.name and reference.endswith(SESSION_SUFFIX)


def points_back(child: str | os.PathLike[str], parent: Session) -> bool:
    """Whether the file ``child``'s header names ``parent`` as its ``parentSession``."""
    try:
        back = session_info(child).parent_session
    except WorkbenchError:
        return False
    return back is not None and _names_session(back, Path(parent.path), parent.id)


def _results(entry: Any) -> list[Mapping[str, Any]]:
    msg = entry.head.get("message") if entry.type == "message" else None  # details are in the head
    if not isinstance(msg, Mapping) or msg.get("role") != "toolResult":
        return []
    details = msg.get("details")
    results = details.get("results") if isinstance(details, Mapping) else None
    return [r for r in results if isinstance(r, Mapping)] if isinstance(results, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def entry_links(session: Session, entry: Any, *, taken: set[Path] | None = None) -> tuple[SubagentLink, ...]:
    """The subagents one entry of ``session`` names (a task tool's result), found on disk or not; reads
    only this entry and the named files' headers (the Entry view asks per selection)."""
    results = _results(entry)
    if not results:  # most entries: no paths worked out (a branch of 100,000 entries asks for each)
        return ()
    parent = Path(session.path)
    folder = artifacts_folder(parent)
    taken = taken if taken is not None else {parent.resolve()}
    links: list[SubagentLink] = []
    named: set[str] = set()
    for result in results:
        agent_id = _text(result.get("id"))
        given = _text(result.get("sessionFile"))
        if agent_id is None and given is None:
            continue
        candidates = [Path(given) if Path(given).is_absolute() else parent.parent / given] if given else []
        if agent_id is not None:
            candidates.append(folder / f"{agent_id}{SESSION_SUFFIX}")
        path = next((c for c in candidates if c.is_file() and c.resolve() not in taken and points_back(c, session)), None)
        if path is not None:
            taken.add(path.resolve())
        key = agent_id or Path(str(given)).stem
        if key in named:
            continue  # the same agent listed twice in one result: one link
        named.add(key)
        links.append(SubagentLink(key, path, _text(result.get("agent")), entry.id, _text(result.get("description"))))
    return tuple(links)


def child_links(session: Session, entries: Iterable[Entry] | None = None) -> tuple[SubagentLink, ...]:
    """Every subagent of ``session``: those its task results name (in entry order, found on disk or not),
    then the files in its artifacts folder that point back to it and no result names. ``entries``: only
    the results among these (one branch), and no folder scan (which needs every result to say which
    files none names)."""
    parent = Path(session.path)
    folder = artifacts_folder(parent)
    links: list[SubagentLink] = []
    taken: set[Path] = {parent.resolve()}
    seen: set[str] = set()
    for entry in session.entries if entries is None else entries:
        if entry.type != "message":
            continue
        for link in entry_links(session, entry, taken=taken):
            if link.path is None and link.agent_id in seen:
                continue  # named again by a later result (a resumed agent): one link
            seen.add(link.agent_id)
            links.append(link)
    if entries is None and folder.is_dir():
        for file in sorted(folder.glob(f"*{SESSION_SUFFIX}")):
            if file.name.endswith(STREAM_SUFFIX) or file.resolve() in taken or not points_back(file, session):
                continue
            taken.add(file.resolve())
            links.append(SubagentLink(file.name[: -len(SESSION_SUFFIX)], file))
    return tuple(links)


def subagent_files(session: Session) -> list[Path]:
    """The session files of the subagents ``session`` started that are on disk (see ``child_links``)."""
    return [link.path for link in child_links(session) if link.path is not None]


def parent_file(session: Session) -> Path | None:
    """The file of the session that started ``session`` (its header's ``parentSession``), where it is on
    disk: the path it names, else the agent's layout (``<dir>/<stem>.jsonl`` for ``<dir>/<stem>/ID.jsonl``)
    when that file is the one named. ``None`` for a session no agent started, or a parent not found."""
    back = session.header.get("parentSession") if isinstance(session.header, Mapping) else None
    if not isinstance(back, str) or not back:
        return None
    child = Path(session.path)
    named = Path(back)
    candidates = [named if named.is_absolute() else child.parent / named]
    folder = child.parent
    candidates.append(folder.with_name(folder.name + SESSION_SUFFIX))
    for candidate in candidates:
        if not candidate.is_file() or candidate.resolve() == child.resolve():
            continue
        try:
            info = session_info(candidate)
        except WorkbenchError:
            continue
        if _names_session(back, candidate, info.id):
            return candidate
    return None
