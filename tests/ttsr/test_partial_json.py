"""Partial JSON of streamed tool-call arguments, parsed as the agent parses it at every delta."""

from __future__ import annotations

import json
import math
import random

import pytest

from workbench.rules.jsstring import js_trim
from workbench.ttsr.partial_json import (
    PartialJsonParser,
    _LenientParser,
    parse_partial_json,
    repair_json,
)


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


# --- the fast path against the agent's four attempts ----------------------------------------------


def _oracle(text: str | None) -> object:
    """The four attempts run in order at every call (the implementation before the fast path)."""
    from workbench.ttsr.partial_json import _lenient, _Malformed, _Partial

    def strict(t: str) -> object:
        return json.loads(t, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))

    def strict_repaired(t: str) -> object:
        repaired = repair_json(t)
        if repaired == t:
            raise ValueError("repair changed nothing")
        return strict(repaired)

    if not text or not js_trim(text):
        return {}
    for attempt in (strict, strict_repaired, _lenient, lambda t: _lenient(repair_json(t))):
        try:
            value = attempt(text)
        except (ValueError, _Partial, _Malformed, RecursionError, IndexError):
            continue
        return value if isinstance(value, dict) else None
    return None


def _same(a: object, b: object) -> bool:
    """Equality that also holds for NaN and tells -0.0 from 0.0 and 1 from 1.0 / True."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False) and type(a) is type(b)


_PIECES = ["", "a", "src/a.ts", 'say "hi"', "back\\slash", "tab\there", "line\nnext", "\u00e9\u4e2d",
           "\U0001F600", "\ud83d", "\\u", "e", "-", "/", "x" * 40]


def _random_value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth < 4 and roll < 0.25:
        return {rng.choice(["path", "edits", "op", "e", "", "k\"q", "lines"]) + str(rng.randint(0, 3)):
                _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if depth < 4 and roll < 0.4:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.7:
        return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 4)))
    if roll < 0.8:
        return rng.choice([0, -1, 7, 12345, -0.0, 1.5, -2.25e-7, 3e21, 1e300])
    return rng.choice([True, False, None])


def _random_document(rng: random.Random) -> str:
    value = {"path": "src/a.ts", "edits": _random_value(rng), "n": _random_value(rng)}
    style = rng.randrange(5)
    if style == 0:
        return json.dumps(value)
    if style == 1:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if style == 2:
        return json.dumps(value, indent=rng.choice([1, 2, "\t"]))
    if style == 3:  # blanks inside empty containers, which the lenient parser reads oddly
        return json.dumps(value).replace("[]", "[ ]").replace("{}", "{ }")
    # A model's sloppy output: raw control characters or invalid escapes in strings, trailing text.
    text = json.dumps(value, ensure_ascii=False)
    return rng.choice([text.replace("\\n", "\n"), text.replace("\\\\", "\\"), text + " done", " " + text])


def test_fast_path_matches_the_four_attempts_on_truncations_of_real_json():
    rng = random.Random(2024)
    for _ in range(200):
        text = _random_document(rng)
        for end in range(len(text) + 1):
            prefix = text[:end]
            assert _same(parse_partial_json(prefix), _oracle(prefix)), repr(prefix)


def test_incremental_parser_matches_at_every_delta():
    rng = random.Random(99)
    for _ in range(150):
        text = _random_document(rng)
        parser = PartialJsonParser()
        pos = 0
        while pos < len(text):
            step = rng.choice([1, 1, 2, 3, 7, 20])
            got = parser.feed(text[pos : pos + step])
            pos = min(len(text), pos + step)
            assert _same(got, _oracle(text[:pos])), repr(text[:pos])
        assert parser.text == text


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [ ]}', '{"a": [ ', '{"a": [ ]', '{"a": [1 ,2', '{"a": 1.', '{"name": 1.', '{"a": 1.5E',
        '{"a": -0', '{"a": 01', '{"a": 1e999', '{"a": tr ', '{"a": NaN', '{"a": "x\\u12', '{"a": "x\\u12G"',
        '\ufeff{"a": 1}', '{"a": 1}\n', '{"a": 1}}', '  {"a": {"b": [true, fals', '{"a": "\x01', "{ }",
        '{"a": 1,', '{"a": "b",  "c"', '{"a": "b"  :', '[1, 2', '"str"', "{" * 300, '{"a": -',
        '{"a": [ ], "b": 1', '{"a": [\n], "b": [1]}', '{"a": { }, "b": 1',
    ],
)
def test_fast_path_matches_the_four_attempts_on_odd_prefixes(text):
    assert _same(parse_partial_json(text), _oracle(text))
    parser = PartialJsonParser()
    for char in text:
        got = parser.feed(char)
    assert _same(got, _oracle(text))


def test_clean_prefixes_take_one_scan_and_one_strict_parse(monkeypatch):
    import workbench.ttsr.partial_json as module

    def no_fallback(text: str) -> None:
        raise AssertionError(f"fell back on {text!r}")

    monkeypatch.setattr(module, "_agent_attempts", no_fallback)
    text = json.dumps({"path": "src/a.ts", "edits": [{"op": "replace", "lines": ["a\\tb", "\u00e9", 1.5e-3, None]}]})
    parser = PartialJsonParser()
    for end in range(1, len(text) + 1):
        assert parse_partial_json(text[:end]) == parser.feed(text[end - 1 : end])


# --- the incremental parser's top-level path against a full re-parse -----------------------------

_STREAMED_PIECES = ["a", '"', "\\", "\n", "\t", "\x01", "\U0001F600", "\ud83d", "\ude00", "\u00e9", "\u4e2d", "\\u",
                    "\\ud83d", "x" * 9, " ", "/", "}", "{", "[", "]", ","]


def _streamed_document(rng: random.Random) -> str:
    """A tool call's arguments as streamed: string members (escapes, astral characters written as
    surrogate-pair escapes or raw, lone surrogates), before and after nested values and numbers."""
    def string() -> str:
        return "".join(rng.choice(_STREAMED_PIECES) for _ in range(rng.randint(0, 40)))

    members: list[tuple[str, object]] = [("path", rng.choice(["src/a.ts", "b.rs", ""]))]
    for _ in range(rng.randint(1, 5)):
        roll = rng.random()
        key = rng.choice(["content", "new_string", "old_string", "path", "k\"ey", "\u00e9", ""])
        if roll < 0.6:
            members.append((key, string()))
        elif roll < 0.8:
            members.append((key, _random_value(rng)))
        else:
            members.append((key, rng.choice([0, -12, 1.5e-3, True, None])))
    text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=rng.random() < 0.5)}" for k, v in members) + "}"
    return text if rng.random() < 0.8 else text[: rng.randint(0, len(text))]  # a truncated stream too


def test_incremental_parser_equals_a_full_re_parse_at_every_delta_of_streamed_arguments():
    rng = random.Random(2512)
    for _ in range(400):
        text = _streamed_document(rng)
        parser = PartialJsonParser()
        pos = 0
        while pos < len(text):
            step = rng.choice([1, 1, 2, 3, 5, 6, 7, 12, 40])
            got = parser.feed(text[pos : pos + step])
            pos = min(len(text), pos + step)
            assert _same(got, parse_partial_json(text[:pos])), repr(text[:pos])
            assert _same(got, _oracle(text[:pos])), repr(text[:pos])


def test_a_copied_parser_goes_on_as_the_original_would():
    # ``copy`` at any delta: the copy and the original, fed different continuations, each answer the
    # full re-parse of its own text, and neither disturbs the other.
    rng = random.Random(2601)
    for _ in range(300):
        text = _streamed_document(rng)
        parser = PartialJsonParser()
        pos = 0
        while pos < len(text):
            step = rng.choice([1, 2, 3, 7, 40])
            got = parser.feed(text[pos : pos + step])
            pos = min(len(text), pos + step)
            assert _same(got, parse_partial_json(text[:pos])), repr(text[:pos])
            if rng.random() < 0.3:
                twin = parser.copy()
                ahead = rng.randint(pos, len(text))
                assert _same(twin.feed(text[pos:ahead]), parse_partial_json(text[:ahead])), repr(text[:ahead])
                assert twin.text == text[:ahead]
                if rng.random() < 0.5:  # the copy goes on too, in other pieces
                    assert _same(twin.feed(text[ahead:]), parse_partial_json(text)), repr(text)
        assert _same(parser.feed(""), parse_partial_json(text)), repr(text)


@pytest.mark.parametrize("escape", ["\\ud83d\\ude00", "\\uD83D\\uDE00", "\\ud83d", "\\ude00", "\\\\ud83d\\ude00",
                                    "\\ud83d\\n", "\\ud83d\\ud83d\\ude00"])
def test_surrogate_escapes_split_at_every_point(escape):
    text = '{"path": "a.ts", "content": "ab' + escape + 'cd' + escape + '"}'
    for cut in range(len(text) + 1):
        for cut2 in range(cut, len(text) + 1):
            parser = PartialJsonParser()
            got = [parser.feed(text[:cut]), parser.feed(text[cut:cut2]), parser.feed(text[cut2:])]
            for end, value in zip((cut, cut2, len(text)), got):
                assert _same(value, _oracle(text[:end])), (repr(text[:end]), cut, cut2)


def test_an_open_string_member_is_decoded_once_not_at_every_delta(monkeypatch):
    import workbench.ttsr.partial_json as module

    decoded = [0]
    real_strict, real_scan = module._strict, module.scanstring

    def strict(text: str) -> object:
        decoded[0] += len(text)
        return real_strict(text)

    def scan(text: str, end: int, strict_mode: bool = True) -> object:
        decoded[0] += len(text) - end
        return real_scan(text, end, strict_mode)

    monkeypatch.setattr(module, "_strict", strict)
    monkeypatch.setattr(module, "scanstring", scan)
    text = json.dumps({"path": "src/a.ts", "old_string": "x", "new_string": "let a = \"\\u00e9\";\n" * 400})
    parser = PartialJsonParser()
    for start in range(0, len(text), 8):
        parser.feed(text[start : start + 8])
    # A re-parse at each of the ~1,000 deltas would decode about 500 times the text.
    assert decoded[0] < 4 * len(text)
