"""The sessions the app knows: summaries for the Sessions table, backed by the DuckDB store.

The store (``workbench.store.Store``) owns ingest and SQL; this class only asks it for rows and turns
them into the table the UI shows. A served file that failed outright (empty, no header, binary,
unreadable) keeps a row of its own with the reason, and a file that loaded with notices (unknown entry
types, a newer version, a message that is no object) says so in its row: every problem is shown where
it happened, nothing is left out of the list. The store is a hard dependency: a store that cannot be opened stops
``workbench serve`` with its message, and a failure later reaches the user through the callers'
notifications (``workbench.ui.notify.reporting``) rather than a silent second road.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.sessions import Progress, start_pass_keeper
from workbench.store import Store, session_usage
from workbench.ui.roots import ServedRoots

# the file first: with thousands of sessions, titles repeat ("Fix the failing build") and only the
# file, the project, the day and the model tell rows apart
COLUMNS = ("path", "name", "project", "date", "model", "cost", "entries", "branches", "labels", "injections",
           "errors", "status", "notices")
LOADED = "loaded"
_TITLE_CUT = 200  # the table wraps a long title; past this it is not a title any more


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of the Sessions table."""

    name: str
    date: str
    entries: int
    branches: int
    labels: int
    injections: int
    errors: int
    path: str  # as displayed / used in URLs (relative to its served root)
    project: str = ""  # the header's cwd
    model: str = ""  # the model of most assistant messages
    cost: float = 0.0  # the assistant messages' cost, every branch (as ``workbench usage --by`` counts)
    status: str = LOADED  # or "not loaded: [line <n>: ]<reason>"
    notices: str = ""  # the file's notices in one line ("" when none)


