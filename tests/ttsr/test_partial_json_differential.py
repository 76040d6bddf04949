"""The hand-written partial-JSON parser against a well-kept one, on every prefix of generated documents.

``partial-json-parser`` (PyPI) is the Python port, by the same authors, of the npm ``partial-json`` that
the agent runs at every tool-call delta. Our parser reproduces the agent, so where the two disagree the
difference must fall into one of these recorded classes, each one the agent's behaviour:

- ``blank``: no text yet is ``{}`` (the agent's "no arguments yet"); the library raises.
- ``not-an-object``: tool arguments are an object; any other top-level value is ``None`` for us.
- ``dangling-number``: a number cut right after its ``.`` (``3.``) or an upper-case exponent (``1E``,
  ``1.5E-``) is dropped by the agent, as if it had not been typed; the library keeps the digits before
  it. (A lower-case ``1e`` / ``1e-`` keeps its mantissa in both.)
- ``open-string-blanks``: the text ends inside a string with blanks: the library trims the end of the
  whole text, the agent (which trims only the start) keeps what was typed.
- ``open-string-control``: the text ends inside a string holding a raw control character (a tab, a
  newline): the library strips it as trailing blank or parses past it, the agent's parser rejects the
  string and the key is dropped.
- ``recovered``: text no completion can make valid (a raw control character or a bad escape in a
  string, a value missing, content after the object): the library raises, the agent's repair and
  lenient steps still recover an object (our parser never raises).

Anything else is a failure: either a regression of ours or a behaviour to look at and record.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

partial_json_parser = pytest.importorskip("partial_json_parser")

from workbench.ttsr import parse_partial_json  # noqa: E402 - after the optional import above

_DANGLING = re.compile(r"-?\d+(?:\.\d*)?E[+-]?$|-?\d+\.$")
_CONTROL = re.compile(r"[\x00-\x1f]")


def _open_string(text: str) -> str | None:
    """The body of the string the text ends inside, or ``None`` when it ends outside any string."""
    inside, start, i = False, 0, 0
    while i < len(text):
        char = text[i]
        if inside and char == "\\":
            i += 2
            continue
        if char == '"':
            inside, start = not inside, i + 1
        i += 1
    return text[start:] if inside else None


def _value(rng: random.Random, depth: int = 0) -> Any:
    k = rng.random()
    if depth > 2 or k < 0.3:
        return rng.choice(["a\"b\\c", "path/é/🙂", "line\nbreak\ttab", "", "x" * 7, "\u00e9\u4e2d"])
    if k < 0.45:
        return rng.choice([0, -12, 3.5, 0.25, 1e21, -2.5e-7, True, False, None])
    if k < 0.75:
        return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randint(0, 3))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def _documents() -> list[str]:
    rng = random.Random(20261201)
    docs = []
    for _ in range(80):
        args = {"path": rng.choice(["src/a.ts", "/abs/b.rs", "c d/e.py"]), "edits": _value(rng), "n": _value(rng)}
        docs.append(json.dumps(args, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]),
                               separators=rng.choice([None, (",", ":")])))
    # Shapes a generator of valid JSON never makes, each the start of a class above.
    docs += [
        '{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1E5, "e": -0}',
        '{"s": "raw\ttab", "t": "bad \\q escape"}',
        '{"x": 1}  {"y": 2}',
        '{"k": {"j": }}',
        '{"a" 1}',
        '[1, {"a": 2}]',
        '"just a string"',
        '  \n {"a" : { "b" : [ 1 , 2 ] } }',
    ]
    return docs


def _theirs(text: str) -> tuple[bool, Any]:
    try:
        return False, partial_json_parser.loads(text)
    except Exception:  # noqa: BLE001 - any failure of the library counts as "raises"
        return True, None


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # NaN-safe equality


def _classify(prefix: str, ours: Any, raised: bool, theirs: Any) -> str | None:
    if not prefix.strip():
        return "blank" if ours == {} and raised else None
    if not prefix.lstrip().startswith("{"):
        return "not-an-object" if ours is None else None
    body = _open_string(prefix)
    if body is not None and _CONTROL.search(body):
        return "open-string-control" if isinstance(ours, dict) else None
    if raised:
        return "recovered" if isinstance(ours, dict) else None
    if body is not None and body != body.rstrip():
        raised_trim, theirs_trim = _theirs(prefix.rstrip())
        return "open-string-blanks" if not raised_trim and _same(parse_partial_json(prefix.rstrip()), theirs_trim) and \
            not _same(ours, theirs) else None
    cut = _DANGLING.sub("", prefix.rstrip())
    if cut != prefix.rstrip():
        raised_cut, theirs_cut = _theirs(cut)
        return "dangling-number" if not raised_cut and _same(ours, theirs_cut) else None
    return None


def test_partial_json_agrees_with_the_library_except_for_the_recorded_classes():
    classes: Counter[str] = Counter()
    unexplained = []
    prefixes = 0
    for doc in _documents():
        for end in range(len(doc) + 1):
            prefix = doc[:end]
            prefixes += 1
            ours = parse_partial_json(prefix)
            raised, theirs = _theirs(prefix)
            if not raised and _same(ours, theirs):
                classes["same"] += 1
                continue
            kind = _classify(prefix, ours, raised, theirs)
            if kind is None:
                unexplained.append((prefix[-40:], ours, "raises" if raised else theirs))
            else:
                classes[kind] += 1
    assert unexplained == []
    # Every recorded class is seen (the record describes real behaviour), and agreement is the rule.
    assert set(classes) == {"same", "blank", "not-an-object", "dangling-number", "open-string-blanks",
                            "open-string-control", "recovered"}
    assert classes["same"] > 0.9 * prefixes, classes


@pytest.mark.parametrize(
    ("prefix", "kind"),
    [
        ("", "blank"),
        ('{"a": 1, "b": 3.', "dangling-number"),
        ('{"a": 1.5E-', "dangling-number"),
        ('{"a": "c ', "open-string-blanks"),
        ('{"a": "c\t', "open-string-control"),
        ('[1, 2', "not-an-object"),
        ('{"a": "x\\q"}', "recovered"),
    ],
)
def test_each_class_on_one_example(prefix, kind):
    raised, theirs = _theirs(prefix)
    assert _classify(prefix, parse_partial_json(prefix), raised, theirs) == kind
