"""The rule playground: one rule against one pasted text, every match laid open, as the agent sees it.

What regex101 and the ast-grep playground give, with the agent's semantics: conditions are compiled as
the manager compiles them (the leading ``(?ims)`` group becomes flags, JavaScript syntax, UTF-16 code
units), the text passes the same scope and path gates through a real ``TtsrManager``, and
``astCondition`` patterns run on the snippet with the language the file extension names. Positions
are Python string indexes of the pasted text (what the UI highlights), with line and column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import regress
from ast_grep_py import SgRoot

from workbench.errors import InputError
from workbench.ttsr.ast import NATIVE_ALIASES, SUPPORTED_TEXT, language_for, native_pattern, parse_language
from workbench.ttsr.code_units import engine_text
from workbench.ttsr.conditions import compile_rule_condition, engine_to_text_index, split_flags
from workbench.ttsr.context import MatchContext, MatchSource
from workbench.ttsr.manager import TtsrManager
from workbench.ttsr.pattern_lexer import structural_chars

_METAVAR = re.compile(r"\$(\$\$)?([A-Z_][A-Z0-9_]*)")


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    text: str
    line: int  # 1-based
    column: int  # 1-based, in characters


@dataclass(frozen=True, slots=True)
class RegexHit:
    """One match of a condition: the whole match and each capture group (None = did not take part)."""

    match: Span
    groups: tuple[Span | None, ...]
    names: tuple[tuple[str, int], ...] = ()  # (group name, group number)


@dataclass(frozen=True, slots=True)
class ConditionReport:
    """A condition tried on a body of text: the pattern as written, the JavaScript flags it carries,
    where it fails to parse (``error``, ``error_position``) or every hit with its groups."""

    pattern: str
    body: str
    flags: str
    error: str | None = None
    error_position: int | None = None  # index into ``pattern`` of the first character that cannot parse
    hits: tuple[RegexHit, ...] = ()


@dataclass(frozen=True, slots=True)
class AstHit:
    node: Span
    kind: str
    bindings: tuple[tuple[str, tuple[Span, ...]], ...]  # `$A` → one span, `$$$A` → several


@dataclass(frozen=True, slots=True)
class AstReport:
    pattern: str
    language: str | None
    error: str | None = None
    hits: tuple[AstHit, ...] = ()


@dataclass(frozen=True, slots=True)
class PlaygroundReport:
    """Everything the playground shows for one rule and one text."""

    source: MatchSource
    tool_name: str | None
    path: str | None
    registered: bool
    rejected: str | None  # why the manager refused the rule (then nothing below fires)
    fires: bool  # the manager's own answer for this text in this context
    why: str | None  # the first gate that failed, None when it fires
    conditions: tuple[ConditionReport, ...] = ()
    ast: tuple[AstReport, ...] = ()
    tree: str | None = None  # the snippet's syntax tree outline, for an AST rule
    parse_errors: tuple[Span, ...] = ()  # ERROR / MISSING nodes of that tree
    warnings: tuple[str, ...] = field(default=())


def _span(text: str, start: int, end: int) -> Span:
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return Span(start, end, text[start:end], line, column)


def _text_index(text: str, etext: str, raw: bytes, byte: int) -> int:
    """A byte offset into the engine's UTF-8 text back to an index of ``text`` (see ``engine_text``)."""
    return engine_to_text_index(text, etext, len(raw[:byte].decode("utf-8", "surrogatepass")))


