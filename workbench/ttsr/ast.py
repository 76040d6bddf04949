"""AST conditions: ast-grep patterns run on a tool snapshot, as the reference's native matcher does.

The reference picks the language from the first candidate path with an extension (Node
``path.extname``), asks its native ast-grep for ``{patterns, lang, strictness: smart, limit: 1}`` and
treats ``totalMatches > 0`` as a match. An unsupported language throws there (the manager warns);
a pattern that does not compile is skipped silently. ``ast-grep-py`` panics with
``pyo3_runtime.PanicException`` (a ``BaseException``) on unknown languages, so language names are
validated against a fixed table first and every native call is fenced.
"""

from __future__ import annotations

from collections.abc import Sequence

from ast_grep_py import SgRoot

from workbench.ttsr.globs import normalize_path

# The native engine's alias table (its "Supported:" list), mapped to ast-grep-py language names.
# Aliases the native engine knows but ast-grep-py cannot parse map to None: no match, no warning.
NATIVE_ALIASES: dict[str, str | None] = {
    "astro": None, "bash": "bash", "bats": "bash", "bazel": None, "bzl": None, "c": "c",
    "c#": "csharp", "c++": "cpp", "cc": "cpp", "cfg": None, "cjs": "javascript", "clj": None,
    "cljc": None, "cljs": None, "clojure": None, "clojurescript": None, "cmake": None, "conf": None,
    "config": None, "containerfile": None, "cpp": "cpp", "cs": "csharp", "csharp": "csharp",
    "css": "css", "cts": "typescript", "cu": "cpp", "cuh": "cpp", "cxx": "cpp", "dart": "dart",
    "diff": None, "docker": None, "dockerfile": None, "edn": None, "el": None, "elisp": None,
    "elixir": "elixir", "emacs-lisp": None, "emacslisp": None, "erl": None, "erlang": None,
    "ex": "elixir", "exs": "elixir", "f03": None, "f08": None, "f90": None, "f95": None,
    "fortran": None, "gemspec": "ruby", "gnumake": None, "go": "go", "golang": "go", "gql": None,
    "graphql": None, "h": "c", "haskell": "haskell", "hcl": "hcl", "hh": "cpp", "hpp": "cpp",
    "hrl": None, "hs": "haskell", "htm": "html", "html": "html", "ini": None, "ino": "cpp",
    "java": "java", "javascript": "javascript", "jl": None, "js": "javascript", "json": "json",
    "jsx": "javascript", "julia": None, "just": None, "justfile": None, "kotlin": "kotlin",
    "ksh": "bash", "kt": "kotlin", "ktm": "kotlin", "kts": "kotlin", "lua": "lua", "m": None,
    "mak": None, "make": None, "makefile": None, "markdown": "markdown", "md": "markdown", "mdx": None,
    "mjs": "javascript", "mk": None, "ml": None, "mm": None, "mts": "typescript", "nix": "nix",
    "obj-c": None, "objc": None, "objective-c": None, "ocaml": None, "odin": None, "patch": None,
    "pcal": None, "php": "php", "plist": None, "pluscal": None, "powershell": None,
    "properties": None, "proto": None, "protobuf": None, "ps1": None, "psm1": None, "py": "python",
    "py3": "python", "pyi": "python", "python": "python", "r": None, "rb": "ruby", "rbw": "ruby",
    "re": None, "regex": None, "rs": "rust", "ruby": "ruby", "rust": "rust", "sbt": "scala",
    "sc": "scala", "scala": "scala", "sh": "bash", "skylark": None, "sol": "solidity",
    "solidity": "solidity", "sql": None, "star": None, "starlark": None, "sv": None, "svelte": None,
    "svg": None, "svh": None, "swift": "swift", "systemverilog": None, "terraform": "hcl",
    "tf": "hcl", "tfvars": "hcl", "tla": None, "tla+": None, "tlaplus": None, "toml": None,
    "ts": "typescript", "tsx": "tsx", "typescript": "typescript", "v": None, "verilog": None,
    "vh": None, "vue": None, "xhtml": "html", "xml": None, "xsl": None, "xslt": None,
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


def ast_match(patterns: Sequence[str], source: str, lang: str) -> bool:
    """Some pattern matches ``source`` (smart strictness); raises ``UnsupportedLanguage``."""
    if lang not in NATIVE_ALIASES:
        raise UnsupportedLanguage(SUPPORTED_TEXT.format(lang=lang))
    sg_lang = NATIVE_ALIASES[lang]
    if sg_lang is None:
        return False
    try:
        root = SgRoot(source, sg_lang).root()
    except BaseException as exc:  # noqa: BLE001 - PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return False
    for pattern in patterns:
        try:
            if root.find(pattern={"context": pattern, "strictness": "smart"}) is not None:  # type: ignore[call-overload]
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
    sg_lang = NATIVE_ALIASES.get(lang)
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
            nodes = root.find_all(pattern={"context": pattern, "strictness": "smart"})  # type: ignore[call-overload]
        except BaseException as exc:  # noqa: BLE001 - an uncompilable pattern is skipped, as in the engine
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            continue
        for node in nodes:
            r = node.range()
            found.add((r.start.index, r.end.index, r.start.line))
    return sorted(found)
