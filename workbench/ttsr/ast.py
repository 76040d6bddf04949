"""AST conditions: ast-grep patterns run on a tool snapshot, as the reference's native matcher does.

The reference picks the language from the first candidate path with an extension (Node
``path.extname``), asks its native ast-grep for ``{patterns, lang, strictness: smart, limit: 1}`` and
treats ``totalMatches > 0`` as a match. An unsupported language throws there (the manager warns);
a pattern that does not compile is skipped silently. Languages ast-grep-py does not build in are
added as dynamic grammars (``workbench.ttsr.ast_languages``). ``ast-grep-py`` panics with
``pyo3_runtime.PanicException`` (a ``BaseException``) on unknown languages, so language names are
validated against a fixed table first and every native call is fenced.
"""

from __future__ import annotations

from collections.abc import Sequence

from ast_grep_py import SgNode, SgRoot

from workbench.ttsr import ast_languages, ast_literals
from workbench.ttsr.globs import normalize_path

# The native engine's alias table (its "Supported:" list), mapped to ast-grep-py language names:
# built-in ones, or dynamic grammars (workbench.ttsr.ast_languages: toml, sql, xml, vue ...). The
# aliases no grammar package provides (diff, just) map to None: no match, no warning.
NATIVE_ALIASES: dict[str, str | None] = {
    "astro": "astro", "bash": "bash", "bats": "bash", "bazel": "starlark", "bzl": "starlark", "c": "c",
    "c#": "csharp", "c++": "cpp", "cc": "cpp", "cfg": "ini", "cjs": "javascript", "clj": "clojure",
    "cljc": "clojure", "cljs": "clojure", "clojure": "clojure", "clojurescript": "clojure", "cmake": "cmake", "conf": "ini",
    "config": "ini", "containerfile": "dockerfile", "cpp": "cpp", "cs": "csharp", "csharp": "csharp",
    "css": "css", "cts": "typescript", "cu": "cpp", "cuh": "cpp", "cxx": "cpp", "dart": "dart",
    "diff": None, "docker": "dockerfile", "dockerfile": "dockerfile", "edn": "clojure", "el": "elisp", "elisp": "elisp",
    "elixir": "elixir", "emacs-lisp": "elisp", "emacslisp": "elisp", "erl": "erlang", "erlang": "erlang",
    "ex": "elixir", "exs": "elixir", "f03": "fortran", "f08": "fortran", "f90": "fortran", "f95": "fortran",
    "fortran": "fortran", "gemspec": "ruby", "gnumake": "make", "go": "go", "golang": "go", "gql": "graphql",
    "graphql": "graphql", "h": "c", "haskell": "haskell", "hcl": "hcl", "hh": "cpp", "hpp": "cpp",
    "hrl": "erlang", "hs": "haskell", "htm": "html", "html": "html", "ini": "ini", "ino": "cpp",
    "java": "java", "javascript": "javascript", "jl": "julia", "js": "javascript", "json": "json",
    "jsx": "javascript", "julia": "julia", "just": None, "justfile": None, "kotlin": "kotlin",
    "ksh": "bash", "kt": "kotlin", "ktm": "kotlin", "kts": "kotlin", "lua": "lua", "m": "objc",
    "mak": "make", "make": "make", "makefile": "make", "markdown": "markdown", "md": "markdown", "mdx": "markdown",
    "mjs": "javascript", "mk": "make", "ml": "ocaml", "mm": "objc", "mts": "typescript", "nix": "nix",
    "obj-c": "objc", "objc": "objc", "objective-c": "objc", "ocaml": "ocaml", "odin": "odin", "patch": None,
    "pcal": "tlaplus", "php": "php", "plist": "xml", "pluscal": "tlaplus", "powershell": "powershell",
    "properties": "ini", "proto": "proto", "protobuf": "proto", "ps1": "powershell", "psm1": "powershell", "py": "python",
    "py3": "python", "pyi": "python", "python": "python", "r": "r", "rb": "ruby", "rbw": "ruby",
    "re": "regex", "regex": "regex", "rs": "rust", "ruby": "ruby", "rust": "rust", "sbt": "scala",
    "sc": "scala", "scala": "scala", "sh": "bash", "skylark": "starlark", "sol": "solidity",
    "solidity": "solidity", "sql": "sql", "star": "starlark", "starlark": "starlark", "sv": "verilog", "svelte": "svelte",
    "svg": "xml", "svh": "verilog", "swift": "swift", "systemverilog": "verilog", "terraform": "hcl",
    "tf": "hcl", "tfvars": "hcl", "tla": "tlaplus", "tla+": "tlaplus", "tlaplus": "tlaplus", "toml": "toml",
    "ts": "typescript", "tsx": "tsx", "typescript": "typescript", "v": "verilog", "verilog": "verilog",
    "vh": "verilog", "vue": "vue", "xhtml": "html", "xml": "xml", "xsl": "xml", "xslt": "xml",
    "yaml": "yaml", "yml": "yaml", "zig": "zig", "zsh": "bash",
}

