from __future__ import annotations

from workbench.tree.flavors import flavour
from workbench.tree.rowtext import (
    cut16,
    display_text,
    extract,
    format_tool_call,
    search_text,
)


def _text(obj, flavor="pi", calls=None):
    return display_text(obj, rules=flavour(flavor).row_rules, tool_calls=calls or {}, home="/home/u")


def test_tool_call_formats():
    f = lambda n, a, fl="pi": format_tool_call(n, a, home="/home/u", rules=flavour(fl).row_rules)  # noqa: E731
    assert f("read", {"path": "/home/u/x.ts", "offset": 10, "limit": 5}) == "[read: ~/x.ts:10-14]"
    assert f("read", {"file_path": "/etc/a", "offset": 3}) == "[read: /etc/a:3]"
    # JS arithmetic on strings: "0x10" + "12" is "0x1012", and "0x1012" - 1 is 4113 (Number() reads hex).
    assert f("read", {"path": "/a", "offset": "0x10", "limit": "12"}) == "[read: /a:0x10-4113]"
    assert f("bash", {"command": "x" * 60}) == "[bash: " + "x" * 50 + "...]"
    assert f("grep", {"pattern": "foo"}) == "[grep: /foo/ in .]"
    assert f("find", {"pattern": "*.ts", "path": "/home/u/src"}) == "[find: *.ts in ~/src]"
    assert f("ls", {}) == "[ls: .]"
    assert f("mcp", {"q": "é" * 50}) == '[mcp: {"q":"' + "é" * 34 + '...]'


def test_compaction_rounds_half_up_like_js():
    for tokens, k in [(1500, "2"), (2500, "3"), (499, "0")]:
        assert _text({"type": "compaction", "tokensBefore": tokens}) == f"[compaction: {k}k tokens]"


def test_assistant_fallbacks_and_tool_results():
    assert _text({"type": "message", "message": {"role": "assistant", "content": [], "stopReason": "aborted"}}) == "assistant: (aborted)"
    assert _text({"type": "message", "message": {"role": "assistant", "content": [], "errorMessage": "boom\nx"}}) == "assistant: boom x"
    assert _text({"type": "message", "message": {"role": "assistant", "content": []}}) == "assistant: (no content)"
    calls = {"t1": ("ls", {"path": "/home/u"})}
    assert _text({"type": "message", "message": {"role": "toolResult", "toolCallId": "t1"}}, calls=calls) == "[ls: ~]"
    assert _text({"type": "message", "message": {"role": "toolResult", "toolCallId": "t9", "toolName": "x"}}) == "[x]"


def test_js_string_conversions_per_flavour():
    legacy = {"type": "model_change", "provider": "openai", "modelId": "gpt-4o"}
    assert _text(legacy, "pi") == "[model: gpt-4o]"
    assert _text(legacy, "omp") == "[model: undefined]"
    assert search_text(legacy, None, rules=flavour("omp").row_rules) == "model "
    null_level = {"type": "thinking_level_change", "thinkingLevel": None}
    assert _text(null_level, "pi") == "[thinking: null]" and _text(null_level, "omp") == "[thinking: off]"
    assert _text({"type": "label", "targetId": "x"}) == "[label: (cleared)]"
    assert _text({"type": "session_info", "name": "x"}) == ""


def test_extract_cuts_at_200_utf16_units():
    assert len(extract("y" * 300)) == 200
    assert extract([{"type": "text", "text": "a" * 150}, {"type": "image"}, {"type": "text", "text": "b" * 100}]) == "a" * 150 + "b" * 50
    assert cut16("😀😀", 3) == "😀"
