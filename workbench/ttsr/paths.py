"""The file paths a tool call touches, in the candidate forms path globs are matched against.

Also the small pieces of JavaScript semantics the reference's path and text handling rests on: Node's
POSIX ``path`` functions (``normalize``, ``resolve``, ``relative``, ``extname``) and the ECMAScript
whitespace set used by ``trim()`` and the regex class ``\\s``. All functions are pure: a session cwd is
always passed in, never read from the process.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.rules.jsstring import js_trim

# --- ECMAScript text semantics ------------------------------------------------------------------

# WhiteSpace + LineTerminator of ECMAScript: what `trim()` strips and the regex class `\s` matches.
# Python's `str.strip()` differs: it also strips \x1c-\x1f and \x85 but not \ufeff.
_WS_CLASS_BODY = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
#: Regex fragments equivalent to JavaScript's `\s`, `\S` and `.` (no `s` flag).
JS_WS = f"[{_WS_CLASS_BODY}]"
JS_NON_WS = f"[^{_WS_CLASS_BODY}]"
JS_DOT = "[^\\n\\r\\u2028\\u2029]"
#: JavaScript's multiline `^` and `$` (line ends include \r, \u2028 and \u2029, not only \n).
JS_LINE_START = "(?:(?<=[\\n\\r\\u2028\\u2029])|(?<![\\s\\S]))"
JS_LINE_END = "(?=[\\n\\r\\u2028\\u2029]|(?![\\s\\S]))"


# --- Node `path.posix` ----------------------------------------------------------------------------


def _normalize_segments(path: str, allow_above_root: bool) -> str:
    """Collapse ``.``, ``..`` and repeated slashes of ``path`` (Node's internal ``normalizeString``)."""
    stack: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if stack and stack[-1] != "..":
                stack.pop()
            elif allow_above_root:
                stack.append("..")
            continue
        stack.append(segment)
    return "/".join(stack)


def is_absolute(path: str) -> bool:
    """``path.posix.isAbsolute``."""
    return path.startswith("/")


def normalize(path: str) -> str:
    """``path.posix.normalize``: keeps a trailing slash and collapses a leading ``//`` (unlike
    ``posixpath.normpath``)."""
    if path == "":
        return "."
    absolute = is_absolute(path)
    trailing = path.endswith("/")
    body = _normalize_segments(path, not absolute)
    if body == "":
        if absolute:
            return "/"
        return "./" if trailing else "."
    if trailing:
        body += "/"
    return "/" + body if absolute else body


def resolve(*segments: str, cwd: str) -> str:
    """``path.posix.resolve(...segments)`` with ``cwd`` standing in for ``process.cwd()``."""
    resolved = ""
    resolved_absolute = False
    for segment in (*reversed(segments), cwd):
        if resolved_absolute:
            break
        if segment == "":
            continue
        resolved = f"{segment}/{resolved}"
        resolved_absolute = is_absolute(segment)
    body = _normalize_segments(resolved, not resolved_absolute)
    if resolved_absolute:
        return "/" + body
    return body or "."


def relative(from_path: str, to_path: str, *, cwd: str) -> str:
    """``path.posix.relative``: ``""`` when both resolve to the same path."""
    if from_path == to_path:
        return ""
    source = resolve(from_path, cwd=cwd)
    target = resolve(to_path, cwd=cwd)
    if source == target:
        return ""
    source_parts = [p for p in source.split("/") if p]
    target_parts = [p for p in target.split("/") if p]
    common = 0
    while common < len(source_parts) and common < len(target_parts) and source_parts[common] == target_parts[common]:
        common += 1
    ups = [".."] * (len(source_parts) - common)
    return "/".join(ups + target_parts[common:])


def extname(path: str) -> str:
    """``path.posix.extname``: ``'.bashrc'`` → ``''``, ``'a.'`` → ``'.'``, ``'..a'`` → ``'.a'``."""
    base = path.rstrip("/") if path.strip("/") else ""
    base = base[base.rfind("/") + 1 :]
    dot = base.rfind(".")
    if dot == -1:
        return ""
    # Node returns '' when the only dots are a leading run ('.bashrc', '..'), i.e. when every
    # character before the last dot is a dot and the last dot is the base's first character or
    # the base is exactly '..'.
    before = base[:dot]
    if before == "":
        return ""
    if base == "..":
        return ""
    return base[dot:]


# --- Path candidates ---------------------------------------------------------------------------


def path_candidates(raw: str, cwd: str) -> list[str]:
    """Every form of ``raw`` a path glob may be matched against, in the reference's order.

    Trimmed raw with ``\\`` → ``/``; without a leading ``./``; the absolute path (normalized if absolute,
    else resolved against ``cwd``); the cwd-relative path unless empty, ``.``, ``..`` or ``../``-prefixed
    (a name like ``..foo`` is kept, as in the reference). Duplicates removed, first position kept.
    """
    trimmed = js_trim(raw)
    if not trimmed:
        return []
    forward = trimmed.replace("\\", "/")
    candidates: dict[str, None] = {forward: None}
    if forward.startswith("./"):
        candidates[forward[2:]] = None
    # The reference resolves the trimmed text *before* replacing backslashes (on POSIX a backslash
    # is an ordinary character), then replaces them in the result.
    absolute = normalize(trimmed) if is_absolute(trimmed) else resolve(cwd, trimmed, cwd=cwd)
    candidates[absolute.replace("\\", "/")] = None
    rel = relative(cwd, absolute, cwd=cwd).replace("\\", "/")
    if rel and rel != "." and not rel.startswith("../") and rel != "..":
        candidates[rel] = None
    return list(candidates)


def argument_paths(args: Any) -> list[str] | None:
    """The argument scan: raw paths from keys named/ending ``path`` (string values) and keys named/
    ending ``paths`` (arrays; string items only), in key order. ``None`` when there are none."""
    if not isinstance(args, Mapping):
        return None
    raw: list[str] = []
    for key, value in args.items():
        lowered = str(key).lower()
        if isinstance(value, str) and lowered.endswith("path"):
            raw.append(value)
            continue
        if isinstance(value, (list, tuple)) and lowered.endswith("paths"):
            raw.extend(item for item in value if isinstance(item, str))
    return raw or None


def candidates_for(raw_paths: list[str], cwd: str) -> list[str]:
    """Candidates of several raw paths, flattened and de-duplicated in order."""
    seen: dict[str, None] = {}
    for raw in raw_paths:
        for candidate in path_candidates(raw, cwd):
            seen[candidate] = None
    return list(seen)
