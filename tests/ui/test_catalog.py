"""The catalog over the store: no second road, and a store that cannot be used says so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbench.ui.catalog as catalog_mod
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


def test_summaries_are_kept_until_an_ingest_changes_the_store(tmp_path, monkeypatch):
    folder = tmp_path / "served"
    folder.mkdir()
    shutil.copy(SAMPLES / "legacy-v1.jsonl", folder / "a.jsonl")
    catalog = Catalog(ServedRoots.of([folder]))
    catalog.add([folder])
    first = catalog.summaries()
    asked = []
    sessions = catalog.store.sessions
    monkeypatch.setattr(catalog.store, "sessions", lambda: (asked.append(1), sessions())[1])
    assert catalog.summaries() == first and asked == []  # the store did not change: not asked again
    shutil.copy(SAMPLES / "legacy-v1.jsonl", folder / "b.jsonl")
    catalog.refresh(folder / "b.jsonl")
    assert sorted(s.path for s in catalog.summaries()) == ["a.jsonl", "b.jsonl"] and asked == [1]
    catalog.summaries().clear()  # a caller's list is its own
    assert len(catalog.summaries()) == 2


# -- files that fail outright and files with notices: listed, not left out -----------------------------
FIXTURES = Path(__file__).with_name("fixtures")
HEADER = '{"type":"session","version":%s,"id":"s-%s","timestamp":"2026-01-0%sT00:00:00Z","cwd":"/w"}\n'


def _hostile(folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(FIXTURES / "branched.jsonl", folder / "branched.jsonl")
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "headless.jsonl").write_text('{"type":"message","id":"a","message":{"role":"user"}}\n')
    (folder / "binary.jsonl").write_bytes(b"\x00\x01\x02\xff\xfe binary, not a session\n")
    (folder / "future.jsonl").write_text(
        HEADER % (7, "f", 2)
        + '{"type":"<b>odd</b>","id":"e1","parentId":null,"timestamp":"2026-01-02T00:00:01Z"}\n'
        + '{"type":"<b>odd</b>","id":"e2","parentId":"e1","timestamp":"2026-01-02T00:00:02Z"}\n'
        + '{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-02T00:00:03Z","message":"plain"}\n')
    return folder


@pytest.mark.parametrize("fast", [True, False])
def test_files_that_fail_outright_keep_a_row_with_their_reason(tmp_path, fast):
    folder = _hostile(tmp_path / "served")
    catalog = Catalog(ServedRoots.of([folder]))
    catalog.store.ingest([str(folder)], _fast=fast)
    failed = {f.path: f for f in catalog.failed()}
    assert sorted(failed) == ["binary.jsonl", "empty.jsonl", "headless.jsonl"]
    assert failed["headless.jsonl"].reason == "headless.jsonl:1: not a session: the first record is not a session header"
    assert failed["empty.jsonl"].reason.startswith("empty.jsonl: not a session")
    rows = catalog.frame()
    # the file first (titles repeat across an archive), the reasons last
    assert list(rows.columns)[0] == "path" and list(rows.columns)[-2:] == ["status", "notices"]
    # the failed files come first, so a short page shows them; the sessions that loaded follow
    assert list(rows["path"][:3]) == ["binary.jsonl", "empty.jsonl", "headless.jsonl"]
    assert set(rows["path"][3:]) == {"branched.jsonl", "future.jsonl"}
    status = dict(zip(rows["path"], rows["status"]))
    assert status["headless.jsonl"] == "not loaded: line 1: not a session: the first record is not a session header"
    assert status["empty.jsonl"] == "not loaded: not a session: no JSON records"
    assert status["branched.jsonl"] == "loaded" and status["future.jsonl"] == "loaded"
    assert catalog.problem("binary.jsonl") == failed["binary.jsonl"].reason
    assert catalog.problem("branched.jsonl") is None
    # summaries() stays the sessions that loaded (default session, backtest inputs)
    assert {s.path for s in catalog.summaries()} == {"branched.jsonl", "future.jsonl"}


@pytest.mark.parametrize("fast", [True, False])
def test_unknown_types_newer_versions_and_string_messages_are_flagged(tmp_path, fast):
    from workbench.sessions import load_session

    folder = _hostile(tmp_path / "served")
    catalog = Catalog(ServedRoots.of([folder]))
    catalog.store.ingest([str(folder)], _fast=fast)
    notices = catalog.notices()
    assert set(notices) == {"future.jsonl"}
    found = [(n.line, n.kind) for n in notices["future.jsonl"]]
    assert found == [(None, "newer-version"), (2, "unknown-type"), (4, "message-not-object")]
    # the same kinds and lines as the parser's own notices (the fast road never runs the parser)
    parsed = load_session(folder / "future.jsonl")
    assert sorted((d.line, d.kind) for d in parsed.diagnostics if d.is_notice and d.kind != "newer-version") \
        == [(2, "unknown-type"), (4, "message-not-object")]
    assert "newer-version" in {d.kind for d in parsed.diagnostics}
    texts = [str(n) for n in notices["future.jsonl"]]
    assert "version 7 is newer than 3" in texts[0]
    assert "'<b>odd</b>'" in texts[1] and "(2 entries)" in texts[1]
    assert "the message is a string" in texts[2]
    cell = dict(zip(catalog.frame()["path"], catalog.frame()["notices"]))
    assert cell["future.jsonl"].startswith("3 notices: header: newer-version") and cell["future.jsonl"].endswith("(+2 more)")
    assert cell["branched.jsonl"] == ""


def test_a_failed_file_that_is_fixed_loads_and_leaves_the_failed_list(tmp_path):
    folder = _hostile(tmp_path / "served")
    catalog = Catalog(ServedRoots.of([folder]))
    catalog.add([folder])
    (folder / "empty.jsonl").write_text(HEADER % (3, "e", 3))
    catalog.refresh(folder / "empty.jsonl")
    assert "empty.jsonl" not in {f.path for f in catalog.failed()}
    assert "empty.jsonl" in {s.path for s in catalog.summaries()}


def test_an_unreadable_file_is_listed_not_a_crash(tmp_path):
    folder = _hostile(tmp_path / "served")
    (folder / "gone.jsonl").symlink_to(folder / "missing-target.jsonl")  # a dangling link under the root
    catalog = Catalog(ServedRoots.of([folder]))
    catalog.add([folder])
    failed = {f.path: f for f in catalog.failed()}
    assert failed["missing-target.jsonl"].kind == "unreadable"
    assert "No such file" in failed["missing-target.jsonl"].reason


def test_the_served_catalogs_store_gives_freed_memory_back_at_once(monkeypatch):
    """The server parses big files beside its store for as long as it runs (docs/large-sessions.md,
    "DuckDB's freed memory")."""
    import workbench.ui.catalog as catalog_module

    made: list[dict] = []
    real = catalog_module.Store
    monkeypatch.setattr(catalog_module, "Store", lambda *a, **k: made.append(k) or real(*a, **k))
    Catalog(ServedRoots.of([SAMPLES]))
    assert made == [{"give_back_memory": True}]


def test_the_big_sessions_taken_in_get_their_first_passes_made_ahead(tmp_path, monkeypatch):
    asked: list[list[Path]] = []
    monkeypatch.setattr(catalog_mod, "start_pass_keeper", lambda files: asked.append(list(files)))
    shutil.copytree(SAMPLES, tmp_path / "s")
    catalog = Catalog(ServedRoots.of([tmp_path]))
    catalog.add([tmp_path / "s"])
    # every session file the add took in is offered (the ingest's own list, not a second walk); the
    # keeper picks the big ones (tests/sessions)
    assert asked == [[p.resolve() for p in session_files([tmp_path / "s"])]] and asked[0]