@dataclass(frozen=True, slots=True)
class FailedFile:
    """A served file that did not load at all; ``reason`` names the file, the line when known, and why."""

    path: str  # as displayed (relative to its served root)
    line: int | None
    kind: str
    message: str

    @property
    def reason(self) -> str:
        """``file[:line]: message``: what the notification says."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"

    @property
    def status(self) -> str:
        """The table's cell: its row already names the file, so only the line and the message."""
        return f"not loaded: {f'line {self.line}: ' if self.line else ''}{self.message}"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something unusual in a file that loaded (``workbench.errors.NOTICE_KINDS``): nothing was lost."""

    path: str
    line: int | None
    kind: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "header"
        return f"{where}: {self.kind}: {self.message}"


class Catalog:
    """Session summaries for the served roots; shared by all browser sessions of one server."""

    def __init__(self, roots: ServedRoots, db: str | None = None) -> None:
        self.roots = roots
        self.db = db or ":memory:"
        # the server parses big session files beside the store for as long as it runs
        self.store = Store(self.db, give_back_memory=True)
        self._summaries: tuple[int, tuple[SessionSummary, ...]] = (-1, ())  # (store revision, summaries)

    # -- loading -----------------------------------------------------------------------------------
    def add(self, paths: Iterable[Path], progress: Progress | None = None) -> list[str]:
        """Ingest session files (already checked against the roots); returns per-file problems."""
        # A folder goes to the store as a folder (its walk is the roots' rule for folders): listed one by
        # one, a dangling link in it would be a missing named file and stop the whole add; walked, it is
        # recorded as an unreadable file and listed with its reason.
        files = list(paths)
        summary = self.store.ingest([str(f) for f in files], progress=progress)
        # the first passes of the big session files just taken in, made ahead in a child process at
        # the lowest priority (docs/large-sessions.md)
        start_pass_keeper([Path(p) for p in summary.paths])
        return [str(e) for e in summary.errors]

    def refresh(self, path: Path) -> None:
        """Re-read one file after it changed (a label was written, an agent appended)."""
        self.store.ingest([str(path)])

    # -- reading -----------------------------------------------------------------------------------
    def summaries(self) -> list[SessionSummary]:
        """The sessions that loaded, newest first (``rows`` adds the files that did not).

        Kept until the store changes: every page asks for them (the session menu, the default
        session) and two queries cost it 10-30 ms on the 2-core machine.
        """
        revision, cached = self._summaries
        if revision != self.store.revision:
            revision = self.store.revision  # read first: an ingest that starts meanwhile bumps it again
            notices = self.notices()
            usage = session_usage(self.store)
            rows = [self._from_store(r, notices, usage.get(str(r.get("path")), {})) for r in self.store.sessions()]
            cached = tuple(sorted(rows, key=lambda s: (s.date, s.path), reverse=True))
            self._summaries = (revision, cached)
        return list(cached)

    def failed(self) -> list[FailedFile]:
        """Served files that did not load, by path."""
        return [FailedFile(self.roots.display(Path(str(r["path"]))), r.get("line"), str(r.get("kind") or ""),
                           str(r.get("message") or "")) for r in self.store.failed_files()]

    def notices(self) -> dict[str, list[Notice]]:
        """Notices of the loaded files, by displayed path, in line order."""
        out: dict[str, list[Notice]] = {}
        for r in self.store.notices():
            shown = self.roots.display(Path(str(r["path"])))
            out.setdefault(shown, []).append(Notice(shown, r.get("line"), str(r["kind"]), str(r["message"])))
        return out

    def rows(self) -> list[SessionSummary]:
        """The Sessions table: files that failed first (so they are seen), then the sessions, newest first."""
        failed = [SessionSummary(name=Path(f.path).name, date="", entries=0, branches=0, labels=0, injections=0,
                                 errors=1, path=f.path, status=f.status) for f in self.failed()]
        return failed + self.summaries()

    def problem(self, path: str) -> str | None:
        """Why the file shown as ``path`` did not load (``file[:line]: message``), or None when it loaded."""
        return next((f.reason for f in self.failed() if f.path == path), None)

    def _from_store(self, row: Mapping[str, Any], notices: Mapping[str, list[Notice]],
                    usage: Mapping[str, Any]) -> SessionSummary:
        path = Path(str(row.get("path", "")))
        shown = self.roots.display(path)
        found = notices.get(shown, [])
        return SessionSummary(
            name=str(row.get("title") or path.name.removesuffix(".jsonl"))[:_TITLE_CUT],
            date=str(row.get("created") or "")[:19].replace("T", " "),
            entries=int(row.get("entry_count") or 0),
            branches=int(row.get("branch_count") or 0),
            labels=int(row.get("label_count") or 0),
            injections=int(row.get("injection_count") or 0),
            errors=int(row.get("error_count") or 0),
            path=shown,
            project=str(row.get("cwd") or ""),
            model=str(usage.get("model") or ""),
            cost=float(usage.get("cost") or 0.0),
            notices=_notice_line(found),
        )

    def frame(self):
        return pd.DataFrame([asdict(s) for s in self.rows()], columns=list(COLUMNS))

    def totals(self) -> dict[str, Any]:
        """What the table's footer says: sessions loaded, files that did not load, the sessions' cost."""
        loaded = self.summaries()
        return {"sessions": len(loaded), "failed": len(self.failed()), "cost": sum(s.cost for s in loaded)}

    def search_count(self, query: str) -> tuple[int, int]:
        """How many entries match ``query`` across all sessions, and in how many files."""
        return self.store.search_count(query.strip()) if query.strip() else (0, 0)

    def title_of(self, shown: str) -> str:
        """The title the table shows for a session (``""`` for a file that is not in it)."""
        return next((s.name for s in self.summaries() if s.path == shown), "")

    def search(self, query: str, limit: int = 200) -> list[dict[str, Any]]:
        """Entries matching ``query`` across all sessions: dicts with session, id, type, text."""
        query = query.strip()
        if not query:
            return []
        return [self._hit(h) for h in self.store.search(query, limit=limit)]

    def _hit(self, hit: Any) -> dict[str, Any]:
        row = hit if isinstance(hit, Mapping) else getattr(hit, "_asdict", lambda: asdict(hit))()
        path = row.get("path") or row.get("session_path") or row.get("file") or row.get("session", "")
        try:
            shown = self.roots.display(Path(path).resolve()) if path else ""
        except OSError:
            shown = str(path)
        text = row.get("snippet") if row.get("snippet") is not None else row.get("text", "")
        return {"session": shown, "id": row.get("entry_id") or row.get("id", ""),
                "type": row.get("role") or row.get("type", ""), "text": " ".join(str(text).split())[:200]}


def _notice_line(notices: list[Notice]) -> str:
    """One table cell: the count and the first notice (the full list is shown on click)."""
    if not notices:
        return ""
    more = f" (+{len(notices) - 1} more)" if len(notices) > 1 else ""
    return f"{len(notices)} notice{'s' if len(notices) > 1 else ''}: {notices[0]}{more}"
