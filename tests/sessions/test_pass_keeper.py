"""The first passes of big served sessions, made ahead by a low-priority child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import workbench.sessions.loader as loader
from tests.sessions.test_records_left_in_file import WITH_RESULTS, _assert_same_session
from workbench.sessions import PassCache, parse_session_file, pass_keeper
from workbench.sessions.first_pass import ENV


def _settled(path: Path) -> Path:
    old = path.stat().st_mtime - 60  # written a minute ago
    os.utime(path, (old, old))
    return path


def _copy(tmp_path: Path, name: str, data: bytes) -> Path:
    target = tmp_path / name
    target.write_bytes(data)
    return _settled(target)


def test_the_newest_big_files_are_chosen(tmp_path):
    files = []
    for i, size in enumerate([10, 50, 40, 60]):
        f = tmp_path / f"s{i}.jsonl"
        f.write_bytes(b"x" * size)
        os.utime(f, ns=(i, i * 10**9))
        files.append(f)
    assert pass_keeper.big_files([*files, tmp_path / "gone.jsonl"], 40, most=2) == [files[3], files[2]]


def test_kept_passes_are_the_ones_an_open_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)  # every file is big here
    source = WITH_RESULTS[0]
    path = _copy(tmp_path, "s.jsonl", source.read_bytes())
    passes = PassCache(tmp_path / "passes")
    assert pass_keeper.keep_passes([path], passes) == 1
    assert pass_keeper.keep_passes([path], passes) == 1  # kept already: not made again
    assert len(list((tmp_path / "passes").glob("*.pass"))) == 1
    made = []
    real = loader._add_line_starts
    monkeypatch.setattr(loader, "_add_line_starts", lambda *a: (made.append(1), real(*a)))
    with path.open("rb") as fh:
        size = path.stat().st_size
        opened = parse_session_file(fh, size, path=str(path), strict=False, leave_from=loader.results_left_from(size),
                                    passes=passes)
    assert not made, "the open made the first pass again"
    with path.open("rb") as fh:
        fresh = parse_session_file(fh, size, path=str(path), strict=False)
    _assert_same_session(opened, fresh)


def test_a_file_being_written_or_small_gets_no_pass(tmp_path, monkeypatch):
    passes = PassCache(tmp_path / "passes")
    small = _copy(tmp_path, "small.jsonl", WITH_RESULTS[0].read_bytes())
    assert pass_keeper.keep_passes([small], passes) == 0  # under LINE_BY_LINE_BYTES: read whole, no pass
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    fresh = tmp_path / "fresh.jsonl"
    fresh.write_bytes(WITH_RESULTS[0].read_bytes())  # just written: an agent may still be appending
    assert pass_keeper.keep_passes([fresh], passes) == 0
    assert not (tmp_path / "passes").exists()


@pytest.mark.slow
def test_the_keeper_process_keeps_the_pass_of_a_big_file(tmp_path, monkeypatch):
    # a real big file (the threshold is the child's own): the samples' lines repeated past 32 MB
    lines = [line for line in WITH_RESULTS[0].read_bytes().splitlines(keepends=True) if line.strip()]
    header, body = lines[0], b"".join(lines[1:])
    path = tmp_path / "big.jsonl"
    with path.open("wb") as fh:
        fh.write(header)
        written = len(header)
        while written < loader.LINE_BY_LINE_BYTES:
            fh.write(body)
            written += len(body)
    _settled(path)
    monkeypatch.setenv(ENV, str(tmp_path / "passes"))
    child = pass_keeper.start([path, tmp_path / "missing.jsonl"])
    assert child is not None
    assert child.wait(timeout=120) == 0
    assert len(list((tmp_path / "passes").glob("*.pass"))) == 1
    monkeypatch.setenv(ENV, "off")
    assert pass_keeper.start([path]) is None
    assert subprocess.run([sys.executable, "-m", "workbench.sessions.pass_keeper"], check=False).returncode == 0
