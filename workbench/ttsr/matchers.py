"""Tool matcher surfaces: what the manager sees of a (possibly partial) tool call.

A tool may project its arguments onto three surfaces: a *digest* (the text the call introduces into
files, without patch grammar), *paths* (the files it touches, even when they live inside the payload)
and *entries* (one ``(path, digest)`` pair per touched file, so a path-scoped rule only sees the lines
added to files it applies to). ``write`` exposes only a digest; the edit tool's surfaces depend on the
edit mode. Every function here takes the arguments as parsed so far and never raises on odd shapes:
a missing or mistyped field means "nothing recoverable yet" (``None``), as in the reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workbench.rules.jsstring import js_trim
from workbench.ttsr.paths import (
    JS_DOT,
    JS_LINE_END,
    JS_LINE_START,
    JS_NON_WS,
    JS_WS,
    argument_paths,
    candidates_for,
)

EditMode = Literal["replace", "patch", "hashline", "apply_patch", "sloppy"]
EDIT_MODES: tuple[str, ...] = ("replace", "patch", "hashline", "apply_patch", "sloppy")
DEFAULT_EDIT_MODE: EditMode = "replace"


@dataclass(frozen=True, slots=True)
class MatcherEntry:
    """One touched file and the lines the call adds to it."""

    path: str
    digest: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "digest": self.digest}


def _field(args: Any, key: str) -> Any:
    """``args?.[key]``: ``None`` for absent keys and for arguments that are not an object."""
    return args.get(key) if isinstance(args, Mapping) else None


def extract_added_lines(text: str, fallback_to_whole: bool) -> str:
    """The ``+`` lines of a patch-like text without their ``+`` (``+++ `` headers excluded), joined
    with ``\\n``. With no such line: the whole text if ``fallback_to_whole``, else ``""``."""
    added = [line[1:] for line in text.split("\n") if line.startswith("+") and not line.startswith("+++ ")]
    if not added:
        return text if fallback_to_whole else ""
    return "\n".join(added)


def _merge_by_path(pairs: list[tuple[str, str]]) -> list[MatcherEntry]:
    """Same-path digests joined with ``\\n`` in first-seen path order; empty digests skipped."""
    merged: dict[str, str] = {}
    for path, added in pairs:
        if not added:
            continue
        merged[path] = added if path not in merged else f"{merged[path]}\n{added}"
    return [MatcherEntry(path, digest) for path, digest in merged.items()]


# --- replace / patch: the path is a top-level argument --------------------------------------------


def _top_level_paths(args: Any) -> list[str] | None:
    path = _field(args, "path")
    return [path] if isinstance(path, str) and path else None


def _single_entry(args: Any, digest: str | None) -> list[MatcherEntry] | None:
    path = _field(args, "path")
    if not isinstance(path, str) or not path or digest is None:
        return None
    return [MatcherEntry(path, digest)]


def _replace_digest(args: Any) -> str | None:
    new_string = _field(args, "new_string")
    return new_string if isinstance(new_string, str) else None


def _patch_digest(args: Any) -> str | None:
    edits = _field(args, "edits")
    if not isinstance(edits, list):
        return None
    digest: str | None = None
    for edit in edits:
        diff = _field(edit, "diff")
        if not isinstance(diff, str):
            continue
        # A `create` op carries the whole new file with no +/- markers: it passes through whole.
        added = extract_added_lines(diff, _field(edit, "op") == "create")
        digest = added if digest is None else f"{digest}\n{added}"
    return digest


# --- hashline: `[path#TAG]` section headers -------------------------------------------------------


class _LineRegex:
    """A JavaScript multiline (`m`) regex: `^`/`$` also meet at \\r, \\u2028 and \\u2029. Text without
    those uses an equivalent pattern on Python's own (faster) anchors."""

    def __init__(self, body: str) -> None:
        self.exact = re.compile(f"{JS_LINE_START}{body}{JS_LINE_END}")
        self.fast = re.compile(f"^{body}$", re.M)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        exotic = "\r" in text or "\u2028" in text or "\u2029" in text
        return (self.exact if exotic else self.fast).finditer(text)


