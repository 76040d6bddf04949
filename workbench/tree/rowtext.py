"""One-line display text and searchable text of a tree row (docs/flavours.md, "Row text and search text").

What differs between the flavours is a ``RowRules`` value each flavour object holds; nothing here
knows a flavour's name.

JS string semantics are reproduced where users can see them: ``undefined``/``null`` spelled out in
display text, emptied in search text; cuts count UTF-16 code units.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.sessions import js_number

MISSING: Any = object()
_JS_WS = " \t\n\r\u000b\u000c\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def len16(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def cut16(text: str, n: int) -> str:
    """``text.slice(0, n)`` in UTF-16 units (an astral character cut in half is dropped)."""
    if text.isascii() or not _ASTRAL.search(text, 0, n):
        return text[:n]
    units = 0
    for i, c in enumerate(text):
        units += 2 if ord(c) > 0xFFFF else 1
        if units > n:
            return text[:i]
    return text


def js_str(value: Any) -> str:
    """``String(value)`` / template conversion; ``MISSING`` is ``undefined``."""
    if type(value) is str:  # the common case, first
        return value
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return str(int(value))
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return ",".join("" if v is None else js_str(v) for v in value)
    if isinstance(value, Mapping):
        return "[object Object]"
    return str(value)


def norm(text: str) -> str:
    return text.replace("\n", " ").replace("\t", " ").strip(_JS_WS)


def extract(content: Any) -> str:
    """Text of message content: a string cut to 200, or text blocks joined and cut once 200 is reached."""
    # Each row's text goes through here: the usual ASCII text skips the UTF-16 helpers (for ASCII a
    # UTF-16 length is the length, and a cut is a slice).
    if isinstance(content, str):
        return content[:200] if content.isascii() else cut16(content, 200)
    if isinstance(content, list):
        out = ""
        for block in content:
            # ``type(...) is dict`` first: the ABC check is slow and JSON gives plain dicts.
            if (type(block) is dict or isinstance(block, Mapping)) and block.get("type") == "text":
                text = block.get("text", MISSING)
                out += text if type(text) is str else js_str(text)
                if len(out) >= 200 or (not out.isascii() and len16(out) >= 200):
                    return cut16(out, 200)
        return out
    return ""


def _join_text_blocks(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(js_str(b.get("text", MISSING)) for b in content if isinstance(b, Mapping) and b.get("type") == "text")
    return ""


def js_truthy(value: Any) -> bool:
    if type(value) is str:  # the usual value, first
        return value != ""
    if isinstance(value, float) and math.isnan(value):
        return False  # NaN is falsy in JS
    return value is not MISSING and value is not None and value is not False and value != "" and value != 0


def shorten_path(path: Any, home: str | None) -> str:
    """``shortenPath`` of omp 17 and pi: any value as a string, the home prefix as ``~``."""
    text = js_str(path)
    if home and text.startswith(home):
        return "~" + text[len(home):]
    return text


def _path_scope(value: Any) -> str:
    """``toPathList`` joined with ", " (a JSON-encoded string array is unpacked), or "." when empty."""
    items: list[Any]
    if isinstance(value, str):
        items = [value]
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, list) and all(isinstance(p, str) for p in parsed):
                items = parsed
    else:
        items = list(value) if isinstance(value, list) else []
    return ", ".join("" if v is None else js_str(v) for v in items) if items else "."


def shorten18(path: Any, home: str | None) -> str:
    """pi-tui 18's ``shortenPath``: only a string; the home prefix must end at a path separator."""
    if not isinstance(path, str):
        return ""
    if home and path.startswith(home):
        rest = path[len(home):]
        if rest == "" or rest.startswith(("/", "\\")):
            return "~" + rest.replace("\\", "/")
    return path


@dataclass(frozen=True, slots=True)
class RowRules:
    """The row-text quirks of one flavour (the defaults: pi-mono and oh-my-pi 5.7)."""

    omp_tools: bool = False  # grep and glob rows name the paths they search; no find row (oh-my-pi)
    shorten: Callable[[Any, str | None], str] = shorten_path  # a tool path with home as "~"
    developer_rows: bool = False  # a developer message has a row of its own
    abort_texts: bool = False  # an aborted or failed turn shows its error (or "Operation aborted")
    model_key: str = "model"  # the model_change field the row shows
    thinking_off: bool = False  # a missing thinking level reads "off"
    dots_are_empty: bool = False  # text of only dots and ellipses counts as no text


