"""Why an AST condition did not match a snapshot: the stepper's "why now" text for AST rules.

Besides the plain gates (no path with an extension, a language the agent rejects, no grammar here), it
says when the answer may be the workbench's own: the agent's native engine (pi-natives: its own ast-grep
and grammar builds) and ast-grep-py 0.51 agree on all but a few dozen of the cases probed in
tests/ttsr/data/native_ast_cases.json (the test lists each exception): JSON patterns that are a bare
pair, partial JSON, make, and diff/just (no grammar here).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ast_grep_py import SgRoot

from workbench.ttsr import ast_languages
from workbench.ttsr.ast import NATIVE_ALIASES

# Where the native engine is known to answer otherwise, whatever the source (see the probe table).
_LANGUAGE_NOTES: dict[str, str] = {
    "json": "a JSON pattern that is a bare pair (`\"name\": $V`) compiles in the agent's native ast-grep "
            "and matches pairs there, even in an unfinished file; ast-grep-py 0.51 cannot compile it",
    "make": "the agent's make grammar splits rules differently from tree-sitter-language-pack's",
}
_NO_GRAMMAR = "the agent parses {lang!r} but no grammar package here provides it: never matches here"


def rule_patterns(raw: object) -> tuple[str, ...]:
    """A rule's non-blank ``astCondition`` patterns (one string counts as one pattern)."""
    items = [raw] if isinstance(raw, str) else (raw if isinstance(raw, (list, tuple)) else ())
    return tuple(p.strip() for p in items if isinstance(p, str) and p.strip())


def explain_no_match(patterns: Sequence[str], source: str, lang: str | None) -> str:
    """The reason none of ``patterns`` matched ``source`` parsed as ``lang`` (a native alias)."""
    return _explain(tuple(patterns), source, lang)


@lru_cache(maxsize=256)  # the stepper asks once per step and rule, often about the same snapshot
def _explain(patterns: tuple[str, ...], source: str, lang: str | None) -> str:
    if lang is None:
        return "AST: no path with an extension to pick the language from"
    if lang not in NATIVE_ALIASES:
        return f"AST: the agent rejects language {lang!r} (it warns and treats it as no match)"
    sg_lang = NATIVE_ALIASES[lang]
    resolved = ast_languages.resolve(sg_lang) if sg_lang is not None else None
    if resolved is None:
        why = f"AST: {_NO_GRAMMAR.format(lang=lang)}"
        problem = ast_languages.problem()
        return why + (f" ({problem})" if problem else "")
    try:
        root = SgRoot(source, resolved).root()
        # ERROR nodes, or zero-width ones: tree-sitter's MISSING tokens (`def f(:` lacks its `)`).
        broken = root.find(kind="ERROR") is not None or (
            source.strip() != "" and root.find(regex="^$") is not None)
    except BaseException as exc:  # noqa: BLE001 - ast-grep-py panics are BaseExceptions
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return f"AST: the snapshot could not be parsed as {lang!r}"
    uncompiled = []
    for pattern in patterns:
        try:
            root.find(pattern={"context": ast_languages.native_pattern(pattern, resolved), "strictness": "smart"})  # type: ignore[call-overload]
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            uncompiled.append(pattern)
    parts = ["AST pattern did not match"]
    if uncompiled:
        parts.append("pattern " + ", ".join(repr(p) for p in uncompiled) + f" does not compile for {lang!r} "
                     "(skipped silently, as the agent does)")
    if broken:
        parts.append("the snapshot does not parse cleanly yet (an unfinished or broken edit); the agent's "
                     "native ast-grep (pi-natives) may recover from it differently from ast-grep-py 0.51 here")
    note = _LANGUAGE_NOTES.get(sg_lang or "")
    if note is not None:
        parts.append(note)
    return "; ".join(parts)
