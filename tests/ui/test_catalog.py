"""The catalog over the store: no second road, and a store that cannot be used says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import StoreError
from workbench.sessions import session_files
from workbench.ui.catalog import Catalog
from workbench.ui.roots import ServedRoots

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


def test_a_store_that_cannot_be_opened_is_an_error_not_a_fallback(tmp_path):
    with pytest.raises(StoreError, match="cannot open the database"):
        Catalog(ServedRoots.of([SAMPLES]), db=str(tmp_path))  # a folder is not a database file


def test_adding_reports_each_problem_with_file_and_line_and_search_uses_the_store():
    catalog = Catalog(ServedRoots.of([SAMPLES]))
    problems = catalog.add([SAMPLES])
    assert problems and all("broken-line.jsonl:" in p for p in problems)
    assert sorted(s.path for s in catalog.summaries()) == sorted(p.name for p in session_files([SAMPLES]))
    hits = catalog.search("unwrap")
    assert hits and {h["session"] for h in hits} <= {s.path for s in catalog.summaries()}


def test_a_failing_store_reaches_the_caller(monkeypatch):
    catalog = Catalog(ServedRoots.of([SAMPLES]))

    def broken(*args, **kwargs):
        raise StoreError("the store went away")

    monkeypatch.setattr(catalog.store, "search", broken)
    with pytest.raises(StoreError, match="went away"):
        catalog.search("unwrap")
