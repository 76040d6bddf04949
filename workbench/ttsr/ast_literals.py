"""Literal leaves an AST pattern's every match contains, so a source without them is never parsed.

Under ast-grep's smart strictness every leaf of the pattern tree that is not a metavariable must meet
a source node of the same kind; a *named* leaf (an identifier, ``null``, a number) must also have the
same text, and a source leaf's text is a slice of the source: when such a text is missing from the
source, the answer is "no match" without parsing (README, Benchmarks: replay). Unnamed leaves
(keywords, punctuation) are no literals: on a cut-off snapshot the parser inserts zero-width MISSING
tokens, and ast-grep lets a pattern's ``}`` meet a missing ``}`` (``if ($C) { ret }`` matches
``if (a) { ret``). The exception is a keyword of ``KEYWORD_TOKENS``, one the grammar can never insert
as MISSING (see there): it is required as a whole word, followed by no identifier character.

The leaves are read from the pattern tree ast-grep builds, found by matching the pattern against its
own text: for the languages in ``PATTERN_EXPANDO`` the text is first given the metavariable
substitution ast-grep applies to patterns (none where ``$`` is an identifier character, ``µ``
elsewhere), so that text parses into exactly the pattern's tree. The node found must span the whole
text; otherwise, and for every other language, a pattern contributes nothing (it is always parsed).
Leaves under a node whose text is a metavariable, leaves holding ``$`` or the expando character,
empty leaves and comments contribute nothing either: leaving a literal out only weakens the filter,
never changes an answer. ``tests/ttsr/test_ast_literals.py`` compares the filtered check with a full
parse on random and cut-off sources; the native-engine table and the differential suites hold too.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache

from ast_grep_py import SgNode, SgRoot

from workbench.ttsr import ast_languages

# ast-grep-py language -> the character its pattern preprocessing puts for `$` (None: kept as is).
# Only languages checked against the matcher (tests/ttsr/test_ast_literals.py) are listed.
PATTERN_EXPANDO: dict[str, str | None] = {
    "typescript": None, "tsx": None, "javascript": None,
    "go": "µ", "rust": "µ", "python": "µ",
}

# Broad on purpose: anything that may be a metavariable is no literal.
_METAVAR_LIKE = re.compile(r"[$µ]+[A-Za-z0-9_]*")

_NON_ASCII_SIGIL = re.compile(r"\$[^\x00-\x7f]")

# ast-grep-py language -> keywords (unnamed leaves) that are literals too. tree-sitter's error recovery
# inserts a zero-width MISSING token only where the parser's state after that token has a reduce
# action on the next token (``ts_parser__handle_error``), and the state after shifting one of these
# keywords has none: no production of these grammars ends with the keyword (tree-sitter-javascript
# and -typescript use ``as`` only before a name, a type or ``const``), no rule but the start rule may
# be empty, and the parse table merges only states with the same items. So a node of the keyword's
# kind is always lexed from the source; a keyword is lexed only when the whole word token (the
# identifier, whose characters include ``[A-Za-z0-9_$]``) is the keyword, so the character after it,
# if any, is none of those (README, "Backtest"; ``tests/ttsr/test_ast_literals.py`` compares the
# filtered check with a full parse on sources without the keyword).
KEYWORD_TOKENS: dict[str, frozenset[str]] = {"typescript": frozenset({"as"}), "tsx": frozenset({"as"})}

# What may lie between two tokens that are consecutive children in a match: the grammar's extras
# (tree-sitter-javascript's whitespace class ``[\s\p{Zs}\uFEFF\u2028\u2029\u2060\u200B]``, ``//`` and
# ``/* */`` comments, HTML comments; Python's ``\s`` holds every Unicode White_Space character). A
# comment or an ERROR node there is a named child, which smart strictness does not skip, so this is
# wider than needed; it must never be narrower.
_GAP = (r"(?:[\s\x00-\x1f\ufeff\u2060\u200b\u180e]|//[^\r\n\u2028\u2029]*+|/\*(?:[^*]|\*(?!/))*+\*/"
        r"|(?:<!--|-->)[^\r\n\u2028\u2029]*+)*")

_enabled = True
_lock = threading.Lock()


def set_ast_prefilter(enabled: bool) -> bool:
    """Switch the literal prefilter of AST conditions on or off (for benchmarks and the property tests
    that compare it with a full parse); off also checks a rule's patterns one at a time instead of in
    one traversal (``ast.ast_match_each``), the engine as it was before both. Returns the previous
    setting."""
    global _enabled
    with _lock:
        previous = _enabled
        _enabled = bool(enabled)
    return previous


def ast_prefilter_enabled() -> bool:
    return _enabled


def _leaves(node: SgNode, expando: str | None, out: set[str], keywords: frozenset[str] = frozenset(),
            runs: set[str] | None = None) -> None:
    text = node.text()
    if _METAVAR_LIKE.fullmatch(text.strip()):
        return
    children = node.children()
    if children:
        for i, child in enumerate(children):
            if runs is not None and i + 1 < len(children) and _as_object_type(child, children[i + 1], keywords):
                # ``as`` and the ``{`` of the object type that is its type: in a match they are
                # consecutive tokens (``as_expression`` and ``mapped_type_clause`` hold nothing
                # between them, ``object_type`` starts with ``{`` or ``{|``, and ``{`` is never
                # inserted as MISSING either: no production ends with it).
                runs.add("as {")
                _leaves(children[i + 1], expando, out)
                continue
            _leaves(child, expando, out, keywords, runs)
        return
    if not node.is_named():
        if runs is not None and text in keywords and node.kind() == text:
            runs.add(text)
        return
    if not text or "$" in text or (expando is not None and expando in text) or "comment" in node.kind():
        return
    out.add(text)


@lru_cache(maxsize=8192)
def pattern_literals(pattern: str, sg_lang: str) -> tuple[str, ...] | None:
    """Texts every match of ``pattern`` in ``sg_lang`` contains (longest first), or ``None`` when
    unknown (the language is not in ``PATTERN_EXPANDO``, the pattern does not compile or does not
    match its own text)."""
    leaves = _pattern_leaves(pattern, sg_lang)
    return None if leaves is None else leaves[0]


def _as_object_type(node: SgNode, after: SgNode, keywords: frozenset[str]) -> bool:
    if "as" not in keywords or node.is_named() or node.kind() != "as" or not after.is_named() \
            or after.kind() != "object_type":
        return False
    first = after.children()
    return bool(first) and not first[0].is_named() and first[0].kind() == "{"


@lru_cache(maxsize=8192)
def pattern_tokens(pattern: str, sg_lang: str) -> tuple[str, ...]:
    """Runs of tokens every match of ``pattern`` in ``sg_lang`` holds (sorted; empty when unknown):
    a keyword of ``KEYWORD_TOKENS`` alone, or ``as {`` (``as`` then, past extras, ``{``)."""
    leaves = _pattern_leaves(pattern, sg_lang)
    return () if leaves is None else leaves[1]


@lru_cache(maxsize=8192)
def _pattern_leaves(pattern: str, sg_lang: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(``pattern_literals``, ``pattern_tokens``), or ``None`` when unknown."""
    if sg_lang not in PATTERN_EXPANDO:
        return None
    expando = PATTERN_EXPANDO[sg_lang]
    if _NON_ASCII_SIGIL.search(pattern):
        return None  # `$` before a non-ASCII letter: whether it is substituted is not certain here
    context = ast_languages.native_pattern(pattern, sg_lang)
    source = context if expando is None else ast_languages.expand_sigils(context, expando)
    try:
        node = SgRoot(source, sg_lang).root().find(pattern={"context": context, "strictness": "smart"})  # type: ignore[call-overload]
        if node is None or node.text() != source.strip():
            return None
        found: set[str] = set()
        runs: set[str] = set()
        _leaves(node, expando, found, KEYWORD_TOKENS.get(sg_lang, frozenset()), runs)
    except BaseException as exc:  # noqa: BLE001 - ast-grep-py panics are BaseExceptions
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return None
    return tuple(sorted(found, key=lambda s: (-len(s), s))), tuple(sorted(runs))


@lru_cache(maxsize=64)
def _token_run(run: str) -> re.Pattern[str]:
    tokens = run.split(" ")
    body = _GAP.join(re.escape(t) for t in tokens)
    if tokens[-1][-1:].isalnum():
        # Not followed by a character the identifier (the word token) would take on: then the word
        # is longer than the keyword. Any other character, and the end of the text, may follow it.
        body += r"(?![A-Za-z0-9_$])"
    return re.compile(body)


def tokens_present(run: str, source: str) -> bool:
    """``source`` may hold the run of tokens ``run`` (``pattern_tokens``)."""
    return _token_run(run).search(source) is not None


class Presence:
    """Which literals occur in one source, remembered per stream key: a snapshot that extends the
    previous one of its key is searched only where a literal the shorter text lacked can now end."""

    __slots__ = ("source", "_seen", "_base", "_base_len", "_keywords")

    def __init__(self, source: str, previous: Presence | None = None) -> None:
        self.source = source
        self._seen: dict[str, bool] = {}
        # Runs of tokens are searched in the whole source each time: a keyword at the end of a shorter
        # text may be the start of a longer word in this one, so no earlier answer carries over.
        self._keywords: dict[str, bool] = {}
        self._base: dict[str, bool] = {}
        self._base_len = 0
        if previous is not None and len(source) >= len(previous.source) and source.startswith(previous.source):
            self._base = previous._known()
            self._base_len = len(previous.source)

    def _known(self) -> dict[str, bool]:
        """Facts that hold for this source: what was searched in it, and what an earlier text it
        extends already held (an absence there is not known here until searched)."""
        return {**{lit: True for lit, hit in self._base.items() if hit}, **self._seen}

    def has(self, literal: str) -> bool:
        hit = self._seen.get(literal)
        if hit is None:
            before = self._base.get(literal)
            if before is True:
                hit = True
            elif before is False:
                # Absent from the shorter text: only an occurrence ending in the new part is possible.
                hit = self.source.find(literal, max(0, self._base_len - len(literal) + 1)) >= 0
            else:
                hit = literal in self.source
            self._seen[literal] = hit
        return hit

    def has_tokens(self, keyword: str) -> bool:
        hit = self._keywords.get(keyword)
        if hit is None:
            hit = self._keywords[keyword] = tokens_present(keyword, self.source)
        return hit


def may_match(pattern: str, sg_lang: str, source: str, presence: Presence | None = None) -> bool:
    """False only when ``pattern`` cannot match ``source``: one of its literals is missing."""
    if not _enabled:
        return True
    leaves = _pattern_leaves(pattern, sg_lang)
    if leaves is None:
        return True
    literals, runs = leaves
    if presence is not None and presence.source is source:
        return all(presence.has(lit) for lit in literals) and all(presence.has_tokens(r) for r in runs)
    return all(lit in source for lit in literals) and all(tokens_present(r, source) for r in runs)


def viable(patterns: Sequence[str], sg_lang: str, source: str, presence: Presence | None = None) -> list[str]:
    """The patterns of ``patterns`` that may match ``source``, in order."""
    return [p for p in patterns if may_match(p, sg_lang, source, presence)]