# JavaScript `/^\s*\[([^\]\r\n]+?)(?:#[0-9a-fA-F]{4})?\]\s*$/gm`; `\s` may span lines, as there.
_HASHLINE_HEADER = _LineRegex(f"{JS_WS}*\\[([^\\]\\r\\n]+?)(?:#[0-9a-fA-F]{{4}})?\\]{JS_WS}*")
# Noise a model pastes into a header: `*** Update File: …` / `*** Move to: …` (ASCII-only case folding,
# as JavaScript's `i` flag without `u`).
_ENVELOPE_NOISE = re.compile(
    f"\\A{JS_WS}*\\*{{3}}{JS_WS}*(?:Add|Update|Delete){JS_WS}+File{JS_WS}*:{JS_WS}*", re.I | re.A
)
_MOVE_NOISE = re.compile(f"\\A{JS_WS}*\\*{{3}}{JS_WS}*Move{JS_WS}+to{JS_WS}*:{JS_WS}*", re.I | re.A)


def _hashline_text(args: Any) -> Any:
    # `args.input ?? args._input`: providers that still emit the legacy `_input` key.
    value = _field(args, "input")
    return value if value is not None else _field(args, "_input")


def _header_path(captured: str) -> str:
    stripped = _MOVE_NOISE.sub("", _ENVELOPE_NOISE.sub("", captured, count=1), count=1)
    return js_trim(stripped)


def _hashline_sections(text: str) -> list[tuple[str, int, int]]:
    """(path, header start, body start) of every header line with a non-empty path."""
    sections = []
    for match in _HASHLINE_HEADER.finditer(text):
        path = _header_path(match.group(1))
        if path:
            sections.append((path, match.start(), match.end()))
    return sections


def _hashline_digest(args: Any) -> str | None:
    text = _hashline_text(args)
    return extract_added_lines(text, False) if isinstance(text, str) else None


def _hashline_paths(args: Any) -> list[str] | None:
    text = _hashline_text(args)
    if not isinstance(text, str) or not text:
        return None
    return [path for path, _, _ in _hashline_sections(text)] or None


def _hashline_entries(args: Any) -> list[MatcherEntry] | None:
    text = _hashline_text(args)
    if not isinstance(text, str) or not text:
        return None
    sections = _hashline_sections(text)
    pairs = []
    for index, (path, _, body_start) in enumerate(sections):
        body_end = sections[index + 1][1] if index + 1 < len(sections) else len(text)
        pairs.append((path, extract_added_lines(text[body_start:body_end], False)))
    return _merge_by_path(pairs) or None


# --- apply_patch: the Codex `*** Begin Patch` envelope -------------------------------------------

_ENVELOPE_PATH = _LineRegex(
    f"{JS_WS}*\\*{{3}}{JS_WS}+(?:Add|Update|Delete){JS_WS}+File{JS_WS}*:{JS_WS}*({JS_NON_WS}{JS_DOT}*?){JS_WS}*"
)
_ADD, _DELETE, _UPDATE, _MOVE = "*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:"
_FILE_OPS = (_UPDATE, _ADD, _DELETE)


class _EnvelopeError(ValueError):
    """The strict parser rejected the envelope (the reference then retries leniently)."""