def _js_plus(a: Any, b: Any) -> Any:
    """JS ``a + b`` on JSON values: a string on either side concatenates, otherwise numbers add."""
    if isinstance(a, str) or isinstance(b, str) or isinstance(a, (list, Mapping)) or isinstance(b, (list, Mapping)):
        return js_str(a) + js_str(b)
    total = js_number(a) + js_number(b)
    return int(total) if math.isfinite(total) and total.is_integer() else total


def _js_minus_one(value: Any) -> Any:
    """JS ``value - 1``: always numeric (a string is converted, NaN when it is not a number)."""
    out = js_number(value) - 1
    return int(out) if math.isfinite(out) and out.is_integer() else out


def _or(args: Mapping[str, Any], *keys: str, default: Any = "") -> Any:
    for key in keys:
        value = args.get(key, MISSING)
        if type(value) is str:  # js_truthy's first case, without the call
            if value:
                return value
        elif js_truthy(value):
            return value
    return default


def format_tool_call(name: str, args: Any, *, home: str | None, rules: RowRules) -> str:
    if type(args) is not dict and not isinstance(args, Mapping):
        args = {}
    shorten = rules.shorten
    if name == "read":
        p = shorten(js_str(_or(args, "path", "file_path")), home)
        offset, limit = args.get("offset", MISSING), args.get("limit", MISSING)
        if offset is not MISSING or limit is not MISSING:
            start = offset if offset is not MISSING and offset is not None else 1
            end: Any = ""
            if limit is not MISSING:
                end = _js_minus_one(_js_plus(start, limit))
            p += ":" + js_str(start) + ("-" + js_str(end) if js_truthy(end) else "")
        return f"[read: {p}]"
    if name in ("write", "edit"):
        return f"[{name}: {shorten(js_str(_or(args, 'path', 'file_path')), home)}]"
    if name == "bash":
        raw = js_str(_or(args, "command"))
        return f"[bash: {cut16(norm(raw), 50)}{'...' if len16(raw) > 50 else ''}]"
    if name == "grep":
        # Every agent reads the pattern as ``String(args.pattern || "")``: a missing one is empty,
        # never "undefined".
        pattern = js_str(_or(args, "pattern"))
        if rules.omp_tools:
            scope = _path_scope(args.get("paths") if isinstance(args.get("paths"), (str, list)) else
                                args.get("path") if isinstance(args.get("path"), str) else None)
            # The joined list is shortened once, as a whole (only its first path can lose the home).
            return f"[grep: /{pattern}/ in {shorten(scope, home)}]"
        return f"[grep: /{pattern}/ in {shorten_path(_or(args, 'path', default='.'), home)}]"
    if name == "find" and not rules.omp_tools:
        return f"[find: {js_str(_or(args, 'pattern'))} in {shorten_path(_or(args, 'path', default='.'), home)}]"
    if name == "glob" and rules.omp_tools:
        # omp renders a glob call by where it looks, not by its pattern: no path reads "[glob: .]".
        path = args.get("path")
        paths = args.get("paths")
        scope = _path_scope(path if isinstance(path, str) else paths if isinstance(paths, (str, list)) else None)
        return f"[glob: {shorten(scope, home)}]"
    if name == "ls":
        return f"[ls: {shorten(js_str(_or(args, 'path', default='.')), home)}]"
    j = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    return f"[{name}: {cut16(j, 40)}{'...' if len16(j) > 40 else ''}]"


def _meaningful(s: str, rules: RowRules) -> bool:
    t = s.strip(_JS_WS)
    if rules.dots_are_empty:
        t = t.replace(".", "").replace("…", "").strip(_JS_WS)
    return bool(t)


def _has_text(content: Any, rules: RowRules) -> bool:
    if isinstance(content, str):
        return _meaningful(content, rules)
    if isinstance(content, list):
        # A plain loop with ``type(b) is dict`` first: this runs for every assistant message of a tree.
        for b in content:
            if (type(b) is dict or isinstance(b, Mapping)) and b.get("type") == "text":
                text = b.get("text")
                if isinstance(text, str) and _meaningful(text, rules):
                    return True
    return False


def tool_call_only(msg: Mapping[str, Any], rules: RowRules) -> bool:
    """The tool-call-only assistant rule (the filters' first step) for an assistant message's ``message`` object,
    without the "is the current leaf" exception (the caller applies it)."""
    if _has_text(msg.get("content"), rules):
        return False
    stop = msg.get("stopReason")
    return not stop or stop in ("stop", "toolUse")


