"""The loader's orjson path gives the standard library's values and errors, line for line."""

from __future__ import annotations

import json
import random

import pytest

from workbench.sessions import loader
from workbench.sessions.loader import _loads_fast, _loads_line, parse_session_bytes

# Lines where orjson and json could part: big and long numbers, exponents, lone surrogates, control
# characters, NaN/Infinity, BOM, nesting, duplicate keys, trailing data, odd whitespace.
TRICKY = [
    '{"a": 1}', ' {"a": 1} ', '{"a": 1}\r', '\ufeff{"a": 1}', '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',
    '{"a": 1e400}', '{"a": -1e400}', '{"a": 1.5e-7}', '{"a": -0}', '{"a": -0.0}', '{"a": 1E2}', '{"a": 0.1}',
    '{"a": 9223372036854775807}', '{"a": -9223372036854775808}', '{"a": 18446744073709551615}',
    '{"a": "\\ud800"}', '{"a": "\\udc00x"}', '{"a": "\\ud83d\\ude00"}', '{"a": "\x01"}', '{"a": "\\u0000"}',
    '{"a": 1, "a": 2}', '{"a": 1}{"b": 2}', '{"a": 1} x', '[1,]', '{"a": 1,}', '{"a": tru}', '"str"', '12',
    "[" * 600 + "]" * 600, "[" * 1100 + "]" * 1100, '{"a": "é\u2028"}', '{"a":\u00a01}', '{"a": 01}',
    '{"a": .5}', '{"a": 5.}', '{"a": "\\x41"}', '{"a": "tab\there"}', 'null', '{"\\u00e9": [true, false, null]}',
]


def _outcome(fn, text):
    try:
        return "ok", repr(fn(text))
    except (ValueError, RecursionError) as exc:
        return "error", type(exc).__name__, str(exc)


@pytest.mark.parametrize("text", TRICKY)
def test_fast_line_parser_is_the_standard_one(text):
    assert _outcome(_loads_fast, text) == _outcome(_loads_line, text)


def test_fast_line_parser_on_generated_lines():
    rng = random.Random(7)
    atoms = ['"x"', '"é"', '"\\n"', "1", "-2", "3.25", "1e5", "true", "null", '"\\u00ff"', "[]", "{}", "0.1"]
    for _ in range(3000):
        value = "{" + ",".join(f'"k{i}":{rng.choice(atoms)}' for i in range(rng.randint(0, 5))) + "}"
        if rng.random() < 0.2:
            cut = rng.randint(0, len(value))
            value = value[:cut] + rng.choice(["", ",", "}", "x", " "]) + value[cut:]
        assert _outcome(_loads_fast, value) == _outcome(_loads_line, value), value


def test_a_file_with_a_long_digit_run_keeps_exact_integers(tmp_path):
    big = 123456789012345678901234567890
    text = (json.dumps({"type": "session", "version": 3, "id": "s"}) + "\n"
            + json.dumps({"type": "custom", "id": "a", "parentId": None, "n": big}) + "\n")
    session = parse_session_bytes(text.encode())
    assert session.entries[0].raw["n"] == big and type(session.entries[0].raw["n"]) is int
    assert loader._line_loader(text.encode()) is _loads_line
    assert loader._line_loader(b'{"n": 123456789012345678}') is _loads_fast  # 18 digits: orjson is exact


def test_a_long_fraction_is_no_long_digit_run():
    """orjson's floats are the standard library's, however many digits their fractions have (real
    sessions write costs with 19+): only a run that does not follow a "." may be an integer."""
    rng = random.Random(11)
    for _ in range(20000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(19, 45)))
        text = f'{{"cost": {rng.choice(["0", "-0", "3", "12"])}.{digits}{rng.choice(["", "e-7", "E+30", "e300", "e-330"])}}}'
        assert _outcome(_loads_fast, text) == _outcome(_loads_line, text), text
        assert loader._line_loader(text.encode()) is _loads_fast
    for text in ('{"n": 1234567890123456789}', '{"n": [1.5,1234567890123456789]}', '1234567890123456789',
                 '{"s": "x1234567890123456789"}', '{"f": 1.5e1234567890123456789}'):
        assert loader._line_loader(text.encode()) is _loads_line, text
        assert loader._long_digit_run(text.encode()), text
    assert not loader._long_digit_run(b'{"a": 0.1234567890123456789, "b": "1.1234567890123456789012"}')


def test_only_a_file_without_a_long_digit_run_is_decoded_whole(monkeypatch):
    """The whole-file road would give every line of a file with a long digit run to the standard
    library; such a file goes line by line, where only a line that may have lost digits does. So does
    a file of some size holding text beyond ASCII (orjson reads such a line faster as bytes)."""
    whole = []
    real = loader._parse_whole_file
    monkeypatch.setattr(loader, "_parse_whole_file", lambda *a, **k: whole.append(a[1]) or real(*a, **k))
    head = json.dumps({"type": "session", "version": 3, "id": "s"}) + "\n"
    for n, expected in ((123456789012345678, [_loads_fast]), (1234567890123456789012, [])):
        whole.clear()
        data = (head + json.dumps({"type": "custom", "id": "a", "parentId": None, "n": n, "f": 0.5}) + "\n").encode()
        session = parse_session_bytes(data)
        assert whole == expected
        assert session.entries[0].raw["n"] == n and type(session.entries[0].raw["n"]) is int
    # text beyond ASCII: decoded whole up to ``NON_ASCII_BY_LINE_BYTES``, read line by line from there
    record = {"type": "custom", "id": "a", "parentId": None, "s": "café"}
    data = (head + json.dumps(record, ensure_ascii=False) + "\n").encode()
    escaped = (head + json.dumps(record) + "\n").encode()  # (ASCII, and longer)
    for least, expected in ((len(data) + 1, [_loads_fast]), (len(data), [])):
        whole.clear()
        monkeypatch.setattr(loader, "NON_ASCII_BY_LINE_BYTES", least)
        assert parse_session_bytes(data).entries[0].raw["s"] == "café" and whole == expected
        assert parse_session_bytes(escaped).entries[0].raw["s"] == "café"
        assert whole == expected + [_loads_fast]  # (an ASCII file of any size below LINE_BY_LINE_BYTES: whole)
