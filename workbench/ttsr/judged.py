"""Judged rules (reference 18.3, ``export/ttsr.ts``): rules with a ``question`` a judge answers.

A judged rule never matches mid-stream. After an assistant message completes, the session asks the
manager which judged rules are *candidates* for each completed output (``judged_candidates``): in
scope, inside the rule's globs, past the repeat gate and, when the rule also has ``condition`` /
``astCondition``, passing that cheap pre-filter on the whole output. One judge request per output
asks every candidate's question; the rules answered yes (probability >= ``JUDGED_RULE_THRESHOLD``) are
``claim``ed (marked injected so a second verdict cannot deliver them twice) and delivered as a
non-interrupting warning. Asking is the session's business (``workbench.replay.judge.queue``); this module
holds the engine half as functions of the manager's registry, repeat gate and warning sink, which
``TtsrManager``'s judged methods call.

Content sent to the judge is cut to ``JUDGED_CONTENT_MAX_TOKENS``. The reference counts tokens with
its native ``Jev`` tokenizer (``pi-natives countTokens``), which this project cannot ship; the count
here (``count_tokens``) is an estimate, see its docstring for where the two may differ.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.rules.jsstring import js_trim
from workbench.ttsr.ast import UnsupportedLanguage, ast_match, language_for
from workbench.ttsr.context import MatchContext
from workbench.ttsr.messages import MSG_AST_FAILED
from workbench.ttsr.rule_entry import RuleEntry
from workbench.ttsr.settings import TtsrSettings

#: Yes-probability at or above which a judged rule counts as violated (reference constant).
JUDGED_RULE_THRESHOLD = 0.7
#: Tokens of output content sent per judgment (the reference's limit, in its Jev tokens).
JUDGED_CONTENT_MAX_TOKENS = 32_000

SettingsSource = Callable[[], TtsrSettings]


@dataclass(frozen=True, slots=True)
class JudgedCandidate:
    """A judged rule eligible for one output, with its (trimmed) question."""

    rule: Any
    question: str


def question_of(rule: Any) -> str | None:
    """The rule's question trimmed, ``None`` when absent, blank or not a string (``?.trim() || undefined``)."""
    value = rule.get("question") if isinstance(rule, dict) else getattr(rule, "question", None)
    if not isinstance(value, str):
        return None
    return js_trim(value) or None


# -- token counting --------------------------------------------------------------------------------

# A GPT-style pre-tokenizer: a run of letters (with one leading space), up to three digits, a run
# of other symbols, or whitespace. Each piece then costs one token per ``_WIDTH`` characters.
_PIECES = re.compile(r"(?P<w> ?[^\W\d_]+)|(?P<d> ?\d{1,3})|(?P<s> ?[^\s\w]+|_+)|(?P<b>\s+)", re.UNICODE)
_WIDTH = {"w": 5, "d": 4, "s": 2, "b": 8}


def count_tokens(text: str) -> int:
    """An estimate of the judge's token count for ``text``.

    The reference counts Jev tokens (a BPE vocabulary in native code that is not published). This
    estimate splits text the way BPE pre-tokenizers do (words with their leading space, digit groups
    of three, symbol runs, whitespace runs) and charges each piece one token per 5 letters, 2 symbols
    or 8 whitespace characters (at least one). It agrees with BPE counts on the shape (counts grow
    with length; a short word costs one token) but not on the number: real vocabularies merge
    frequent long words and common symbol pairs into one token (the estimate charges more) and split
    rare scripts, emoji and long identifiers finer (the estimate charges less). Output far below the
    32k limit is sent whole by both; near it, the cut may land a few thousand characters away.
    """
    total = 0
    for match in _PIECES.finditer(text):
        kind = match.lastgroup or "s"
        piece = match.group(0)
        size = len(piece) - 1 if kind in ("w", "d", "s") and piece.startswith(" ") else len(piece)
        total += max(1, math.ceil(size / _WIDTH[kind]))
    return total