def display_text(obj: Mapping[str, Any], *, rules: RowRules, tool_calls: Mapping[str, Any], home: str | None) -> str:
    etype = obj.get("type")
    if etype == "message":
        msg = obj.get("message")
        if type(msg) is not dict and not isinstance(msg, Mapping):
            return "[undefined]"
        role = msg.get("role", MISSING)
        content = msg.get("content")
        if role == "user":
            return "user: " + norm(extract(content))
        if role == "developer" and rules.developer_rows:
            return "developer: " + norm(extract(content))
        if role == "assistant":
            text = norm(extract(content))
            if text:
                return "assistant: " + text
            stop = msg.get("stopReason")
            error = msg.get("errorMessage")
            if rules.abort_texts:
                if stop == "aborted":
                    if msg.get("silent") or msg.get("userInterrupt"):
                        return "assistant: (aborted)"
                    return "assistant: " + cut16(norm(js_str(error)) if js_truthy(error) else "Operation aborted", 80)
                if stop == "error":
                    return "assistant: " + cut16(norm(js_str(error)) if js_truthy(error) else "Error", 80)
            if stop == "aborted":
                return "assistant: (aborted)"
            if js_truthy(error):
                return "assistant: " + cut16(norm(js_str(error)), 80)
            return "assistant: (no content)"
        if role == "toolResult":
            call = tool_calls.get(msg.get("toolCallId")) if isinstance(msg.get("toolCallId"), str) else None  # type: ignore[arg-type]
            if call is not None:
                return format_tool_call(js_str(call[0]), call[1], home=home, rules=rules)
            name = msg.get("toolName")
            return f"[{js_str(name) if name is not None else 'tool'}]"
        if role == "bashExecution":
            cmd = msg.get("command")
            return "[bash]: " + norm(js_str(cmd) if cmd is not None else "")
        return f"[{js_str(role)}]"
    if etype == "custom_message":
        return f"[{js_str(obj.get('customType', MISSING))}]: " + norm(_join_text_blocks(obj.get("content")))
    if etype == "compaction":
        tokens = obj.get("tokensBefore")
        try:
            k = js_str(math.floor(float(tokens) / 1000 + 0.5))  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            k = "NaN"
        return f"[compaction: {k}k tokens]"
    if etype == "branch_summary":
        return "[branch summary]: " + norm(js_str(obj.get("summary", MISSING)))
    if etype == "model_change":
        return f"[model: {js_str(obj.get(rules.model_key, MISSING))}]"
    if etype == "thinking_level_change":
        level = obj.get("thinkingLevel", MISSING)
        if rules.thinking_off and (level is None or level is MISSING):
            level = "off"
        return f"[thinking: {js_str(level)}]"
    if etype == "custom":
        return f"[custom: {js_str(obj.get('customType', MISSING))}]"
    if etype == "label":
        label = obj.get("label")
        return f"[label: {js_str(label) if label is not None else '(cleared)'}]"
    return ""


def _part(value: Any) -> str:
    return "" if value is None or value is MISSING else js_str(value)


def search_text(obj: Mapping[str, Any], label: str | None, *, rules: RowRules) -> str:
    parts: list[str] = []
    if label:
        parts.append(label)
    etype = obj.get("type")
    if etype == "message":
        msg = obj.get("message")
        if type(msg) is dict or isinstance(msg, Mapping):
            parts.append(_part(msg.get("role")))
            content = msg.get("content", MISSING)
            if js_truthy(content):  # JS truthiness: an empty array still counts
                parts.append(extract(content))
            if msg.get("role") == "bashExecution" and js_truthy(msg.get("command", MISSING)):
                parts.append(js_str(msg.get("command")))
    elif etype == "custom_message":
        parts.append(_part(obj.get("customType")))
        content = obj.get("content")
        parts.append(content if isinstance(content, str) else extract(content))
    elif etype == "compaction":
        parts.append("compaction")
    elif etype == "branch_summary":
        parts += ["branch summary", _part(obj.get("summary"))]
    elif etype == "model_change":
        parts += ["model", _part(obj.get(rules.model_key))]
    elif etype == "thinking_level_change":
        level = obj.get("thinkingLevel")
        parts += ["thinking", "off" if rules.thinking_off and level is None else _part(level)]
    elif etype == "custom":
        parts += ["custom", _part(obj.get("customType"))]
    elif etype == "label":
        parts += ["label", _part(obj.get("label"))]
    return " ".join(parts)
