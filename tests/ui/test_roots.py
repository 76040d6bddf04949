"""Served roots: only paths under the folders given to ``workbench serve`` are readable."""

from __future__ import annotations

import os

import pytest

from workbench.errors import AccessError, NotFoundError
from workbench.ui.roots import ServedRoots


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "s.jsonl").write_text("{}\n")
    (root / "a" / "x.stream.jsonl").write_text("{}\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "h.jsonl").write_text("{}\n")
    (tmp_path / "secret.jsonl").write_text("{}\n")
    return tmp_path


def test_relative_and_absolute_paths_inside_resolve(tree):
    roots = ServedRoots.of([tree / "root"])
    assert roots.resolve("a/s.jsonl") == (tree / "root" / "a" / "s.jsonl").resolve()
    assert roots.resolve(str(tree / "root" / "a" / "s.jsonl")).name == "s.jsonl"
    assert roots.display(roots.resolve("a/s.jsonl")) == os.path.join("a", "s.jsonl")


@pytest.mark.parametrize("raw", ["../secret.jsonl", "/etc/passwd", "a/../../secret.jsonl"])
def test_paths_outside_are_refused(tree, raw):
    roots = ServedRoots.of([tree / "root"])
    with pytest.raises(AccessError):
        roots.resolve(raw)


def test_symlink_pointing_outside_is_refused(tree):
    link = tree / "root" / "link.jsonl"
    link.symlink_to(tree / "secret.jsonl")
    with pytest.raises(AccessError):
        ServedRoots.of([tree / "root"]).resolve("link.jsonl")


def test_missing_file_inside_is_not_found(tree):
    with pytest.raises(NotFoundError):
        ServedRoots.of([tree / "root"]).resolve("a/nope.jsonl")


def test_listing_separates_sessions_and_streams_and_skips_hidden(tree):
    roots = ServedRoots.of([tree / "root"])
    assert [p.name for p in roots.session_files()] == ["s.jsonl"]
    assert [p.name for p in roots.stream_files()] == ["x.stream.jsonl"]


def test_a_root_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(NotFoundError):
        ServedRoots.of([tmp_path / "nope"])
