"""Node POSIX path semantics, JavaScript trim, path candidates and the argument scan (§8.2)."""

from __future__ import annotations

import pytest

from workbench.rules.jsstring import js_trim
from workbench.ttsr.matchers import tool_file_paths
from workbench.ttsr.paths import (
    argument_paths,
    extname,
    normalize,
    path_candidates,
    relative,
    resolve,
)

CWD = "/repo"


@pytest.mark.parametrize(
    ("path", "ext"),
    [
        (".bashrc", ""),
        ("a.", "."),
        ("..", ""),
        ("...", "."),
        ("a.b.c", ".c"),
        (".a.b", ".b"),
        ("..a", ".a"),
        ("/x/y.ts/", ".ts"),
        ("src/main.ts", ".ts"),
        ("dir.d/file", ""),
        ("", ""),
        ("/", ""),
    ],
)
def test_extname_follows_node(path, ext):
    assert extname(path) == ext


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("", "."),
        ("./", "./"),
        ("//a//b/../c/", "/a/c/"),
        ("../a/..", ".."),
        ("a/./b", "a/b"),
        ("/..", "/"),
    ],
)
def test_normalize_keeps_trailing_slash_and_collapses_leading_double_slash(path, expected):
    assert normalize(path) == expected


def test_resolve_stops_at_the_rightmost_absolute_segment():
    assert resolve("a", "/b", "c", cwd="/x") == "/b/c"
    assert resolve("a", "../../b", cwd="/x") == "/b"
    assert resolve("", cwd="/x/y/") == "/x/y"


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("/a/b", "/a/b/c", "c"),
        ("/a/b/c", "/a/d", "../../d"),
        ("/", "/a", "a"),
        ("/a", "/a/", ""),
        ("/a/bc", "/a/b", "../b"),
    ],
)
def test_relative(source, target, expected):
    assert relative(source, target, cwd="/") == expected


def test_js_trim_differs_from_python_strip_where_javascript_does():
    assert js_trim("\ufeff a \u3000") == "a"
    # \x1c-\x1f and \x85 are whitespace to Python only.
    assert js_trim("\x1ca\x85") == "\x1ca\x85"


@pytest.mark.parametrize(
    ("raw", "candidates"),
    [
        ("src/a.ts", ["src/a.ts", "/repo/src/a.ts"]),
        ("./src/a.ts", ["./src/a.ts", "src/a.ts", "/repo/src/a.ts"]),
        ("  /repo/src/../src/a.ts ", ["/repo/src/../src/a.ts", "/repo/src/a.ts", "src/a.ts"]),
        ("a\\b.ts", ["a/b.ts", "/repo/a/b.ts"]),
        ("../other/x.ts", ["../other/x.ts", "/other/x.ts"]),
        ("/elsewhere/y.ts", ["/elsewhere/y.ts"]),
        ("..foo/z.ts", ["..foo/z.ts", "/repo/..foo/z.ts"]),
        (".", [".", "/repo"]),
        ("/repo", ["/repo"]),
        ("//repo/a.ts", ["//repo/a.ts", "/repo/a.ts", "a.ts"]),
        ("   ", []),
    ],
)
def test_path_candidates_order_and_dedup(raw, candidates):
    assert path_candidates(raw, CWD) == candidates


def test_argument_scan_takes_path_and_paths_keys_in_order():
    args = {
        "path": "a",
        "filePath": "b",
        "paths": ["c", 1, "d"],
        "otherPaths": "not-a-list",
        "PATH": 3,
        "notes": "n",
        "sourcePaths": ["e"],
    }
    assert argument_paths(args) == ["a", "b", "c", "d", "e"]


def test_argument_scan_finds_nothing():
    assert argument_paths({"content": "x", "paths": []}) is None
    assert argument_paths(["path"]) is None


def test_tool_file_paths_prefers_matcher_paths_then_argument_scan():
    hashline = {"input": "[demo.ts#ABCD]\n+x\n"}
    assert tool_file_paths("edit", hashline, CWD, "hashline") == ["demo.ts", "/repo/demo.ts"]
    # No header streamed yet: the argument scan has nothing either.
    assert tool_file_paths("edit", {"input": "SWAP"}, CWD, "hashline") is None
    assert tool_file_paths("read", {"path": "./src/a.ts"}, CWD) == ["./src/a.ts", "src/a.ts", "/repo/src/a.ts"]
    # Candidates of several matcher paths are flattened and de-duplicated.
    two = {"input": "[a.ts]\n+x\n[./a.ts]\n+y\n"}
    assert tool_file_paths("edit", two, CWD, "hashline") == ["a.ts", "/repo/a.ts", "./a.ts"]
