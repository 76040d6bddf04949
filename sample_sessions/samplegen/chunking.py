"""Deterministic chunking of recorded model output into stream deltas.

Text is split into token-like pieces (one to three words, cycling), tool arguments into their compact
JSON text cut at fixed, cycling lengths, the way a provider streams ``input_json_delta`` pieces. A
``SPLIT`` character in a text forces a chunk boundary there (used to make a rule match mid-delta);
it never reaches the output.
"""

from __future__ import annotations

import json
import re
from typing import Any

SPLIT = "\u241f"  # SYMBOL FOR UNIT SEPARATOR: a forced delta boundary in scripted text

_WORDS = re.compile(r"\s*\S+|\s+$")
_WORD_CYCLE = (2, 1, 3, 1, 2, 2, 1)
_JSON_CYCLE = (17, 23, 11, 29, 14, 20)


def clean(text: str) -> str:
    return text.replace(SPLIT, "")


def text_chunks(text: str) -> list[str]:
    chunks: list[str] = []
    for segment in text.split(SPLIT):
        words = _WORDS.findall(segment)
        i = k = 0
        while i < len(words):
            n = _WORD_CYCLE[k % len(_WORD_CYCLE)]
            chunks.append("".join(words[i : i + n]))
            i += n
            k += 1
    return [c for c in chunks if c]


def args_json(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


def json_chunks(args: dict[str, Any]) -> list[str]:
    raw = args_json(args)
    out: list[str] = []
    i = k = 0
    while i < len(raw):
        n = _JSON_CYCLE[k % len(_JSON_CYCLE)]
        out.append(raw[i : i + n])
        i += n
        k += 1
    return out


def prefix_through_match(chunks: list[str], pattern: str) -> str:
    """The text streamed up to and including the delta in which ``pattern`` first matches."""
    seen = ""
    for chunk in chunks:
        seen += chunk
        if re.search(pattern, seen):
            return seen
    raise ValueError(f"pattern {pattern!r} never matches")
