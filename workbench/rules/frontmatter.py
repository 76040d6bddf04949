"""Markdown frontmatter: the reference's ``parseFrontmatter`` with YAML 1.2 core-schema semantics.

The reference parses with Bun's YAML 1.2 parser, so ``yes``/``on`` stay strings, ``010`` is 10,
``1_000`` and dates stay strings and ``.inf`` comes out as ``null``. PyYAML speaks YAML 1.1; the
``_Yaml12Loader`` below swaps its implicit resolvers and number constructors for the 1.2 core ones.

On a YAML error the reference retries once after quoting values that contain ``": "``, and if that
fails too it logs a warning and falls back to reading ``key: value`` lines one by one. Warnings are
returned (never printed) so callers can name the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from workbench.errors import RuleFileError
from workbench.rules.jsstring import JS_WHITESPACE, js_trim

WarnLevel = Literal["off", "warn", "fatal"]

PARSE_WARNING = "Failed to parse YAML frontmatter"

# JavaScript's String.prototype.trim set (Python's str.strip differs on \x1c-\x1f, \x85 and \ufeff).
class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit resolvers (as Bun's parser uses)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:  # type: ignore[override]
        # Keys become JS property names at once, so `1:` and `true:` cannot collide as 1 == True.
        self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, list | dict):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found an unhashable key", key_node.start_mark
                )
            mapping[_js_key(key)] = self.construct_object(value_node, deep=deep)
        return mapping


_Yaml12Loader.yaml_implicit_resolvers = {}
_RESOLVERS: list[tuple[str, str, str]] = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),  # type: ignore[list-item]
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
]
for _tag, _pattern, _first in _RESOLVERS:
    _Yaml12Loader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # YAML 1.2: a leading zero is still decimal ("010" -> 10)


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = loader.construct_scalar(node)
    if text.lstrip("+-").lower() == ".inf":
        return float("-inf") if text.startswith("-") else float("inf")
    if text.lower() == ".nan":
        return float("nan")
    return float(text)


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def load_yaml(text: str) -> Any:
    """Parse one YAML document with 1.2 core-schema semantics; raises ``yaml.YAMLError``.

    Infinities and NaN are kept here (they are non-null for the line fallback) and become ``None``
    in ``to_js_values``, which is how the reference's values come out.
    """
    return yaml.load(text, Loader=_Yaml12Loader)  # noqa: S506 - a SafeLoader subclass


def compose_frontmatter(content: str) -> yaml.Node | None:
    """The frontmatter's YAML node tree (``None`` when there is none or it is not YAML): its marks say
    where each key and item is, the file's 1-based line being ``mark.line + 2`` (after the ``---``).
    Split as ``parse_frontmatter`` does, but without removing HTML comments, which would move lines."""
    text = content.replace("\r\n", "\n").replace("\r", "\n")
    end = text.find("\n---", 3) if text.startswith("---") else -1
    if end == -1:
        return None
    try:
        return yaml.compose(text[4:end].replace("\t", "  "), Loader=_Yaml12Loader)  # noqa: S506 - SafeLoader
    except yaml.YAMLError:
        return None


def to_js_values(value: Any) -> Any:
    """String keys (JS object keys), whole floats as ints (JS numbers), non-finite numbers as null."""
    if isinstance(value, dict):
        return {_js_key(k): to_js_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_js_values(v) for v in value]
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        if value.is_integer():
            return int(value)
    return value


def _js_key(key: Any) -> str:
    """``String(key)`` as JavaScript would spell it."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        js = to_js_values(key)
        return "null" if js is None else str(js)
    return str(key)


@dataclass(frozen=True, slots=True)
class ParsedFrontmatter:
    """The result of ``parse_frontmatter``: the key/values, the body and any warnings (each names the source)."""

    frontmatter: dict[str, Any]
    body: str
    warnings: tuple[str, ...] = field(default=())

    @property
    def warned(self) -> bool:
        return bool(self.warnings)


_HTML_COMMENT = re.compile(r"<!--[\s\S]*?-->")
# The reference's line regexes, spelled with JavaScript's classes: ASCII \w, Unicode \s, and a `.`
# that stops at \r, \u2028 and \u2029 as well as \n.
_JS_S = f"[{JS_WHITESPACE}]"  # the set holds no class metacharacters, so no escaping
_JS_NOT_S = "[^" + _JS_S[1:]
_JS_DOT = "[^\\n\\r\u2028\u2029]"
_AMBIGUOUS_LINE = re.compile(
    rf"^({_JS_S}*[A-Za-z_][A-Za-z0-9_-]*:{_JS_S}+)({_JS_NOT_S}{_JS_DOT}*?)({_JS_S}*)$"
)
_FALLBACK_LINE = re.compile(rf"^([A-Za-z0-9_-]+):{_JS_S}*({_JS_DOT}*)$")
_KEBAB = re.compile(r"-([a-z])")


