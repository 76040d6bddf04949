"""The search text of a session entry, in Python: the rule the store's ``entries.text`` column holds.

After the tree's searchable text (docs/flavours.md, "Row text and search text"): for a message the text blocks of its content joined and
cut to ``CUT`` characters (tool output included; thinking and tool calls are not; the role has a
column of its own), or a bash execution's command; for other entries their kind in words and what a
person would look for in them (summaries in full).

The DuckDB ingest road computes the same text in SQL (``workbench.store``); values are rendered the
way DuckDB's ``json_extract_string`` renders them so both roads give identical rows (a test holds
them together).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["CUT", "json_str", "search_text"]

CUT = 200  # search text keeps the first 200 characters of a content, like the tree's search (docs/flavours.md, "Row text and search text")

# Entry kinds whose text is a word or two and one field of the entry.
_WORD_AND_FIELD: dict[str, tuple[str, str]] = {
    "compaction": ("compaction", "summary"),
    "branch_summary": ("branch summary", "summary"),
    "thinking_level_change": ("thinking", "thinkingLevel"),
    "custom": ("custom", "customType"),
    "label": ("label", "label"),
    "session_info": ("session info", "name"),
}


def json_str(value: Any) -> str | None:
    """A JSON value as DuckDB's ``json_extract_string`` renders it (strings bare, the rest compact JSON)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _content_text(content: Any, *, cut_string: bool = True) -> str | None:
    """Text blocks joined and cut; a plain string content is cut only for messages (the SQL does the same)."""
    if isinstance(content, list):
        blocks = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "".join(blocks)[:CUT] if blocks else None
    if isinstance(content, str):
        return content[:CUT] if cut_string else content
    return None


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p is not None)


def search_text(obj: Mapping[str, Any]) -> str | None:
    """The search text of one entry (its JSON object): the Python twin of the store's SQL."""
    kind = json_str(obj.get("type"))
    if kind == "message":
        msg = obj.get("message")
        msg = msg if isinstance(msg, dict) else {}
        text = _content_text(msg.get("content"))
        if text is None and msg.get("role") == "bashExecution":
            text = json_str(msg.get("command"))
        return text
    if kind == "custom_message":
        return _join(json_str(obj.get("customType")), _content_text(obj.get("content"), cut_string=False))
    if kind in _WORD_AND_FIELD:
        word, key = _WORD_AND_FIELD[kind]
        return _join(word, json_str(obj.get(key)))
    if kind == "ttsr_injection":
        rules = obj.get("injectedRules")
        names = [json_str(r) for r in rules if r is not None] if isinstance(rules, list) else []
        return _join("ttsr injection", " ".join(names) if names else None)  # type: ignore[arg-type]
    if kind == "model_change":
        model = json_str(obj.get("model"))
        return _join("model", model if model is not None else json_str(obj.get("modelId")))
    return kind.replace("_", " ") if kind is not None else None
