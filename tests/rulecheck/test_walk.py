"""``workbench.rulecheck.walk``: the file set of ``omp ttsr scan`` (.gitignore, hidden files, size limit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.rulecheck.walk import DEFAULT_MAX_BYTES, read_scan_text, scan_files


def _names(paths, root: Path) -> list[str]:
    return sorted(p.resolve().relative_to(root.resolve()).as_posix() for p in paths)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    files = {
        ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\n",
        "a.ts": "x", "debug.log": "x", "keep.log": "x", "top-only.txt": "x",
        "build/out.ts": "x",
        ".env": "SECRET=1",
        ".config/settings.ts": "x",
        "src/.gitignore": "generated.ts\n!debug.log\n",
        "src/generated.ts": "x", "src/debug.log": "x", "src/top-only.txt": "x", "src/main.ts": "x",
        "src/deep/generated.ts": "x",
        ".git/config": "x", ".git/info/exclude": "secret.ts\n", "secret.ts": "x",
        "node_modules/pkg/index.js": "x",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_gitignore_nested_files_negations_and_hidden_files(repo):
    assert _names(scan_files([str(repo)], root=repo), repo) == [
        ".config/settings.ts", ".env", ".gitignore", "a.ts", "keep.log", "node_modules/pkg/index.js",
        "src/.gitignore", "src/debug.log", "src/main.ts", "src/top-only.txt",
    ]


def test_a_subfolder_scan_still_obeys_the_gitignore_files_above_it(repo):
    (repo / "src/trace.log").write_text("x")
    assert _names(scan_files([str(repo / "src")], root=repo), repo) == [
        "src/.gitignore", "src/debug.log", "src/main.ts", "src/top-only.txt"]


def test_no_gitignore_includes_everything_but_the_git_folder(repo):
    names = _names(scan_files([str(repo)], root=repo, gitignore=False), repo)
    assert "build/out.ts" in names and "debug.log" in names and "secret.ts" in names
    assert "src/deep/generated.ts" in names
    assert not any(n.startswith(".git/") for n in names)


def test_an_ignored_folder_is_not_entered_so_a_negation_inside_cannot_reinclude(tmp_path):
    (tmp_path / ".gitignore").write_text("vendor/\n!vendor/keep.ts\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor/keep.ts").write_text("x")
    (tmp_path / "b.ts").write_text("x")
    assert _names(scan_files([str(tmp_path)], root=tmp_path), tmp_path) == [".gitignore", "b.ts"]


def test_a_file_named_directly_is_scanned_even_when_ignored(repo):
    assert _names(scan_files([str(repo / "debug.log")], root=repo), repo) == ["debug.log"]


def test_size_limit_binary_probe_and_replacement_decoding(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * (DEFAULT_MAX_BYTES + 1))
    text, why = read_scan_text(big)
    assert text is None and why is not None and why.startswith("large:") and "--max-bytes" in why
    assert read_scan_text(big, 0)[0] is not None  # 0 turns the limit off
    assert read_scan_text(big, DEFAULT_MAX_BYTES + 1)[1] is None
    late_nul = tmp_path / "late.txt"
    late_nul.write_bytes(b"a" * 9000 + b"\0")
    assert read_scan_text(late_nul)[1] is None  # only the first 8 KiB are probed
    (tmp_path / "bin").write_bytes(b"ab\0c")
    assert read_scan_text(tmp_path / "bin") == (None, "binary")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9")
    assert read_scan_text(tmp_path / "latin1.txt") == ("caf\ufffd", None)
