"""Large files: lines decoded one at a time (``ByteLines``), records read back by their byte offset.

The line-by-line road (taken from ``LINE_BY_LINE_BYTES`` on, and for a file with a long digit run) must give the very session the whole-file
decode gives, bad lines and their diagnostics included; ``read_record`` gives each entry's record as
its line holds it, and refuses a file that changed on disk since it was read.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import threading
from pathlib import Path

import pytest

import workbench.sessions.loader as loader
from workbench.errors import SessionFileError
from workbench.sessions import (
    load_session,
    parse_session_bytes,
    parse_session_file,
    parse_session_text,
    read_record,
    whole_lines_end,
)
from workbench.sessions.synthetic import generate_session_text

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"

ODD = (
    "\ufeff" + json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}) + "\n"
    "\n"
    '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"h\u00e9"}}\n'
    "not json\n"
    '{"type":"label","id":"b","parentId":"a","targetId":"a","label":"x"}{"type":"label","id":"c"}\n'
    '   \n'
    '{"type":"message","id":"d","parentId":"a","message":{"role":"user","content":"caf\u00e9 \u2028 z"}}\n'
    '{"type":"message","id":"e","parentId":"d","message":{"role":"user","content":"cut'
)


def _same(a, b) -> None:
    assert a == b  # header, entries (raw records, lines, indices), diagnostics, not-loaded objects
    assert [e.raw for e in a.entries] == [e.raw for e in b.entries]
    assert a.diagnostics == b.diagnostics


def _both(data: bytes, monkeypatch, path: str = "<memory>"):
    """The whole-file decode and the line-by-line road, after checking that the open file's road
    (``FileLines``, read a window at a time) gives the line-by-line session, offsets included, with
    windows shorter than a line, longer than some and as long as the file."""
    # (the whole-file road itself: ``parse_session_bytes`` takes the other for a long digit run)
    whole = loader._parse_whole_file(data, loader._line_loader(data), path=path, strict=False)
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    by_line = parse_session_bytes(data, path=path, strict=False)
    for window in (1, 13, 4096, len(data) + 1):
        monkeypatch.setattr(loader, "WINDOW_BYTES", window)
        by_file = parse_session_file(io.BytesIO(data + b"appended later, not read"), len(data), path=path, strict=False)
        _same(by_line, by_file)
        assert by_file.line_offsets == by_line.line_offsets
    monkeypatch.undo()
    return whole, by_line


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.jsonl")))
def test_line_by_line_parse_equals_the_whole_file_decode_on_the_samples(name, monkeypatch):
    _same(*_both((SAMPLES / name).read_bytes(), monkeypatch, name))


@pytest.mark.parametrize("data", [
    ODD.encode("utf-8"),
    ODD.encode("utf-8").replace("h\u00e9".encode(), b"h\xff\xfe"),  # a line that is not UTF-8
    ODD.encode("utf-8") + b"\n",
    b"",
    b"\n\n",
    generate_session_text(300).encode(),
])
def test_line_by_line_parse_equals_the_whole_file_decode_on_odd_files(data, monkeypatch):
    _same(*_both(data, monkeypatch))


_HEAD = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"})


def _record(i: int, value: str) -> str:
    return f'{{"type":"custom","id":"c{i}","parentId":null,"customType":"x","data":{value}}}'


@pytest.mark.parametrize("values", [
    # an integer beyond 64 bits (orjson: a float), beside floats and in a line without any
    ["123456789012345678901234567890", "[1.5, 123456789012345678901234567890]", "0.25", "-18446744073709551616"],
    # a long digit run in a string, with and without a float on the line; 19 digits that fit 64 bits
    ['"1234567890123456789012345"', '["1234567890123456789012345", 2.5]', "1234567890123456789", "1e400"],
    ["18446744073709551615", "-9223372036854775808", "1E2", "-0.0", "[[[[0.1]]]]", '{"k": {"j": [3.0]}}'],
])
def test_line_by_line_values_equal_the_whole_file_decode_with_long_numbers(values, monkeypatch):
    """The line-by-line road scans a line for long digit runs only when its value holds a float
    (how orjson gives an integer beyond 64 bits): the same values as the whole file's one scan."""
    text = "\n".join([_HEAD] + [_record(i, v) for i, v in enumerate(values)]) + "\n"
    whole, by_line = _both(text.encode(), monkeypatch)
    _same(whole, by_line)
    for entry, value in zip(by_line.entries, values):
        if value != "1e400":
            assert repr(entry.raw["data"]) == repr(json.loads(value))  # exact integers, as json keeps them


def test_line_by_line_values_equal_the_whole_file_decode_on_tricky_lines(monkeypatch):
    from tests.sessions.test_loader_fastjson import TRICKY

    tricky = [t for t in TRICKY if len(t) < 2000]  # not 1,100 nested arrays: a RecursionError on both roads
    lines = [_HEAD] + [t if i % 2 else _record(i, t) for i, t in enumerate(tricky)]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    bad = [b'"\xed\xa0\x80"', b'"\xc0\x80"', b'"\xff"', b'"\xef\xbb\xbf"']  # not UTF-8 (surrogate, overlong, …)
    data += b"\n" + b"\n".join(_record(90 + i, "0").encode().replace(b"0}", v + b"}") for i, v in enumerate(bad))
    _same(*_both(data, monkeypatch))
    _same(*_both(data + b"\n", monkeypatch))


