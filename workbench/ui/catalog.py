"""The sessions the app knows: summaries for the Sessions table, backed by the DuckDB store.

The store (``workbench.store.Store``) owns ingest and SQL; this class only asks it for rows and turns
them into the table the UI shows. When the store cannot be used (not importable, a locked file), the
catalog falls back to reading the session files directly, so the app still opens.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.sessions import load_session
from workbench.store import Store
from workbench.ui.roots import ServedRoots

log = logging.getLogger("workbench.ui")

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


def summarize_file(path: Path, shown: str) -> SessionSummary:
    """Counts for one session file, computed by loading it (the store-less path)."""
    session = load_session(path)
    children: dict[str | None, int] = {}
    labels: dict[str, str] = {}
    injections = 0
    for entry in session.entries:
        children[entry.parent_id] = children.get(entry.parent_id, 0) + 1
        if entry.type == "label" and entry.target_id:
            if entry.label:
                labels[entry.target_id] = entry.label
            else:
                labels.pop(entry.target_id, None)
        elif entry.type == "ttsr_injection":
            injections += 1
    branches = sum(1 for parent, n in children.items() if parent is not None and n > 1)
    name = session.title or session.name or _first_user_text(session) or path.stem
    return SessionSummary(
        name=name[:80],
        date=str(session.timestamp or "")[:19].replace("T", " "),
        entries=len(session.entries),
        branches=branches,
        labels=len(labels),
        injections=injections,
        errors=len(session.diagnostics),
        path=shown,
    )


def _first_user_text(session: Any) -> str:
    for entry in session.entries:
        if entry.role == "user":
            content = (entry.message or {}).get("content")
            if isinstance(content, str):
                return " ".join(content.split())
            if isinstance(content, list):
                text = "".join(b.get("text", "") for b in content if isinstance(b, Mapping) and b.get("type") == "text")
                return " ".join(text.split())
    return ""


class Catalog:
    """Session summaries for the served roots; shared by all browser sessions of one server."""

    def __init__(self, roots: ServedRoots, db: str | None = None) -> None:
        self.roots = roots
        self.db = db or ":memory:"
        self.store: Any = None
        self.store_error: str | None = None
        self._rows: dict[str, SessionSummary] = {}  # only used without a store
        try:
            self.store = Store(self.db)
        except WorkbenchError as exc:
            self.store_error = str(exc)
        except Exception as exc:  # a broken store must not stop the app from opening
            log.exception("store failed to open")
            self.store_error = f"store failed: {exc}"

    # -- loading -----------------------------------------------------------------------------------
    def add(self, paths: Iterable[Path], progress: Callable[[int, int, str], None] | None = None) -> list[str]:
        """Ingest session files (already checked against the roots); returns per-file error messages."""
        files: list[Path] = []
        for p in paths:
            files.extend(self.roots.session_files(p) if p.is_dir() else [p])
        errors: list[str] = []
        if self.store is not None:
            try:
                summary = self.store.ingest([str(f) for f in files], progress=progress)
                errors.extend(str(e) for e in summary.errors)
                return errors
            except WorkbenchError as exc:
                errors.append(str(exc))
            except Exception as exc:  # fall back to reading files directly
                log.exception("ingest failed")
                self.store_error = f"ingest failed ({exc}); reading files directly"
                self.store = None
        for i, f in enumerate(files, start=1):
            if progress:
                progress(i, len(files), f.name)
            shown = self.roots.display(f)
            try:
                self._rows[shown] = summarize_file(f, shown)
            except WorkbenchError as exc:
                errors.append(str(exc))
        return errors

    def refresh(self, path: Path) -> None:
        """Re-read one file after it changed (a label was written, an agent appended)."""
        if self.store is not None:
            try:
                self.store.ingest([str(path)])
                return
            except Exception as exc:
                log.info("re-ingest of %s failed: %s", path, exc)
        shown = self.roots.display(path)
        try:
            self._rows[shown] = summarize_file(path, shown)
        except WorkbenchError as exc:
            log.info("refresh of %s failed: %s", path, exc)

    # -- reading -----------------------------------------------------------------------------------
    def summaries(self) -> list[SessionSummary]:
        """Newest first."""
        if self.store is not None:
            try:
                rows = [self._from_store(r) for r in self.store.sessions()]
                return sorted(rows, key=lambda s: (s.date, s.path), reverse=True)
            except Exception as exc:
                log.info("store read failed: %s", exc)
        return sorted(self._rows.values(), key=lambda s: (s.date, s.path), reverse=True)

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
        if self.store is not None:
            try:
                return [self._hit(h) for h in self.store.search(query, limit=limit)]
            except Exception as exc:
                log.info("store search failed, scanning files: %s", exc)
        return self._scan(query, limit)

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

    def _scan(self, query: str, limit: int) -> list[dict[str, Any]]:
        needle = query.lower()
        hits: list[dict[str, Any]] = []
        for summary in self.summaries():
            try:
                session = load_session(self.roots.resolve(summary.path))
            except WorkbenchError:
                continue
            for entry in session.entries:
                text = _entry_text(entry.obj)
                if needle in text.lower():
                    hits.append({"session": summary.path, "id": entry.id, "type": entry.type, "text": text[:200]})
                    if len(hits) >= limit:
                        return hits
        return hits


def _entry_text(obj: Mapping[str, Any]) -> str:
    msg = obj.get("message")
    if isinstance(msg, Mapping):
        content = msg.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return " ".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
        return str(msg.get("command", ""))
    for key in ("summary", "label", "content"):
        if isinstance(obj.get(key), str):
            return obj[key]
    return ""
