"""Running rule examples (``workbench rules test`` and the rule editor).

Each example is presented to a fresh simulated session (``workbench.replay.SimulatedSession``)
holding only its rule, the way the agent would present that output: prose and thinking stream as
word deltas through ``check_delta``; a tool call streams its JSON arguments, and at every delta the
partially parsed arguments go through the tool's matcher surfaces (digest, per-file entries, path
candidates) into ``check_snapshot``; the finished call (``toolcall_end``) goes into
``check_ast_snapshot`` too, where the agent checks AST conditions. The example model and which
presentations a ``text`` example gets are described in ``workbench.rules.examples``.

A failure says why: for an example that should fire, the first gate that stopped the rule on each
presentation (``TtsrManager.explain``: scope, path gate, no condition matched, ...); for one that
should not, where it fired and the matched snippet.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.errors import InputError
from workbench.replay import (
    Firing,
    ReplayConfig,
    chunk_text,
    event,
    example_judge,
    judged_outcome,
    make_stream,
    record_firings,
    snippet,
)
from workbench.rules import (
    Rule,
    RuleExample,
    RuleSource,
    build_rule_from_markdown,
    example_line,
    parse_examples,
)
from workbench.ttsr import (
    NATIVE_ALIASES,
    MatchContext,
    build_scope,
    glob_match,
    language_for,
    matches_any_path,
    path_candidates,
)

#: The project folder examples pretend to run in (path candidates are resolved against it).
EXAMPLE_CWD = "/project"
EXAMPLE_CALL_ID = "example_call"


@dataclass(frozen=True, slots=True)
class Presentation:
    """One way the engine sees an example: as prose, as thinking, or as a tool call."""

    source: str
    text: str | None = None
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def label(self) -> str:
        if self.source != "tool":
            return "as prose" if self.source == "text" else "as thinking"
        where = self.args.get("path")
        return f"as {self.tool} call" + (f" to {where}" if isinstance(where, str) else "")


@dataclass(frozen=True, slots=True)
class ExampleResult:
    """The verdict on one example: ``passed`` when the rule fired exactly when it should."""

    rule: str
    rule_path: str
    example: RuleExample
    passed: bool
    fired: tuple[tuple[str, Firing], ...]  # (presentation label, firing)
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule, "rulePath": self.rule_path, "example": self.example.to_json(),
            "label": self.example.label, "passed": self.passed, "reason": self.reason,
            "fired": [{"presentation": label, **f.to_json()} for label, f in self.fired],
        }


@dataclass(frozen=True, slots=True)
class RuleExamples:
    """All examples of one rule (``error``: the examples could not be read; nothing ran)."""

    rule: str
    rule_path: str
    results: tuple[ExampleResult, ...] = ()
    error: str | None = None

    @property
    def failures(self) -> tuple[ExampleResult, ...]:
        return tuple(r for r in self.results if not r.passed)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failures

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "path": self.rule_path, "ok": self.ok, "error": self.error,
                "passed": sum(r.passed for r in self.results), "failed": len(self.failures),
                "results": [r.to_json() for r in self.results]}


# --- presentations --------------------------------------------------------------------------------

_BRACES = re.compile(r"\{([^{}]*)\}")
_CLASS = re.compile(r"\[(!|\^)?([^\]]*)\]")


def sample_path(glob: str) -> str | None:
    """A made-up relative path that ``glob`` matches (Bun.Glob dialect), or ``None``."""
    if not glob or glob.startswith("!"):
        return None
    escaped: list[str] = []

    def hide(m: re.Match[str]) -> str:  # escaped characters are literal: keep them out of the way
        escaped.append(m.group(1))
        return f"\ue000{len(escaped) - 1}\ue001"

    path = re.sub(r"\\(.)", hide, glob)
    while _BRACES.search(path):  # innermost alternation first: take its first branch
        path = _BRACES.sub(lambda m: m.group(1).split(",")[0], path)
    path = _CLASS.sub(lambda m: "x" if m.group(1) else (m.group(2)[:1] or "x"), path)
    path = path.replace("**/", "").replace("/**", "/x").replace("**", "x")
    path = path.replace("*", "example").replace("?", "x").lstrip("/") or "example"
    path = re.sub("\ue000(\\d+)\ue001", lambda m: escaped[int(m.group(1))], path)
    return path if glob_match(glob, path) or glob_match(glob, path.rsplit("/", 1)[-1]) else None


def _admits(rule_globs: Sequence[str], scope_glob: str | None, path: str) -> bool:
    cands = path_candidates(path, EXAMPLE_CWD)
    if scope_glob is not None and not matches_any_path([scope_glob], cands):
        return False
    return not rule_globs or matches_any_path(list(rule_globs), cands)


def _path_for(rule: Rule, scope_glob: str | None, given: str | None) -> str | None:
    if given is not None:
        return given
    rule_globs = [g.strip() for g in (rule.globs or ()) if isinstance(g, str) and g.strip()]
    guesses = [sample_path(g) for g in ([scope_glob] if scope_glob else []) + rule_globs]
    guesses = [g for g in guesses if g]
    for guess in guesses:
        if _admits(rule_globs, scope_glob, guess):  # type: ignore[arg-type]
            return guess
    if guesses:
        return guesses[0]
    # No glob to go by: AST rules still need an extension to pick a language; prose-ish otherwise.
    return None


def _write_args(tool: str, path: str | None, text: str) -> dict[str, Any]:
    args: dict[str, Any] = {"path": path} if path is not None else {}
    if tool == "edit":
        return {**args, "old_string": "", "new_string": text}
    return {**args, "content": text}


def presentations(rule: Rule, example: RuleExample) -> list[Presentation]:
    """Every way ``example`` reaches the engine for ``rule`` (see ``workbench.rules.examples``)."""
    if example.kind == "thinking":
        return [Presentation("thinking", text=example.text)]
    if example.kind == "tool":
        return [Presentation("tool", tool=example.tool, args=dict(example.args))]
    text = example.text or ""
    scope = build_scope(None if rule.scope is None else list(rule.scope), lambda _token: None)
    out: list[Presentation] = []
    if scope.allow_text:
        out.append(Presentation("text", text=text))
    targets: list[tuple[str, str | None]] = []
    if scope.allow_any_tool:
        targets.append(("write", None))
    targets += [(ts.tool_name or "write", ts.path_glob) for ts in scope.tool_scopes]
    seen: set[tuple[str, str | None]] = set()
    for tool, scope_glob in targets:
        path = _path_for(rule, scope_glob, example.path)
        if (tool, path) in seen:
            continue
        seen.add((tool, path))
        out.append(Presentation("tool", tool=tool, args=_write_args(tool, path, text)))
    return out or [Presentation("text", text=text)]


# --- running --------------------------------------------------------------------------------------


def _events(p: Presentation) -> list[Any]:
    evs = [event("turn_start"), event("message_start", role="assistant", timestamp=0)]
    if p.source in ("text", "thinking"):
        kind = f"{p.source}_delta"
        evs += [event(kind, content_index=0, delta=d) for d in chunk_text(p.text or "", "words")]
        evs.append(event("message_end", stop_reason="stop"))
    else:
        raw = json.dumps(dict(p.args), ensure_ascii=False)
        evs.append(event("toolcall_start", content_index=0, id=EXAMPLE_CALL_ID, name=p.tool))
        evs += [event("toolcall_delta", content_index=0, delta=d) for d in chunk_text(raw, "words")]
        evs.append(event("toolcall_end", content_index=0, arguments=dict(p.args)))
        evs.append(event("message_end", stop_reason="toolUse"))
        evs.append(event("tool_result", tool_call_id=EXAMPLE_CALL_ID, tool_name=p.tool,
                         content=[{"type": "text", "text": "ok"}]))
    evs.append(event("turn_end"))
    return evs


def _ast_reason(rule: Rule, ctx: MatchContext | None, checked: bool) -> str | None:
    if not rule.ast_condition:
        return None
    if ctx is None or ctx.source != "tool":
        return "AST conditions only run on tool calls"
    lang = language_for(ctx.file_paths)
    if lang is None:
        return "AST: no path with an extension to pick the language from (give the example a path)"
    if lang not in NATIVE_ALIASES:
        return f"AST: unsupported language {lang!r}"
    if NATIVE_ALIASES[lang] is None:
        return f"AST: language {lang!r} cannot be parsed here"
    return "AST pattern did not match" if checked else "AST check not reached"


def present(rule: Rule, p: Presentation, *, cwd: str = EXAMPLE_CWD,
            answer: float | None = None) -> tuple[Firing | None, str]:
    """Run one presentation; (first firing or None, why it did not fire / where it fired).
    A judged rule gets ``answer`` (None: yes) from a scripted judge; it fires when delivered."""
    judge = example_judge(rule.name, answer) if rule.question is not None else None
    sim, recorder = record_firings(make_stream(_events(p), cwd=cwd), [rule], ReplayConfig(cwd=cwd, judge=judge))
    if judge is not None:
        outcome = judged_outcome(sim, rule.name, p.label)
        item = outcome.item
        if not outcome.fired or item is None:
            return None, outcome.reason
        return Firing(rule.name, 0, item.request.step if item.request else 0, item.source,
                      item.request.tool_name if item.request else None, item.stream_key or item.source,
                      item.request.file_paths if item.request else None, "judge", None, None,
                      len(outcome.content), snippet(outcome.content, None, None)), outcome.reason
    mine = [f for f in recorder.firings if f.rule == rule.name]
    if mine:
        first = mine[0]
        return first, f"fired {p.label} at offset {first.offset} ({first.via}): {first.snippet}"
    if rule.name not in {r.name for r in sim.manager.get_rules()}:
        placed = sim.buckets.bucket_of(rule.name)
        why = sim.manager.rejections.get(rule.name) or (placed.placement if placed else "")
        return None, f"not a TTSR rule ({why or 'no condition or astCondition'})"
    if not recorder.last_checks:
        return None, f"{p.label}: nothing was checked"
    reasons = []
    for ctx in recorder.last_checks.values():
        why = sim.manager.explain(ctx).get(rule.name) or "no condition matched"
        if why in ("no condition matched", "no regex condition (AST only)"):
            why = _ast_reason(rule, ctx, recorder.ast_checked) or why
        reasons.append(why)
    return None, f"{p.label}: " + "; ".join(dict.fromkeys(reasons))


def run_example(rule: Rule, example: RuleExample) -> ExampleResult:
    """Present ``example`` every way it applies; it passes when "fired anywhere" equals ``triggers``."""
    fired: list[tuple[str, Firing]] = []
    where_fired: list[str] = []
    why_not: list[str] = []
    for p in presentations(rule, example):
        firing, reason = present(rule, p, answer=example.judge)
        if firing is not None:
            fired.append((p.label, firing))
            where_fired.append(reason)
        else:
            why_not.append(reason)
    passed = bool(fired) == example.triggers
    if passed:
        reason = where_fired[0] if fired else "did not fire, as expected"
    elif example.triggers:
        reason = "expected to fire but did not: " + " | ".join(why_not)
    else:
        reason = "expected not to fire but " + " | ".join(where_fired)
    return ExampleResult(rule.name, rule.path, example, passed, tuple(fired), reason)


def run_rule_examples(rule: Rule) -> RuleExamples:
    """Run every example of ``rule`` (its frontmatter ``examples``); bad examples become ``error``."""
    try:
        examples = parse_examples(rule.frontmatter, path=rule.path)
    except InputError as exc:
        index = _field_index(exc.field)
        if exc.line is None and rule.path:
            exc.line = example_line(rule.path, index)
        return RuleExamples(rule.name, rule.path, (), str(exc))
    return RuleExamples(rule.name, rule.path, tuple(run_example(rule, ex) for ex in examples))


def _field_index(name: str | None) -> int | None:
    m = re.match(r"examples\[(\d+)\]", name or "")
    return int(m.group(1)) if m else None


def check_rule_text(content: str, *, path: str = "rule.md", name: str | None = None) -> RuleExamples:
    """The rule editor's live check: build a rule from unsaved Markdown and run its examples."""
    file_name = Path(path).name
    rule = build_rule_from_markdown(file_name, content, path, RuleSource("workbench", "Rule editor", path),
                                    rule_name=name)
    return run_rule_examples(rule)
