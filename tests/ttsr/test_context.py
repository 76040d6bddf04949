"""Context values and JS trimming."""

from __future__ import annotations

from workbench.rules.jsstring import js_trim
from workbench.ttsr import MatchContext


def test_from_mapping_reads_reference_keys() -> None:
    ctx = MatchContext.from_mapping({"source": "tool", "toolName": "edit", "filePaths": ["a"], "streamKey": "k"})
    assert ctx == MatchContext("tool", "edit", ("a",), "k")


def test_js_trim_differs_from_str_strip() -> None:
    assert js_trim("\ufeff a \u2028") == "a"
    assert js_trim("\x1c a") == "\x1c a"  # Python's strip would remove U+001C
