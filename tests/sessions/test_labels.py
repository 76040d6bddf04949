from __future__ import annotations

import json
import shutil

import pytest

from workbench.errors import NotFoundError, SessionFileError
from workbench.sessions import SessionTree, load_session
from workbench.sessions.labels import append_label


@pytest.fixture
def session_file(fixture_path, tmp_path):
    path = tmp_path / "s.jsonl"
    shutil.copy(fixture_path("v3_branched_labels.jsonl"), path)
    return path


def test_append_label_only_appends_one_line(session_file):
    before = session_file.read_bytes()
    entry = append_label(session_file, "a2a", "  good  ")
    after = session_file.read_bytes()
    assert after.startswith(before)
    new_lines = after[len(before):].decode().splitlines()
    assert len(new_lines) == 1 and json.loads(new_lines[0]) == entry
    assert entry["label"] == "good" and entry["parentId"] == "l3" and entry["targetId"] == "a2a"
    reloaded = load_session(session_file)
    assert SessionTree(reloaded).labels["a2a"] == "good"
    assert reloaded.leaf_id == entry["id"]


def test_clearing_leaves_the_label_key_out(session_file):
    append_label(session_file, "u2a", "")
    last = json.loads(session_file.read_text().splitlines()[-1])
    assert "label" not in last
    assert "u2a" not in SessionTree(load_session(session_file)).labels


def test_partial_last_line_is_not_glued(session_file):
    with open(session_file, "ab") as fh:
        fh.write(b'{"type":"message","id":"half"')
    append_label(session_file, "u1", "x")
    lines = session_file.read_text().splitlines()
    assert lines[-2] == '{"type":"message","id":"half"'
    assert json.loads(lines[-1])["targetId"] == "u1"


def test_errors(session_file, fixture_path, tmp_path):
    with pytest.raises(NotFoundError, match="Entry nope not found"):
        append_label(session_file, "nope", "x")
    with pytest.raises(SessionFileError):
        append_label(tmp_path / "missing.jsonl", "u1", "x")
    v1 = tmp_path / "v1.jsonl"
    shutil.copy(fixture_path("v1_linear.jsonl"), v1)
    before = v1.read_bytes()
    target = load_session(v1).entries[0].id
    with pytest.raises(SessionFileError, match="version 1"):
        append_label(v1, target, "x")
    assert v1.read_bytes() == before


def test_concurrent_writers_each_chain_off_the_previous_label(session_file):
    # Under the lock every writer reads the leaf the previous one wrote: one chain, no two labels
    # with the same parent.
    import threading

    start = load_session(session_file).leaf_id
    barrier = threading.Barrier(6)

    def write(n: int) -> None:
        barrier.wait()
        for k in range(4):
            append_label(session_file, "a2a", f"t{n}-{k}")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    labels = [json.loads(line) for line in session_file.read_text().splitlines() if '"type":"label"' in line]
    written = [e for e in labels if e.get("label", "").startswith("t")]
    assert len(written) == 24
    parents = [e["parentId"] for e in written]
    assert parents == [start] + [e["id"] for e in written[:-1]]


def test_the_sessions_package_does_not_need_fcntl(session_file):
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['fcntl'] = None\n"  # as on a platform without it
        "from workbench.sessions import append_label\n"
        f"print(append_label({str(session_file)!r}, 'a2a', 'x')['label'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "x"
