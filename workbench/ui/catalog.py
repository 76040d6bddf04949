"""The sessions the app knows: summaries for the Sessions table, backed by the DuckDB store.

The store (``workbench.store.Store``) owns ingest and SQL; this class only asks it for rows and turns
them into the table the UI shows. The store is a hard dependency: a store that cannot be opened stops
``workbench serve`` with its message, and a failure later reaches the user through the callers'
notifications (``workbench.ui.notify.reporting``) rather than a silent second road.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.sessions import Progress
from workbench.store import Store
from workbench.ui.roots import ServedRoots

COLUMNS = ("name", "date", "entries", "branches", "labels", "injections", "errors", "path")


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


class Catalog:
    """Session summaries for the served roots; shared by all browser sessions of one server."""

    def __init__(self, roots: ServedRoots, db: str | None = None) -> None:
        self.roots = roots
        self.db = db or ":memory:"
        self.store = Store(self.db)

    # -- loading -----------------------------------------------------------------------------------
    def add(self, paths: Iterable[Path], progress: Progress | None = None) -> list[str]:
        """Ingest session files (already checked against the roots); returns per-file problems."""
        files: list[Path] = []
        for p in paths:
            files.extend(self.roots.session_files(p) if p.is_dir() else [p])
        summary = self.store.ingest([str(f) for f in files], progress=progress)
        return [str(e) for e in summary.errors]

    def refresh(self, path: Path) -> None:
        """Re-read one file after it changed (a label was written, an agent appended)."""
        self.store.ingest([str(path)])

    # -- reading -----------------------------------------------------------------------------------
    def summaries(self) -> list[SessionSummary]:
        """Newest first."""
        rows = [self._from_store(r) for r in self.store.sessions()]
        return sorted(rows, key=lambda s: (s.date, s.path), reverse=True)

    def _from_store(self, row: Mapping[str, Any]) -> SessionSummary:
        path = Path(str(row.get("path", "")))
        shown = self.roots.display(path)
        return SessionSummary(
            name=str(row.get("title") or path.name.removesuffix(".jsonl"))[:80],
            date=str(row.get("created") or "")[:19].replace("T", " "),
            entries=int(row.get("entry_count") or 0),
            branches=int(row.get("branch_count") or 0),
            labels=int(row.get("label_count") or 0),
            injections=int(row.get("injection_count") or 0),
            errors=int(row.get("error_count") or 0),
            path=shown,
        )

    def frame(self):
        return pd.DataFrame([asdict(s) for s in self.summaries()], columns=list(COLUMNS))

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