def error_position(body: str, flags: str) -> int | None:
    """Where ``body`` stops being a valid JavaScript pattern (the engine's errors name no place).

    A stray ``)`` or an unclosed group is reported at that parenthesis; otherwise the culprit is the
    character after the longest prefix that parses once its open class and groups are closed.
    """
    opens: list[int] = []
    for i, ch, _depth in structural_chars(body):
        if ch == "(":
            opens.append(i)
        elif ch == ")":
            if not opens:
                return i
            opens.pop()
    if opens and _compiles(body + ("]" if _ends_in_class(body) else "") + ")" * len(opens), flags):
        return opens[-1]  # closing the groups is all it takes: the innermost open one is the culprit
    for k in range(len(body) - 1, -1, -1):
        prefix = body[:k]
        if _ends_in_escape(prefix):
            continue  # an escape needs the character after it
        depth = sum(1 if c == "(" else -1 for _, c, _ in structural_chars(prefix) if c in "()")
        if _compiles(prefix + ("]" if _ends_in_class(prefix) else "") + ")" * max(depth, 0), flags):
            return k  # the longest prefix that still parses ends just before the culprit
    return 0


def _ends_in_escape(text: str) -> bool:
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def _ends_in_class(text: str) -> bool:
    i, in_class = 0, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        in_class = (c != "]") if in_class else (c == "[")
        i += 1
    return in_class


def _compiles(source: str, flags: str) -> bool:
    try:
        regress.Regex(source, flags or None)
    except BaseException as exc:  # noqa: BLE001 - RegressError, or a native panic
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return False
    return True


def regex_report(pattern: str, text: str) -> ConditionReport:
    body, flags = split_flags(pattern)
    try:
        compiled = compile_rule_condition(pattern)
    except InputError as exc:
        position = error_position(body, flags)
        offset = len(pattern) - len(body)
        return ConditionReport(pattern, body, flags, exc.message, None if position is None else position + offset)
    etext = engine_text(text)
    raw = etext.encode("utf-8", "surrogatepass")
    hits = []
    for m in compiled.regex.find_iter(etext) or ():
        whole = m.range()
        groups: list[Span | None] = []
        for g in range(1, 1 + _group_count(compiled.engine_source)):
            try:
                r = m.group(g)
            except (IndexError, regress.RegressError):
                break
            if r is None:
                groups.append(None)
                continue
            groups.append(_span(text, _text_index(text, etext, raw, r.start), _text_index(text, etext, raw, r.stop)))
        names = tuple((name, number) for number, name in _group_names(compiled.engine_source))
        start = _text_index(text, etext, raw, whole.start)
        end = _text_index(text, etext, raw, whole.stop)
        hits.append(RegexHit(_span(text, start, end), tuple(groups), names))
        if len(hits) >= 1000:  # a pattern matching everywhere: enough to see it
            break
    return ConditionReport(pattern, body, flags, None, None, tuple(hits))


def _group_count(source: str) -> int:
    return len(_group_names(source, include_unnamed=True))


def _group_names(source: str, *, include_unnamed: bool = False) -> list[tuple[int, str]]:
    """(number, name) of each capturing group in ``source``, numbered as JavaScript numbers them."""
    out: list[tuple[int, str]] = []
    number = 0
    for i, ch, _depth in structural_chars(source):
        if ch != "(":
            continue
        rest = source[i + 1 : i + 4]
        if rest.startswith("?<") and not rest.startswith(("?<=", "?<!")):
            number += 1
            end = source.find(">", i)
            out.append((number, source[i + 3 : end]))
        elif not rest.startswith("?"):
            number += 1
            if include_unnamed:
                out.append((number, ""))
    return out if include_unnamed else [(n, name) for n, name in out if name]


def _outline(node: Any, text: str, depth: int = 0, out: list[str] | None = None, limit: int = 400) -> list[str]:
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    rng = node.range()
    snippet = node.text() if node.is_leaf() else ""
    line = f"{'  ' * depth}{node.kind()} [{rng.start.line + 1}:{rng.start.column + 1}-{rng.end.line + 1}:{rng.end.column + 1}]"
    out.append(line + (f" {snippet!r}" if snippet and len(snippet) <= 40 else ""))
    for child in node.children():
        if child.is_named():
            _outline(child, text, depth + 1, out, limit)
    return out


