"""A big file's first pass kept between opens (``PassCache``): the same session as a fresh parse,
without the pass made again, and never a session built from a pass of other bytes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import workbench.sessions.loader as loader
from tests.sessions.test_records_left_in_file import WITH_RESULTS, _assert_same_session, _left
from workbench.sessions import FirstPass, PassCache, parse_session_file
from workbench.sessions import first_pass as first_pass_mod
from workbench.sessions.records import skim_tool_result


def _open(path: Path, passes: PassCache | None, leave_from: int | None = 0):
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        return parse_session_file(fh, st.st_size, path=str(path), strict=False, stamp=(st.st_size, st.st_mtime_ns),
                                  leave_from=leave_from, passes=passes)


SETTLED = first_pass_mod.SETTLED_SECONDS


@pytest.fixture(autouse=True)
def _settled_at_once(monkeypatch):
    """The files here were just written: their passes are kept all the same (but in the test below)."""
    monkeypatch.setattr(first_pass_mod, "SETTLED_SECONDS", 0.0)


@pytest.fixture
def skims(monkeypatch):
    """The lines the loader skims, counted (the first pass skims every long line in a window)."""
    seen: list[int] = []

    def counted(line):
        seen.append(len(line))
        return skim_tool_result(line)

    monkeypatch.setattr(loader, "skim_tool_result", counted)
    return seen


@pytest.mark.parametrize("path", WITH_RESULTS, ids=lambda p: p.name)
@pytest.mark.parametrize("window", [300, 1 << 26])
def test_a_reopened_file_gives_the_same_session_from_its_kept_pass(path, window, tmp_path, monkeypatch, skims):
    monkeypatch.setattr(loader, "WINDOW_BYTES", window)
    passes = PassCache(tmp_path / "passes")
    full = _open(path, None, leave_from=None)
    first = _open(path, passes)
    made = len(skims)
    assert list((tmp_path / "passes").glob("*.pass")), "no pass was kept"
    skims.clear()
    again = _open(path, passes)
    if full.original_version >= 3:
        assert _left(again), "no tool result was left in the file: nothing compared"
    _assert_same_session(first, full)
    _assert_same_session(again, full)
    assert again.line_offsets == first.line_offsets
    # every line lies in the one window: the parse itself skims only the empty line after the last
    # newline, which the pass never sees end; with short windows it skims the lines that span two
    if window == 1 << 26:
        assert made > 1 and skims == [0], "the reopen made the first pass again"
    else:
        assert len(skims) < made


def _big_copy(tmp_path: Path) -> Path:
    source = next(p for p in WITH_RESULTS if b'"version":3' in p.read_bytes() or b'"version": 3' in p.read_bytes())
    target = tmp_path / "s.jsonl"
    target.write_bytes(source.read_bytes())
    return target


def test_a_file_written_since_its_pass_was_kept_is_read_afresh(tmp_path, skims):
    path = _big_copy(tmp_path)
    passes = PassCache(tmp_path / "passes")
    _open(path, passes)
    # written again with its size and modification time kept: only the change time says so (that the
    # bytes written are the same is not something a stat can tell)
    st, data = path.stat(), path.read_bytes()
    while path.stat().st_ctime_ns == st.st_ctime_ns:  # until the file system's clock has moved on
        path.write_bytes(data)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    skims.clear()
    again = _open(path, passes)
    assert skims, "a pass kept for the file before it was written was used"
    _assert_same_session(again, _open(path, None, leave_from=None))
    with path.open("ab") as fh:  # grown: another size
        fh.write(b'{"type":"label","id":"zz","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}\n')
    skims.clear()
    grown = _open(path, passes)
    assert skims and len(grown.entries) == len(again.entries) + 1


@pytest.mark.parametrize("damage", ["cut", "garbage", "empty", "other key"])
def test_a_kept_pass_that_does_not_read_back_whole_is_ignored_and_replaced(damage, tmp_path, skims):
    path = _big_copy(tmp_path)
    passes = PassCache(tmp_path / "passes")
    _open(path, passes)
    (kept,) = (tmp_path / "passes").glob("*.pass")
    whole = kept.read_bytes()
    if damage == "cut":
        kept.write_bytes(whole[:-7])
    elif damage == "garbage":
        kept.write_bytes(whole[:60] + b"\x00" * (len(whole) - 60))
    elif damage == "empty":
        kept.write_bytes(b"")
    else:  # a pass saved under another name (renamed by hand)
        lines = whole.split(b"\n", 2)
        kept.write_bytes(lines[0] + b"\n" + b"0" * len(lines[1]) + b"\n" + lines[2])
    skims.clear()
    again = _open(path, passes)
    assert skims, "a damaged pass was used"
    _assert_same_session(again, _open(path, None, leave_from=None))
    assert kept.read_bytes() == whole  # made again and kept whole


def test_the_cache_round_trips_a_pass_and_keeps_the_most_recently_used(tmp_path):
    passes = PassCache(tmp_path / "passes", keep=3)
    from array import array
    found = FirstPass(array("q", [3, 10, 40, 41]), {0: {"type": "message", "n": 1, "message": {"role": "toolResult",
                                                                                                  "ok": True, "x": None}},
                                                     1: None}, b"\n")
    for key in ("a", "b", "c"):
        assert passes.save(key, found)
    assert passes.load("a") == found  # used: now the newest
    os.utime(tmp_path / "passes" / "b.pass", ns=(1, 1))
    os.utime(tmp_path / "passes" / "c.pass", ns=(2, 2))
    assert passes.save("d", found)
    assert sorted(p.stem for p in (tmp_path / "passes").glob("*.pass")) == ["a", "c", "d"]
    assert passes.load("b") is None
    assert stat.S_IMODE((tmp_path / "passes").stat().st_mode) == 0o700


def test_an_unwritable_cache_never_fails_a_load(tmp_path):
    path = _big_copy(tmp_path)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache's folder would be")
    session = _open(path, PassCache(blocked / "passes"))
    _assert_same_session(session, _open(path, None, leave_from=None))
    assert blocked.read_text() == "a file where the cache's folder would be"


def test_the_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(first_pass_mod.ENV, "off")
    assert PassCache.default() is None
    monkeypatch.setenv(first_pass_mod.ENV, str(tmp_path / "mine"))
    assert PassCache.default().folder == tmp_path / "mine"
    monkeypatch.delenv(first_pass_mod.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert PassCache.default().folder == tmp_path / "xdg" / "ttsr-workbench" / "first-pass"


def test_the_session_file_is_only_read(tmp_path):
    path = _big_copy(tmp_path)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    passes = PassCache(tmp_path / "passes")
    _open(path, passes)
    _open(path, passes)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["passes", "s.jsonl"]


def test_a_pass_over_a_file_still_being_written_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(first_pass_mod, "SETTLED_SECONDS", SETTLED)
    path = _big_copy(tmp_path)  # just written, as a session an agent is appending to
    passes = PassCache(tmp_path / "passes")
    _open(path, passes)
    assert not list((tmp_path / "passes").glob("*.pass"))
    with path.open("ab") as fh:  # a line being written: only the whole lines before it are read
        fh.write(b'{"type":"label",')
    written = path.stat().st_mtime - 2 * first_pass_mod.SETTLED_SECONDS
    os.utime(path, (written, written))
    with path.open("rb") as fh:
        size = path.stat().st_size
        whole = loader.whole_lines_end(fh, size)
        parse_session_file(fh, whole, path=str(path), strict=False, leave_from=0, passes=passes)
    assert not list((tmp_path / "passes").glob("*.pass"))  # a file with a partial line is being written
    with path.open("r+b") as fh:
        fh.truncate(whole)
    os.utime(path, (written, written))
    _open(path, passes)  # whole, and not written to for a while
    assert len(list((tmp_path / "passes").glob("*.pass"))) == 1
