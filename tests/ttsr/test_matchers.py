"""Tool matcher surfaces for `write` and every edit mode (§7)."""

from __future__ import annotations

import pytest

from workbench.ttsr.matchers import (
    EDIT_MODE_STRATEGIES,
    MatcherEntry,
    extract_added_lines,
    matcher_digest,
    matcher_entries,
    matcher_paths,
    parse_envelope,
    resolve_tool,
    split_sloppy_sections,
)

S = EDIT_MODE_STRATEGIES


def lines(*parts: str) -> str:
    return "\n".join(parts)


# --- extractAddedLines ------------------------------------------------------------------------


def test_added_lines_strip_plus_and_skip_file_headers():
    text = lines("+++ b/file", "@@", "-old", "+new", " ctx", "+", "++double")
    assert extract_added_lines(text, False) == "new\n\n+double"


def test_added_lines_fallback():
    assert extract_added_lines("whole\nfile", True) == "whole\nfile"
    assert extract_added_lines("whole\nfile", False) == ""
    assert extract_added_lines("+++ only header", False) == ""


# --- replace / patch ----------------------------------------------------------------------------


def test_replace_surfaces():
    args = {"path": "src/foo.ts", "old_string": "a", "new_string": "x = 1"}
    assert S["replace"]["matcherDigest"](args) == "x = 1"
    assert S["replace"]["matcherPaths"](args) == ["src/foo.ts"]
    assert S["replace"]["matcherEntries"](args) == [MatcherEntry("src/foo.ts", "x = 1")]
    # Partial arguments: the path streamed, new_string not yet.
    assert S["replace"]["matcherEntries"]({"path": "src/foo.ts"}) is None
    assert S["replace"]["matcherPaths"]({"path": ""}) is None
    assert S["replace"]["matcherDigest"]({"new_string": 3}) is None


def test_patch_digest_joins_edits_and_passes_create_content_whole():
    args = {
        "path": "src/bar.ts",
        "edits": [
            {"op": "create", "diff": "whole\nfile"},
            {"op": "update", "diff": "@@\n ctx"},  # no added lines, not a create: ""
            {"op": "update"},  # no diff yet
            "garbage",
            {"op": "update", "diff": "@@\n+y"},
        ],
    }
    assert S["patch"]["matcherDigest"](args) == "whole\nfile\n\ny"
    assert S["patch"]["matcherEntries"](args) == [MatcherEntry("src/bar.ts", "whole\nfile\n\ny")]
    assert S["patch"]["matcherDigest"]({"edits": "nope"}) is None
    assert S["patch"]["matcherDigest"]({"edits": [{"op": "update"}]}) is None
    assert S["patch"]["matcherPaths"]({}) is None


# --- hashline -----------------------------------------------------------------------------------

MULTI = lines(
    "[src/a.ts#ABCD]",
    "SWAP 1.=1:",
    "+const a = 1;",
    "[README.md#EF01]",
    "SWAP 1.=1:",
    "+# Heading",
    "[src/a.ts#1234]",
    "SWAP 2.=2:",
    "+const c = 3;",
    "",
)


def test_hashline_paths_in_order_with_duplicates():
    assert S["hashline"]["matcherPaths"]({"input": MULTI}) == ["src/a.ts", "README.md", "src/a.ts"]


def test_hashline_entries_merge_same_path_in_first_seen_order():
    assert S["hashline"]["matcherEntries"]({"input": MULTI}) == [
        MatcherEntry("src/a.ts", "const a = 1;\nconst c = 3;"),
        MatcherEntry("README.md", "# Heading"),
    ]


def test_hashline_header_noise_spaces_and_partial_body():
    text = lines("[dir with spaces/file.ts#1A2B]", "+after", "[*** Update File: src/recovered.ts#1A2B]", "+x")
    assert S["hashline"]["matcherPaths"]({"input": text}) == ["dir with spaces/file.ts", "src/recovered.ts"]
    assert S["hashline"]["matcherPaths"]({"input": "[src/partial.ts#ABCD]\nSWAP 1.="}) == ["src/partial.ts"]
    assert S["hashline"]["matcherPaths"]({"input": "[*** move TO: b.ts]\n"}) == ["b.ts"]


def test_hashline_header_without_tag_and_legacy_input_key():
    args = {"_input": "[plain.py]\n+print(1)\n"}
    assert S["hashline"]["matcherPaths"](args) == ["plain.py"]
    assert S["hashline"]["matcherDigest"](args) == "print(1)"


def test_hashline_nothing_recoverable():
    assert S["hashline"]["matcherPaths"]({"input": ""}) is None
    assert S["hashline"]["matcherPaths"]({"input": "SWAP 1.=1:\n+x"}) is None
    assert S["hashline"]["matcherEntries"]({"input": "[a.ts]\nSWAP 1.=1:\n"}) is None  # no added line
    assert S["hashline"]["matcherDigest"]({"input": "[a.ts]\n"}) == ""
    assert S["hashline"]["matcherDigest"]({}) is None


def test_hashline_header_regex_uses_javascript_line_ends():
    # JavaScript's multiline anchors also break at \r and \u2028.
    assert S["hashline"]["matcherPaths"]({"input": "x\r[a.ts]\u2028+y"}) == ["a.ts"]


