"""One rule for which files are sessions (``workbench.sessions.session_files``), followed everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import NotFoundError
from workbench.sessions import is_session_name, session_files

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
SAMPLE_SESSIONS = ["big-refactor.jsonl", "broken-line.jsonl", "fix-auth.jsonl", "legacy-v1.jsonl",
                   "omp-title-slot.jsonl", "omp18-billing.jsonl", "omp18-subagent.jsonl", "ttsr-fired.jsonl"]


def test_names():
    assert is_session_name("a.jsonl")
    assert not is_session_name("a.stream.jsonl")
    assert not is_session_name("a.json")


def test_folders_give_sessions_not_streams_nor_hidden_or_vendored_folders(tmp_path):
    for name in ("b.jsonl", "a/c.jsonl", "a/s.stream.jsonl", ".omp/x.jsonl", "node_modules/y.jsonl",
                 "a/.git/z.jsonl", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}\n")
    found = session_files([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a/c.jsonl", "b.jsonl"]


def test_a_file_named_directly_is_always_taken_and_each_file_once(tmp_path):
    stream = tmp_path / "s.stream.jsonl"
    stream.write_text("{}\n")
    (tmp_path / "a.jsonl").write_text("{}\n")
    assert session_files([stream, tmp_path, tmp_path / "a.jsonl"]) == [stream, tmp_path / "a.jsonl"]


def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(NotFoundError, match="nope: no such file or directory"):
        session_files([tmp_path / "nope"])


def test_sample_sessions_are_the_eight_sessions():
    assert [p.name for p in session_files([SAMPLES])] == SAMPLE_SESSIONS


def test_ingest_backtest_and_the_app_find_the_same_sample_sessions():
    # Today's three roads all go through session_files; this pins it (they used to find 6, 9 and 6).
    # The store, the backtest and the UI sit above this package: imported for this test only.
    from workbench.backtest import run_backtest
    from workbench.store import Store
    from workbench.ui.roots import ServedRoots

    with Store() as store:
        summary = store.ingest([SAMPLES])
    assert summary.files == len(SAMPLE_SESSIONS)
    served = sorted(p.name for p in ServedRoots.of([SAMPLES]).session_files())
    assert served == SAMPLE_SESSIONS
    result = run_backtest(SAMPLES / "project", [SAMPLES], workers=1)
    assert sorted(Path(s.session).name for s in result.sessions) == SAMPLE_SESSIONS