def normalize_keys(value: Any) -> Any:
    """kebab-case keys -> camelCase, recursively (``thinking-level`` -> ``thinkingLevel``)."""
    if isinstance(value, dict):
        return {
            (_KEBAB.sub(lambda m: m.group(1).upper(), k) if "-" in k else k): normalize_keys(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [normalize_keys(v) for v in value]
    return value


def _source_label(content: str, source: str | None) -> str:
    if source:
        return source
    shown = content if len(content) <= 64 else content[:63] + "…"
    return f"Inline '{shown}'"


def _quote_ambiguous_scalars(metadata: str) -> str | None:
    """The repair retry: JSON-quote plain values containing ``": "``; None when nothing changed."""
    changed = False
    lines = []
    for line in metadata.split("\n"):
        match = _AMBIGUOUS_LINE.match(line)
        if match:
            prefix, value, trailing = match.groups()
            if ": " in value and value[0] not in "\"'[{|>!&*#":
                line = prefix + json.dumps(value, ensure_ascii=False) + trailing
                changed = True
        lines.append(line)
    return "\n".join(lines) if changed else None


def _line_fallback(metadata: str) -> dict[str, Any]:
    """Per-line salvage after a YAML error: each ``key: value`` line reparsed alone."""
    result: dict[str, Any] = {}
    for line in metadata.split("\n"):
        match = _FALLBACK_LINE.match(line)
        if not match:
            continue
        key, raw = match.group(1), js_trim(match.group(2))
        value: Any = ""
        if raw:
            value = raw
            try:
                parsed = load_yaml(raw)
            except yaml.YAMLError:
                parsed = None
            if isinstance(parsed, list) or (parsed is not None and not isinstance(parsed, dict)):
                value = parsed
        result[key] = value
    return result


def _yaml_message(exc: yaml.YAMLError) -> str:
    """The parser's problem with a file line number (the metadata starts on line 2 of the file)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        where = f"line {mark.line + 2}, column {mark.column + 1}: " if mark is not None else ""
        return f"{where}{exc.problem}"
    return " ".join(part.strip() for part in str(exc).splitlines() if part.strip())


def parse_frontmatter(
    content: str,
    *,
    source: str | None = None,
    fallback: Mapping[str, Any] | None = None,
    normalize: bool = True,
    level: WarnLevel = "warn",
    repair: bool = True,
    raw_keys: bool = False,
) -> ParsedFrontmatter:
    """Split ``content`` into frontmatter and body as the reference's ``parseFrontmatter`` does.

    Quirks kept on purpose: HTML comments are removed from the whole text (body included); text not
    starting with ``---`` or without a closing ``\\n---`` has no frontmatter and an untrimmed body;
    YAML that is not a mapping counts as empty without a warning. With ``level="fatal"`` a parse
    failure raises ``RuleFileError`` instead of warning.
    """
    frontmatter: dict[str, Any] = dict(fallback or {})
    text = content
    if normalize:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if repair:
            text = _HTML_COMMENT.sub("", text)
    if not text.startswith("---"):
        return ParsedFrontmatter(frontmatter, text)
    end = text.find("\n---", 3)
    if end == -1:
        return ParsedFrontmatter(frontmatter, text)
    metadata = text[4:end]
    body = js_trim(text[end + 4 :])

    def finish(data: Mapping[str, Any], warnings: tuple[str, ...] = ()) -> ParsedFrontmatter:
        merged = {**frontmatter, **to_js_values(dict(data))}
        return ParsedFrontmatter(merged if raw_keys else normalize_keys(merged), body, warnings)

    yaml_text = metadata.replace("\t", "  ") if repair else metadata
    try:
        loaded = load_yaml(yaml_text)
    except yaml.YAMLError as first_error:
        if repair:
            quoted = _quote_ambiguous_scalars(yaml_text)
            if quoted is not None:
                try:
                    loaded = load_yaml(quoted)
                except yaml.YAMLError:
                    pass
                else:
                    return finish(loaded if isinstance(loaded, dict) else {})
        message = f"{PARSE_WARNING} ({_source_label(content, source)}): {_yaml_message(first_error)}"
        if level == "fatal":
            raise RuleFileError(f"{PARSE_WARNING}: {_yaml_message(first_error)}", path=source) from None
        warnings = (message,) if level == "warn" else ()
        return finish(_line_fallback(metadata), warnings)
    return finish(loaded if isinstance(loaded, dict) else {})