# --- apply_patch --------------------------------------------------------------------------------

ENVELOPE = lines(
    "*** Begin Patch",
    "*** Update File: src/a.ts",
    "@@",
    "-foo",
    "+const a = 1;",
    "*** Add File: src/b.ts",
    "+new",
    "*** Update File: README.md",
    "*** Move to: docs/README.md",
    "@@",
    "-old",
    "+# Heading",
    "*** Delete File: src/c.ts",
    "*** End Patch",
    "",
)


def test_apply_patch_paths_from_markers():
    assert S["apply_patch"]["matcherPaths"]({"input": ENVELOPE}) == ["src/a.ts", "src/b.ts", "README.md", "src/c.ts"]
    assert S["apply_patch"]["matcherPaths"]({"input": "*** Begin Patch\n"}) is None


def test_apply_patch_entries_skip_added_files_whose_content_has_no_plus_lines():
    # An Add File hunk's diff is its content with the `+` removed, so it has no added lines.
    assert S["apply_patch"]["matcherEntries"]({"input": ENVELOPE}) == [
        MatcherEntry("src/a.ts", "const a = 1;"),
        MatcherEntry("README.md", "# Heading"),
    ]


def test_apply_patch_streaming_fallback_and_digest():
    partial = lines("*** Begin Patch", "*** Update File: src/partial.ts", "@@", "+wip")
    assert S["apply_patch"]["matcherEntries"]({"input": partial}) == [MatcherEntry("src/partial.ts", "wip")]
    assert S["apply_patch"]["matcherDigest"]({"input": partial}) == "wip"
    assert S["apply_patch"]["matcherEntries"]({"input": "*** Begin Patch\n"}) is None


def test_envelope_parser_strict_errors_and_heredoc():
    with pytest.raises(ValueError):
        parse_envelope("*** Update File: a.ts\n+x", streaming=False)
    with pytest.raises(ValueError):
        parse_envelope("*** Begin Patch\n*** Update File: a.ts\n+x", streaming=False)
    with pytest.raises(ValueError):
        parse_envelope("*** Begin Patch\n*** Update File: a.ts\n*** End Patch", streaming=False)
    wrapped = "<<'EOF'\n*** Begin Patch\n*** Update File: a.ts\n+x\n*** End Patch\nEOF\n"
    assert parse_envelope(wrapped, streaming=False) == [("a.ts", "update", "+x")]
    # Streaming: stops at an unreadable line, keeps what came before.
    assert parse_envelope("*** Begin Patch\n*** Delete File: d.ts\nwhat\n*** Add File: e.ts", streaming=True) == [
        ("d.ts", "delete", None)
    ]


# --- sloppy -------------------------------------------------------------------------------------


def test_sloppy_sections_need_an_operation_after_a_later_header():
    text = lines("[a.ts]", "«", "foo", "»", "[not a header]", "bar", "[b.ts]", "«", "x", "[a.ts]", "«", "y")
    assert split_sloppy_sections(text) == [
        ("a.ts", "«\nfoo\n»\n[not a header]\nbar\n«\ny"),
        ("b.ts", "«\nx"),
    ]
    assert S["sloppy"]["matcherPaths"]({"input": text}) == ["a.ts", "b.ts"]
    assert S["sloppy"]["matcherDigest"]({"input": text}) == text
    assert S["sloppy"]["matcherEntries"]({"input": "no header"}) is None


# --- tools --------------------------------------------------------------------------------------


def test_write_exposes_only_a_digest():
    args = {"path": "a.ts", "content": "const x: any = 1;"}
    assert matcher_digest("write", args) == "const x: any = 1;"
    assert matcher_paths("write", args) is None
    assert matcher_entries("write", args) is None
    assert matcher_digest("write", {"path": "a.ts"}) is None


def test_edit_tool_follows_the_edit_mode_and_wire_name():
    hashline = {"input": "[demo.ts#ABCD]\n+x\n"}
    assert matcher_paths("edit", hashline, edit_mode="hashline") == ["demo.ts"]
    assert matcher_paths("edit", hashline, edit_mode="replace") is None
    envelope = {"input": "*** Begin Patch\n*** Add File: n.ts\n+x\n"}
    assert matcher_paths("apply_patch", envelope, edit_mode="apply_patch") == ["n.ts"]
    assert matcher_paths("edit", envelope, edit_mode="apply_patch") == ["n.ts"]
    assert resolve_tool("apply_patch", "replace") is None
    assert resolve_tool("bash", "replace") is None
    assert resolve_tool("Edit", "replace") is None  # names match exactly
    assert matcher_digest("edit", {"new_string": "y"}, edit_mode=None) == "y"  # default mode
    assert matcher_paths("apply_patch", envelope, edit_mode=None) == ["n.ts"]  # implied by the wire name


def test_surfaces_tolerate_non_object_arguments():
    for mode, methods in S.items():
        for method, surface in methods.items():
            assert surface(["not", "an", "object"]) is None, (mode, method)
            assert surface(None) is None, (mode, method)