def parse_envelope(text: str, *, streaming: bool) -> list[tuple[str, str, str | None]]:
    """Hunks ``(path, op, diff)`` of an apply_patch envelope.

    Strict mode raises ``ValueError`` on a malformed envelope; streaming mode tolerates a missing
    ``*** End Patch`` and stops at the first line it cannot read. An Add File hunk's diff is its
    content (the ``+`` stripped), so it carries no added lines of its own — as in the reference,
    whose per-file entries therefore skip plain added files.
    """
    lines = js_trim(text).split("\n")
    if len(lines) >= 2 and lines[0] in ("<<EOF", "<<'EOF'", '<<"EOF"') and js_trim(lines[-1]) == "EOF":
        lines = lines[1:-1]
    if not lines or js_trim(lines[0]) != "*** Begin Patch":
        if streaming:
            return []
        raise _EnvelopeError("The first line of the patch must be '*** Begin Patch'")
    has_end = js_trim(lines[-1]) == "*** End Patch"
    if not has_end and not streaming:
        raise _EnvelopeError("The last line of the patch must be '*** End Patch'")
    remaining = lines[1:-1] if has_end else lines[1:]
    hunks: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(remaining):
        first = js_trim(remaining[i])
        if first == "":
            i += 1
            continue
        marker = next((m for m in (_ADD, _DELETE, _UPDATE) if first.startswith(m)), None)
        if marker is None:
            if streaming:
                break
            raise _EnvelopeError(f"'{first}' is not a valid hunk header")
        path = js_trim(first[len(marker) :])
        if not path and not streaming:
            raise _EnvelopeError(f"'{first}' is not a valid hunk header")
        i += 1
        if marker == _ADD:
            content = []
            while i < len(remaining) and remaining[i].startswith("+"):
                content.append(remaining[i][1:] + "\n")
                i += 1
            hunks.append((path, "create", "".join(content)))
        elif marker == _DELETE:
            hunks.append((path, "delete", None))
        else:
            if i < len(remaining) and remaining[i].startswith(_MOVE):
                if not js_trim(remaining[i][len(_MOVE) :]) and not streaming:
                    raise _EnvelopeError("'*** Move to:' is missing a destination path")
                i += 1
            body = []
            while i < len(remaining) and not remaining[i].startswith(_FILE_OPS):
                body.append(remaining[i])
                i += 1
            if not body and not streaming:
                raise _EnvelopeError(f"Update file hunk for path '{path}' is empty")
            hunks.append((path, "update", "\n".join(body)))
    return hunks


def _envelope_hunks(text: str) -> list[tuple[str, str, str | None]]:
    """Strict parse (an empty result counts as failure), else the streaming-tolerant one."""
    try:
        hunks = parse_envelope(text, streaming=False)
        if hunks:
            return hunks
    except _EnvelopeError:
        pass
    return parse_envelope(text, streaming=True)


def _apply_patch_digest(args: Any) -> str | None:
    text = _field(args, "input")
    return extract_added_lines(text, False) if isinstance(text, str) else None


def _apply_patch_paths(args: Any) -> list[str] | None:
    text = _field(args, "input")
    if not isinstance(text, str) or not text:
        return None
    paths = [js_trim(m.group(1)) for m in _ENVELOPE_PATH.finditer(text)]
    return [p for p in paths if p] or None


def _apply_patch_entries(args: Any) -> list[MatcherEntry] | None:
    text = _field(args, "input")
    if not isinstance(text, str) or not text:
        return None
    pairs = [
        (path, extract_added_lines(diff, False)) for path, _, diff in _envelope_hunks(text) if isinstance(diff, str)
    ]
    return _merge_by_path(pairs) or None


# --- sloppy: `[path]` sections of `«` operations --------------------------------------------------

_SLOPPY_HEADER = re.compile(r"\[([^\]\n]+)\]")
_SLOPPY_OPENER = "«"


def split_sloppy_sections(text: str) -> list[tuple[str, str]]:
    """``(path, body)`` per file of a sloppy payload; same-path sections merged in order.

    The first line must be a ``[path]`` header; a later header line opens a section only when the next
    non-blank line starts an operation (``«``), so content that merely looks like a header stays put.
    """
    lines = text.split("\n")
    if not lines or not _SLOPPY_HEADER.fullmatch(lines[0]):
        return []
    bodies: dict[str, list[str]] = {}
    current: str | None = None
    pending: list[str] = []

    def opens_operation(start: int) -> bool:
        for line in lines[start:]:
            trimmed = js_trim(line)
            if trimmed:
                return trimmed.startswith(_SLOPPY_OPENER)
        return False

    for index, line in enumerate(lines):
        header = _SLOPPY_HEADER.fullmatch(line)
        if header and (index == 0 or opens_operation(index + 1)):
            if current is not None:
                bodies.setdefault(current, []).extend(pending)
            current, pending = header.group(1), []
            continue
        pending.append(line)
    if current is not None:
        bodies.setdefault(current, []).extend(pending)
    return [(path, "\n".join(body)) for path, body in bodies.items()]


def _sloppy_digest(args: Any) -> str | None:
    text = _field(args, "input")
    return text if isinstance(text, str) else None


def _sloppy_paths(args: Any) -> list[str] | None:
    text = _field(args, "input")
    if not isinstance(text, str):
        return None
    return [path for path, _ in split_sloppy_sections(text)] or None


def _sloppy_entries(args: Any) -> list[MatcherEntry] | None:
    text = _field(args, "input")
    if not isinstance(text, str):
        return None
    return [MatcherEntry(path, body) for path, body in split_sloppy_sections(text)] or None


