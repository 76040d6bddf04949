"""``dumps_json_fast`` writes exactly ``print_json``'s text for the payloads it is used on."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from workbench.cli._output import dumps_json_fast


def _slow(data):
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


@dataclasses.dataclass
class _Thing:
    x: int = 1


CASES = [
    {}, [], {"a": []}, {"a": {}}, {"rows": [{"id": "x", "label": None, "active": True, "depth": 3}]},
    {"s": "".join(chr(c) for c in range(160))}, {"s": "\u2028\u2029\ufeff\U0001f600é"},
    {"s": "\ud800"}, {"n": 2 ** 70}, {"n": -(2 ** 63)}, {1: "int key"}, {"d": _Thing()},
    {"b": b"bytes"}, {"t": (1, 2)}, {"nested": [[[{"k": [None, False, 0, -1]}]]]},
]


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_fast_writer_is_print_json(data):
    assert dumps_json_fast(data) == _slow(data)


def test_fast_writer_on_generated_row_payloads():
    rng = random.Random(3)
    alphabet = "aé\"\\\n\t\x00\x1f\x7f /€\U0001f600"
    for _ in range(300):
        rows = [{"id": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))),
                 "label": rng.choice([None, "x", "é\n"]), "active": rng.random() < 0.5,
                 "depth": rng.randint(0, 10 ** 6), "fileLine": rng.randint(-5, 5)} for _ in range(rng.randint(0, 4))]
        data = {"rows": rows, "leaf": rng.choice([None, "e1"]), "diagnostics": [], "total": len(rows)}
        assert dumps_json_fast(data) == _slow(data)



def _printed(printer, data, stream=None):
    """What ``printer`` writes between two pieces of text, as UTF-8 bytes; to a file-like text stream
    by default (a byte stream under it, as sys.stdout has), or to ``stream``."""
    import contextlib
    import io

    raw = io.BytesIO()
    out = stream if stream is not None else io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    with contextlib.redirect_stdout(out):
        print("before", end="|")  # text written first must stay first
        printer(data)
        print("after")
    out.flush()
    return out.getvalue().encode() if stream is not None else raw.getvalue()


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_fast_printer_writes_print_json_bytes(data):
    import io

    from workbench.cli._output import print_json, print_json_fast

    try:
        plain = _printed(print_json, data)
    except UnicodeEncodeError:  # a lone surrogate: neither printer can write it as UTF-8
        with pytest.raises(UnicodeEncodeError):
            _printed(print_json_fast, data)
        return
    assert _printed(print_json_fast, data) == plain
    assert _printed(print_json_fast, data, io.StringIO()) == plain  # no byte stream under it: the text path