def token_prefix(text: str, max_tokens: int = JUDGED_CONTENT_MAX_TOKENS,
                 count: Callable[[str], int] = count_tokens) -> str:
    """The longest prefix of ``text`` within ``max_tokens`` (bisection, as the reference does).

    The reference bisects over UTF-16 units and backs off half a surrogate pair; Python slices code
    points, so a pair is never split here and the prefix may be one UTF-16 unit longer.
    """
    if count(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)  # text[:lo] always fits, text[:hi] never does
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid
    return text[:lo]


# -- the manager's judged half ---------------------------------------------------------------------

# What ``TtsrManager`` does for judged rules, as functions of what they read: the manager's registry
# (``entries``, name -> ``RuleEntry`` in registration order), its repeat gate (``can_trigger``) and its
# warning sink (``warn``). The manager's methods of the same meaning call them; this module holds no
# state and names nothing of the manager's.

Warn = Callable[[str, dict[str, Any]], None]


def has_judged(entries: Mapping[str, RuleEntry]) -> bool:
    """True when some registered rule is judged."""
    return any(e.question is not None for e in entries.values())


def judged_rules(entries: Mapping[str, RuleEntry]) -> list[Any]:
    """The registered judged rules, in registration order."""
    return [e.rule for e in entries.values() if e.question is not None]


def candidates(entries: Mapping[str, RuleEntry], content: str, ctx: MatchContext, *,
               can_trigger: Callable[[str], bool], warn: Warn) -> list[JudgedCandidate]:
    """Judged rules to ask about one completed output, in registration order."""
    text = content if isinstance(content, str) else ""
    out: list[JudgedCandidate] = []
    for name, entry in entries.items():
        if entry.question is None or not can_trigger(name):
            continue
        if not entry.scope.allows(ctx) or not entry.passes_globs(ctx):
            continue
        if not passes_prefilter(entry, text, ctx, warn):
            continue
        out.append(JudgedCandidate(entry.rule, entry.question))
    return out


def explain(entries: Mapping[str, RuleEntry], content: str, ctx: MatchContext, *, enabled: bool,
            can_trigger: Callable[[str], bool], warn: Warn) -> dict[str, str | None]:
    """Per judged rule: why it is not a candidate for this output (the first gate that fails),
    or ``None`` when it is one. Pure apart from AST warnings, like ``candidates``."""
    out: dict[str, str | None] = {}
    for name, entry in entries.items():
        if entry.question is None:
            continue
        if not enabled:
            out[name] = "manager disabled"
        elif not can_trigger(name):
            out[name] = "repeat gate: already delivered"
        elif (why := entry.scope.explain(ctx)) is not None:
            out[name] = why
        elif not entry.passes_globs(ctx):
            out[name] = f"path gate: no glob matched {list(entry.globs or [])}"
        elif not passes_prefilter(entry, content if isinstance(content, str) else "", ctx, warn):
            out[name] = "pre-filter: no condition or astCondition matched the output"
        else:
            out[name] = None
    return out


def passes_prefilter(entry: RuleEntry, content: str, ctx: MatchContext, warn: Warn) -> bool:
    """No pre-filter passes; else a regex over the whole output, else an AST pattern on a tool
    output whose path gives a language (the reference's ``#passesPrefilter``)."""
    if not entry.prefilter and not entry.prefilter_ast:
        return True
    if any(cond.test(content) for cond in entry.prefilter):
        return True
    lang = language_for(ctx.file_paths) if ctx.source == "tool" else None
    if lang is None or not entry.prefilter_ast:
        return False
    try:
        return ast_match(entry.prefilter_ast, content, lang)
    except UnsupportedLanguage as exc:

        warn(MSG_AST_FAILED, {"patterns": list(entry.prefilter_ast), "lang": lang, "error": str(exc)})
        return False


def claimable(rules: Iterable[Any], can_trigger: Callable[[str], bool]) -> list[Any]:
    """Rules from a yes verdict that may still be delivered (the caller marks them injected)."""
    return [r for r in rules or () if can_trigger(_name(r))]


def _name(rule: Any) -> Any:
    return rule.get("name") if isinstance(rule, dict) else getattr(rule, "name", None)