def test_an_invalid_line_is_reported_once(monkeypatch):
    data = ODD.encode("utf-8").replace("h\u00e9".encode(), b"h\xff\xfe")
    _, by_line = _both(data, monkeypatch)
    assert [d.kind for d in by_line.diagnostics].count("invalid-utf8") == 1


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("line_by_line", [False, True])
def test_read_record_gives_each_entry_its_line(tmp_path, monkeypatch, line_by_line):
    if line_by_line:
        monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    path = _write(tmp_path, ODD + "\n" + generate_session_text(50).split("\n", 1)[1])
    session = load_session(path, strict=False)
    assert len(session.entries) > 40
    for entry in session.entries:
        assert read_record(session, entry) == entry.raw
    with pytest.raises(SessionFileError):  # a session parsed from text has no file to read from
        read_record(parse_session_text(ODD), parse_session_text(ODD).entries[0])


def test_read_record_refuses_a_file_changed_since_it_was_read(tmp_path):
    path = _write(tmp_path, generate_session_text(20))
    before = path.read_bytes()
    session = load_session(path)
    entry = session.entries[5]
    assert read_record(session, entry)["id"] == entry.id
    with path.open("ab") as fh:  # an agent appends: other size
        fh.write(b'{"type":"label","id":"zz","parentId":null,"targetId":"x","label":"y"}\n')
    with pytest.raises(SessionFileError, match="changed on disk") as err:
        read_record(session, entry)
    assert str(path) in str(err.value)
    # same size, other bytes, the old modification time put back: the line no longer holds the entry
    path.write_bytes(before.replace(entry.id.encode(), b"x" * len(entry.id)))
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, session.file_stamp[1]))
    with pytest.raises(SessionFileError, match="open it again"):
        read_record(session, entry)
    # the file is never written by any of this
    reopened = load_session(path)
    assert read_record(reopened, reopened.entries[5])["id"] == "x" * len(entry.id)


class _Rewritten(io.BytesIO):
    """A file another program rewrites after its lines were first found: every read after ``after``
    reads see other bytes."""

    def __init__(self, data: bytes, other: bytes, after: int) -> None:
        super().__init__(data)
        self._other, self._after = other, after

    def readinto(self, buffer) -> int:  # type: ignore[override]
        self._after -= 1
        if self._after < 0 and self._other is not None:
            self.getbuffer()[:] = self._other
            self._other = None
        return super().readinto(buffer)


def test_a_file_rewritten_while_it_is_read_window_by_window_is_refused(monkeypatch):
    data = generate_session_text(40).encode()
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    monkeypatch.setattr(loader, "WINDOW_BYTES", 1 << 10)
    scans = -(-len(data) // (1 << 10)) + 2  # the reads that find the lines: the head, each window, the last byte
    # the same size, the lines shifted by a byte (a record rewritten with one character more, one less later)
    other = data[:100] + b" " + data[100:-2] + b"\n"
    assert len(other) == len(data)
    with pytest.raises(SessionFileError, match="changed while it was read") as err:
        parse_session_file(_Rewritten(data, other, scans), len(data), path="s.jsonl")
    assert err.value.path == "s.jsonl" and err.value.line
    # shorter than when its lines were found
    with pytest.raises(SessionFileError, match="shorter"):
        parse_session_file(io.BytesIO(data[:-500]), len(data), path="s.jsonl")
    # unchanged, the same reads give the session
    assert parse_session_file(_Rewritten(data, data, scans), len(data), path="s.jsonl") == parse_session_bytes(data, path="s.jsonl")


@pytest.mark.parametrize(("data", "end"), [
    (b"", 0), (b"no newline", 0), (b"a\n", 2), (b"a\nb", 2), (b"a\nb\n\n", 5), (b"\n" + b"x" * 200_000, 1),
    (b"x" * 70_000 + b"\n" + b"y" * 300_000, 70_001),
])
def test_whole_lines_end_is_just_after_the_last_newline(data, end):
    assert whole_lines_end(io.BytesIO(data), len(data)) == end
    assert whole_lines_end(io.BytesIO(data + b"\nmore"), len(data)) == end  # only the first `size` bytes count


def test_a_session_read_from_a_pipe_is_read_whole(tmp_path, monkeypatch):
    """A pipe (``workbench tree <(…)``) has no size to read up to: it is read to its end, as before."""
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    text = generate_session_text(30)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    session = load_session(fifo)
    writer.join()
    assert session == dataclasses.replace(parse_session_text(text, path=str(fifo)), line_offsets=session.line_offsets)
    assert len(session.entries) > 20
