"""Partial JSON of streamed tool-call arguments, parsed as the agent parses it at every delta."""

from __future__ import annotations

import json
import math
import random

import pytest

from workbench.ttsr.partial_json import _LenientParser, parse_partial_json, repair_json


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("  \n", {}),
        ('{"a":1}', {"a": 1}),
        ('{"pa', {}),  # dangling key dropped
        ('{"path": ', {}),  # key without a value yet
        ('{"path": "src/a', {"path": "src/a"}),  # open string closed
        ('{"path": "src/a\\u00', {"path": "src/a"}),  # half-typed escape dropped
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a": [{"b": "c"}, {"d', {"a": [{"b": "c"}, {}]}),
        ('{"a": 12', {"a": 12}),
        ('{"a": 1.5e', {"a": 1.5}),
        ('{"a": -', {}),
        ('{"a": tr', {"a": True}),  # partial literal completed, as partial-json does
        ('{"a": nul', {"a": None}),
        ('{"a": fals', {"a": False}),
        ('{"a":1} trailing', {"a": 1}),
    ],
)
def test_partial_objects(text, expected):
    assert parse_partial_json(text) == expected


def test_streamed_edit_arguments_grow_monotonically():
    full = '{"path": "src/a.ts", "edits": [{"op": "update", "diff": "@@\\n+const x = 1;"}]}'
    seen_paths = []
    for end in range(1, len(full) + 1):
        value = parse_partial_json(full[:end])
        assert isinstance(value, dict)
        if "path" in value:
            seen_paths.append(value["path"])
    assert seen_paths[-1] == "src/a.ts"
    assert all("src/a.ts".startswith(p) for p in seen_paths)
    assert parse_partial_json(full) == {"path": "src/a.ts", "edits": [{"op": "update", "diff": "@@\n+const x = 1;"}]}


def test_invalid_escape_is_repaired():
    assert parse_partial_json('{"x": "a\\qb"}') == {"x": "a\\qb"}
    assert repair_json('"a\\qb"') == '"a\\\\qb"'


def test_raw_control_characters_are_repaired_in_complete_text():
    assert parse_partial_json('{"a": "line\nbreak"}') == {"a": "line\nbreak"}


def test_raw_newline_in_an_open_string_drops_the_key_as_the_agent_does():
    # The lenient parser rejects the literal, returns the object without the key, and that result
    # wins before the repaired text is tried.
    assert parse_partial_json('{"a": "line\nbreak') == {}


def test_non_objects_and_garbage():
    assert parse_partial_json("[1, 2]") is None
    assert parse_partial_json("null") is None
    assert parse_partial_json("garbage") is None
    assert parse_partial_json(None) == {}


def test_non_finite_literals():
    value = parse_partial_json('{"a": NaN, "b": -Infinity')
    assert value is not None
    assert math.isnan(value["a"]) and value["b"] == -math.inf
    # Strict JSON rejects them, so a complete text goes through the lenient path as well.
    assert parse_partial_json('{"a": Infinity}') == {"a": math.inf}


def test_never_raises_on_deep_or_odd_input():
    assert parse_partial_json("[" * 5000) is None
    deep = parse_partial_json('{"a":' + "[" * 5000)
    assert isinstance(deep, dict) and list(deep) == ["a"]
    assert parse_partial_json("{a:1}") == {}


# --- the fast scans against character-by-character ports of the reference loops ----------------


def _reference_repair(text: str) -> str:
    out, in_string, i = [], False, 0
    named = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    while i < len(text):
        char = text[i]
        if not in_string or char == '"':
            out.append(char)
            in_string = not in_string if char == '"' else in_string
        elif char == "\\":
            following = text[i + 1 : i + 2]
            digits = text[i + 2 : i + 6]
            if following == "u" and len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
                out.append(text[i : i + 6])
                i += 5
            elif following and following in '"\\/bfnrtu':
                out.append("\\" + following)
                i += 1
            else:
                out.append("\\\\")
        else:
            out.append(named.get(char, f"\\u{ord(char):04x}") if ord(char) <= 0x1F else char)
        i += 1
    return "".join(out)


def _reference_string_end(text: str) -> tuple[int, bool]:
    index, escape = 1, False
    while index < len(text) and (text[index] != '"' or (escape and text[index - 1] == "\\")):
        escape = (not escape) if text[index] == "\\" else False
        index += 1
    return index, escape


def test_repair_matches_the_reference_loop_on_random_text():
    rng = random.Random(7)
    for _ in range(5000):
        text = "".join(rng.choice('ab"\\\\uq0F\n\x01{}:') for _ in range(rng.randint(0, 16)))
        assert repair_json(text) == _reference_repair(text), repr(text)


def _reference_string_value(text: str) -> object:
    index, escape = _reference_string_end(text)
    if index < len(text):
        return json.loads(text[: index + 1])
    try:
        return json.loads(text[: index - int(escape)] + '"')
    except ValueError:
        return json.loads(text[: max(text.rfind("\\"), 0)] + '"')


def _outcome(produce, text: str) -> object:
    try:
        return ("value", produce(text))
    except Exception:
        return ("error", None)


def test_string_scan_matches_the_reference_loop_on_random_text():
    rng = random.Random(11)
    for _ in range(5000):
        text = '"' + "".join(rng.choice('ab"\\n') for _ in range(rng.randint(0, 12)))
        expected = _outcome(_reference_string_value, text)
        assert _outcome(lambda t: _LenientParser(t).parse_string(), text) == expected, repr(text)
