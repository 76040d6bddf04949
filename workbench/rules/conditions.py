"""Trigger fields of a rule's frontmatter: ``condition``, ``astCondition``, ``question`` and ``scope``.

This is the reference's ``parseRuleConditionAndScope``: string-or-list normalisation (lossy trimming
included), the legacy ``ttsr_trigger`` / ``ttsrTrigger`` keys, the scope tokenizer that respects
brackets and quotes, and the "file glob as condition" shorthand that turns ``*.rs`` into an
edit/write scope plus a catch-all ``.*`` condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.rules.jsstring import js_trim


@dataclass(frozen=True, slots=True)
class ConditionAndScope:
    """The trigger fields; ``None`` = absent."""

    condition: tuple[str, ...] | None = None
    ast_condition: tuple[str, ...] | None = None
    scope: tuple[str, ...] | None = None
    question: str | None = None


def normalize_question(value: Any) -> str | None:
    """A judged rule's ``question``: a string, trimmed; blank or not a string means absent.

    Only a single string counts (a list is ignored, not joined), as in the reference 18.3.
    """
    if not isinstance(value, str):
        return None
    return js_trim(value) or None


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def normalize_rule_field(value: Any) -> tuple[str, ...] | None:
    """A string -> one trimmed item; a list -> its trimmed non-empty string items, first wins; else None.

    The trimming is the reference's and it is lossy: ``"\\(ref mut "`` loses its trailing space.
    """
    if isinstance(value, str):
        text = js_trim(value)
        return (text,) if text else None
    if isinstance(value, list | tuple):
        items = _dedupe(t for t in (js_trim(v) for v in value if isinstance(v, str)) if t)
        return tuple(items) or None
    return None


_OPENERS = {"(": 0, "[": 1, "{": 2}
_CLOSERS = {")": 0, "]": 1, "}": 2}


def split_scope_tokens(text: str) -> list[str]:
    """Split a scope string on top-level commas (outside brackets and quotes); trimmed, empties dropped."""
    tokens: list[str] = []
    depth = [0, 0, 0]
    quote: str | None = None
    current: list[str] = []
    for index, char in enumerate(text):
        if quote is not None:
            current.append(char)
            if char == quote and (index == 0 or text[index - 1] != "\\"):
                quote = None
            continue
        if char in ("'", '"'):
            quote = char
        elif char in _OPENERS:
            depth[_OPENERS[char]] += 1
        elif char in _CLOSERS:
            slot = _CLOSERS[char]
            depth[slot] = max(0, depth[slot] - 1)  # never below zero, as the reference
        elif char == "," and depth == [0, 0, 0]:
            token = js_trim("".join(current))
            if token:
                tokens.append(token)
            current = []
            continue
        current.append(char)
    token = js_trim("".join(current))
    if token:
        tokens.append(token)
    return tokens


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] in ("'", '"') and token[-1] == token[0]:
        return js_trim(token[1:-1])
    return token


def normalize_scope_field(value: Any) -> tuple[str, ...] | None:
    """``scope``: normalise, split each entry into tokens, unquote, drop empties and duplicates."""
    entries = normalize_rule_field(value)
    if entries is None:
        return None
    tokens = (_unquote(tok) for entry in entries for tok in split_scope_tokens(entry))
    result = _dedupe(t for t in tokens if t)
    return tuple(result) or None


_NOT_GLOB_CHARS = set("\\^$+|()")
_GLOB_CHARS = set("?*[]{}")
_EXTENSION_GLOB = re.compile(r"^\*\.[^\s/]+$")


def is_likely_file_glob(token: str) -> bool:
    """The reference's heuristic for "this condition is a file glob, not a regex" (``*_test.go`` is not)."""
    text = js_trim(token)
    if not text:
        return False
    if any(ch in _NOT_GLOB_CHARS for ch in text):
        return False
    if not any(ch in _GLOB_CHARS for ch in text):
        return False
    if "/" in text:
        return True
    return bool(_EXTENSION_GLOB.match(text))


def _raw_condition(frontmatter: Mapping[str, Any]) -> Any:
    # JS `??`: only null/undefined fall through, so `condition: ""` blocks the legacy keys.
    for key in ("condition", "ttsr_trigger", "ttsrTrigger"):
        value = frontmatter.get(key)
        if value is not None:
            return value
    return None


def parse_rule_condition_and_scope(frontmatter: Mapping[str, Any]) -> ConditionAndScope:
    """``condition`` / ``astCondition`` / ``question`` / ``scope`` from (camelCased) frontmatter."""
    conditions = normalize_rule_field(_raw_condition(frontmatter)) or ()
    ast_condition = normalize_rule_field(frontmatter.get("astCondition"))
    explicit_scope = normalize_scope_field(frontmatter.get("scope")) or ()

    regexes: list[str] = []
    inferred: list[str] = []
    for token in conditions:
        if is_likely_file_glob(token):
            inferred += [f"tool:edit({token})", f"tool:write({token})"]
        else:
            regexes.append(token)
    if not regexes and inferred:
        regexes = [".*"]
    condition = tuple(_dedupe(regexes)) or None
    scope = tuple(_dedupe([*explicit_scope, *inferred])) or None
    return ConditionAndScope(condition=condition, ast_condition=ast_condition, scope=scope,
                             question=normalize_question(frontmatter.get("question")))