# --- The strategy table and the tools ------------------------------------------------------------

Surface = Callable[[Any], Any]
Entries = list[MatcherEntry] | None

#: ``EDIT_MODE_STRATEGIES[mode][method](args)``, methods named as in the reference.
EDIT_MODE_STRATEGIES: dict[str, dict[str, Surface]] = {
    mode: {"matcherDigest": digest, "matcherPaths": paths, "matcherEntries": entries}
    for mode, digest, paths, entries in (
        ("replace", _replace_digest, _top_level_paths, lambda a: _single_entry(a, _replace_digest(a))),
        ("patch", _patch_digest, _top_level_paths, lambda a: _single_entry(a, _patch_digest(a))),
        ("hashline", _hashline_digest, _hashline_paths, _hashline_entries),
        ("apply_patch", _apply_patch_digest, _apply_patch_paths, _apply_patch_entries),
        ("sloppy", _sloppy_digest, _sloppy_paths, _sloppy_entries),
    )
}


@dataclass(frozen=True, slots=True)
class ToolMatchers:
    """The matcher hooks of one tool; a hook that is ``None`` is absent on the tool."""

    name: str
    wire_name: str | None
    digest: Surface | None
    paths: Surface | None
    entries: Surface | None


def _write_digest(args: Any) -> str | None:
    content = _field(args, "content")
    return content if isinstance(content, str) else None


_WRITE = ToolMatchers("write", None, _write_digest, None, None)


def resolve_tool(name: str | None, edit_mode: str | None = DEFAULT_EDIT_MODE) -> ToolMatchers | None:
    """The tool a call named ``name`` resolves to: by name first, then by wire name (the edit tool in
    ``apply_patch`` mode is called ``apply_patch`` on the wire). ``None`` for tools without hooks.

    With no known edit mode (``None``), a call named ``apply_patch`` implies that mode, since only
    then does the agent offer a tool by that name; otherwise the default mode applies.
    """
    mode = edit_mode or ("apply_patch" if name == "apply_patch" else DEFAULT_EDIT_MODE)
    strategy = EDIT_MODE_STRATEGIES.get(mode)
    if name == "write":
        return _WRITE
    if strategy is None:
        return None
    wire = "apply_patch" if mode == "apply_patch" else None
    if name == "edit" or (wire is not None and name == wire):
        return ToolMatchers(
            "edit", wire, strategy["matcherDigest"], strategy["matcherPaths"], strategy["matcherEntries"]
        )
    return None


def matcher_digest(tool_name: str | None, args: Any, *, edit_mode: str | None = DEFAULT_EDIT_MODE) -> str | None:
    """The tool's digest of ``args``, or ``None`` (no hook, or nothing recoverable yet)."""
    tool = resolve_tool(tool_name, edit_mode)
    return tool.digest(args) if tool and tool.digest else None


def matcher_paths(tool_name: str | None, args: Any, *, edit_mode: str | None = DEFAULT_EDIT_MODE) -> list[str] | None:
    """The raw paths the tool reads out of ``args`` (not yet candidates), or ``None``."""
    tool = resolve_tool(tool_name, edit_mode)
    return (tool.paths(args) or None) if tool and tool.paths else None


def matcher_entries(tool_name: str | None, args: Any, *, edit_mode: str | None = DEFAULT_EDIT_MODE) -> Entries:
    """Per-file entries of ``args``; ``None`` unless at least one entry is recoverable."""
    tool = resolve_tool(tool_name, edit_mode)
    return (tool.entries(args) or None) if tool and tool.entries else None


def tool_file_paths(tool_name: str | None, args: Any, cwd: str, edit_mode: str = "replace") -> list[str] | None:
    """``filePaths`` of a tool-call match context: the tool's ``matcherPaths`` as candidates when it
    yields any, else the argument scan's candidates; ``None`` when neither finds a path."""
    tool_paths = matcher_paths(tool_name, args, edit_mode=edit_mode) if tool_name else None
    if tool_paths:
        normalized = candidates_for(list(tool_paths), cwd)
        if normalized:
            return normalized
    raw = argument_paths(args)
    if raw is None:
        return None
    normalized = candidates_for(raw, cwd)
    return normalized or None