def _node_span(text: str, node: Any) -> Span:
    rng = node.range()
    # ast-grep ranges count UTF-8 bytes; the UI wants characters.
    raw = text.encode("utf-8")
    start = len(raw[: rng.start.index].decode("utf-8", "replace"))
    end = len(raw[: rng.end.index].decode("utf-8", "replace"))
    return _span(text, start, end)


def ast_reports(patterns: Sequence[str], text: str, path: str | None) -> tuple[tuple[AstReport, ...], str | None,
                                                                             tuple[Span, ...]]:
    lang = language_for([path] if path else [])
    if lang is None:
        return tuple(AstReport(p, None, "no language: give a path with an extension") for p in patterns), None, ()
    if lang not in NATIVE_ALIASES:
        return tuple(AstReport(p, lang, SUPPORTED_TEXT.format(lang=lang)) for p in patterns), None, ()
    sg_lang = parse_language(lang)  # registers the dynamic grammars (toml, sql ...) on first use
    if sg_lang is None:
        why = f"the agent parses {lang!r} but no grammar for it is available here: no match (a recorded deviation)"
        return tuple(AstReport(p, lang, why) for p in patterns), None, ()
    try:
        root = SgRoot(text, sg_lang).root()
    except BaseException as exc:  # noqa: BLE001 - PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return tuple(AstReport(p, lang, f"could not parse: {exc}") for p in patterns), None, ()
    errors = tuple(_node_span(text, n) for n in root.find_all(kind="ERROR"))
    reports = []
    for pattern in patterns:
        names = sorted({(bool(m.group(1)), m.group(2)) for m in _METAVAR.finditer(pattern)})
        try:
            found = root.find_all(pattern={"context": native_pattern(pattern, sg_lang), "strictness": "smart"})  # type: ignore[call-overload]
        except BaseException as exc:  # noqa: BLE001 - the engine skips an uncompilable pattern silently
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            reports.append(AstReport(pattern, lang, f"pattern does not compile (the agent skips it silently): {exc}"))
            continue
        hits = []
        for node in found[:200]:
            bindings = []
            for multiple, name in names:
                if multiple:
                    nodes = [n for n in node.get_multiple_matches(name) if n.is_named()]
                else:
                    one = node.get_match(name)
                    nodes = [one] if one is not None else []
                bindings.append((("$$$" if multiple else "$") + name, tuple(_node_span(text, n) for n in nodes)))
            hits.append(AstHit(_node_span(text, node), node.kind(), tuple(bindings)))
        reports.append(AstReport(pattern, lang, None, tuple(hits)))
    return tuple(reports), "\n".join(_outline(root, text)), errors


def explain_rule(rule: Any, text: str, *, source: MatchSource = "text", tool_name: str | None = None,
                 path: str | None = None) -> PlaygroundReport:
    """Run ``rule`` on ``text`` as the agent would at this source (an edit/write call to ``path``)."""
    if source == "tool" and not tool_name:
        tool_name = "write"
    manager = TtsrManager()
    registered = manager.add_rule(rule)
    rejected = None if registered else manager.rejections.get(rule.name, "rejected by the manager")
    ctx = MatchContext(source, tool_name=tool_name if source == "tool" else None,
                       file_paths=[path] if path and source == "tool" else None)
    fired = False
    why: str | None = rejected
    if registered:
        fired = bool(manager.check_snapshot(text, ctx))
        if not fired and rule.ast_condition and source == "tool":
            fired = bool(manager.check_ast_snapshot(text, ctx))
        why = None if fired else manager.explain(ctx).get(rule.name)
    conditions = tuple(regex_report(p, text) for p in rule.condition or ())
    ast: tuple[AstReport, ...] = ()
    tree = None
    errors: tuple[Span, ...] = ()
    if rule.ast_condition:
        ast, tree, errors = ast_reports(rule.ast_condition, text, path)
    warnings = tuple(f"{rule.name}: {d.message}" for d in manager.diagnostics)
    return PlaygroundReport(source, tool_name if source == "tool" else None, path, registered, rejected, fired,
                            why, conditions, ast, tree, errors, warnings)