SUPPORTED_TEXT = "Unsupported language '{lang}'. Supported: " + ", ".join(sorted(NATIVE_ALIASES))


class UnsupportedLanguage(Exception):
    """The native engine would throw for this language alias."""


def extname(path: str) -> str:
    """Node's POSIX ``path.extname``, step for step (dotfiles and ``..`` have no extension)."""
    start_dot = -1
    start_part = 0
    end = -1
    matched_slash = True
    pre_dot_state = 0  # 0: nothing left of the dot yet, -1: a non-dot char, 1: another dot
    for i in range(len(path) - 1, -1, -1):
        ch = path[i]
        if ch == "/":
            if not matched_slash:
                start_part = i + 1
                break
            continue
        if end == -1:
            matched_slash = False
            end = i + 1
        if ch == ".":
            if start_dot == -1:
                start_dot = i
            elif pre_dot_state != 1:
                pre_dot_state = 1
        elif start_dot != -1:
            pre_dot_state = -1
    if (
        start_dot == -1
        or end == -1
        or pre_dot_state == 0
        or (pre_dot_state == 1 and start_dot == end - 1 and start_dot == start_part + 1)
    ):
        return ""
    return path[start_dot:end]


def language_for(paths: Sequence[str] | None) -> str | None:
    """The lowercased extension (no dot) of the first path whose extension is longer than ``.``."""
    for raw in paths or ():
        if not isinstance(raw, str):
            continue
        ext = extname(normalize_path(raw))
        if len(ext) > 1:
            return ext[1:].lower()
    return None


def parse_language(lang: str) -> str | None:
    """The ast-grep-py language that parses native alias ``lang`` (dynamic grammars registered), or
    ``None`` when the native engine does not know it or no grammar is available here."""
    sg_lang = NATIVE_ALIASES.get(lang)
    return ast_languages.resolve(sg_lang) if sg_lang is not None else None


def native_pattern(pattern: str, sg_lang: str) -> str:
    """``pattern`` as the native engine hands it to the parser (see ``ast_languages.native_pattern``)."""
    return ast_languages.native_pattern(pattern, sg_lang)


def ast_match(patterns: Sequence[str], source: str, lang: str) -> bool:
    """Some pattern matches ``source`` (smart strictness); raises ``UnsupportedLanguage``."""
    return ast_match_each([patterns], source, lang)[0]


def ast_match_each(groups: Sequence[Sequence[str]], source: str, lang: str,
                   presence: ast_literals.Presence | None = None) -> list[bool]:
    """``ast_match`` of each group of patterns (one rule's) on the same ``source``, parsed at most
    once, and not at all when no pattern's literals occur in it (``ast_literals``; ``presence``
    remembers which occur, for a stream whose snapshots grow); raises ``UnsupportedLanguage``
    before anything else, as ``ast_match`` does."""
    if lang not in NATIVE_ALIASES:
        raise UnsupportedLanguage(SUPPORTED_TEXT.format(lang=lang))
    sg_lang = NATIVE_ALIASES[lang]
    sg_lang = ast_languages.resolve(sg_lang) if sg_lang is not None else None
    if sg_lang is None:
        return [False] * len(groups)
    if not source:
        # The answer for an empty source depends only on the patterns and the language (a parse and
        # a match are pure), and it is asked often: the agent's ``edit`` with ``oldText`` /
        # ``newText`` has an empty digest in the ``replace`` reading (README, "Benchmarks").
        key = (sg_lang, tuple(tuple(patterns) for patterns in groups), ast_literals.ast_prefilter_enabled())
        known = _EMPTY_SOURCE.get(key)
        if known is None:
            if len(_EMPTY_SOURCE) > 256:
                _EMPTY_SOURCE.clear()
            known = _EMPTY_SOURCE[key] = tuple(_match_each(groups, source, sg_lang, None))
        return list(known)
    return _match_each(groups, source, sg_lang, presence)


# Answers for the empty source, per (language, pattern groups, prefilter switch).
_EMPTY_SOURCE: dict[tuple[str, tuple[tuple[str, ...], ...], bool], tuple[bool, ...]] = {}


def _match_each(groups: Sequence[Sequence[str]], source: str, sg_lang: str,
                presence: ast_literals.Presence | None) -> list[bool]:
    live = [ast_literals.viable(patterns, sg_lang, source, presence) for patterns in groups]
    if not any(live):
        return [False] * len(groups)
    try:
        root = SgRoot(source, sg_lang).root()
    except BaseException as exc:  # noqa: BLE001 - PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return [False] * len(groups)
    return [_any_pattern(root, patterns, sg_lang) for patterns in live]


def _any_pattern(root: SgNode, patterns: Sequence[str], sg_lang: str) -> bool:
    if len(patterns) > 1 and ast_literals.ast_prefilter_enabled():
        # One traversal for all of a rule's patterns: "some pattern matches" is exactly what an
        # `any` rule finds. When one of them does not compile the whole rule fails; then each
        # pattern is tried alone, so that the bad one is skipped as before.
        try:
            rule = [{"pattern": {"context": ast_languages.native_pattern(p, sg_lang), "strictness": "smart"}}
                    for p in patterns]
            return root.find(any=rule) is not None  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 - ast-grep-py panics are BaseExceptions
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
    for pattern in patterns:
        try:
            context = ast_languages.native_pattern(pattern, sg_lang)
            if root.find(pattern={"context": context, "strictness": "smart"}) is not None:  # type: ignore[call-overload]
                return True
        except BaseException as exc:  # noqa: BLE001 - an uncompilable pattern is skipped silently
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            continue
    return False


def ast_spans(patterns: Sequence[str], source: str, lang: str) -> list[tuple[int, int, int]]:
    """``(start, end, line)`` of every node any pattern matches (0-based line), sorted; ``[]`` when
    the language is unknown or nothing parses (``ast_match`` treats those as "no match" too). The
    reference reports no position; firings and the scan locate their nodes with this."""
    sg_lang = parse_language(lang)  # registers the dynamic grammars (toml, sql ...) on first use
    if sg_lang is None:
        return []
    try:
        root = SgRoot(source, sg_lang).root()
    except BaseException as exc:  # noqa: BLE001 - ast-grep-py panics are BaseExceptions
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return []
    found: set[tuple[int, int, int]] = set()
    for pattern in patterns:
        try:
            nodes = root.find_all(pattern={"context": native_pattern(pattern, sg_lang), "strictness": "smart"})  # type: ignore[call-overload]
        except BaseException as exc:  # noqa: BLE001 - an uncompilable pattern is skipped, as in the engine
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            continue
        for node in nodes:
            r = node.range()
            found.add((r.start.index, r.end.index, r.start.line))
    return sorted(found)
