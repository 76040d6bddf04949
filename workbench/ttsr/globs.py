"""Glob matching with Bun.Glob semantics (the reference runtime), not ``fnmatch``.

Observed Bun.Glob behaviour reproduced here: whole-string and case-sensitive; ``*`` and ``?`` never
cross ``/`` and dot-files are not special; a ``**`` segment spans zero or more directories
(``**/*.ts`` matches ``a.ts``, ``src/**`` does not match ``src``); ``[...]`` with ``!``/``^``
negation; nestable ``{a,b}``; ``\\`` escapes; a leading ``!`` negates the pattern. An unterminated
``[`` matches nothing and an unterminated ``{a,b`` keeps only its first alternative; neither raises.

Bun's quirks around ``**`` (probed with Bun 1.3.14, table in tests/ttsr/data/bun_glob_cases.json):
a trailing ``**/*`` does not match a path whose last segment is empty (``src/**/*`` vs ``src/``);
after a ``!`` prefix a leading ``**`` is two plain stars (``!**`` is ``!*``); a ``**`` opening a
brace branch is a globstar (``{**/*,x}`` matches ``a/b/c``), one closed by ``,`` or ``}`` is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

_NEVER = re.compile(r"(?!)")


class _Unterminated(Exception):
    pass


def _translate(glob: str, i: int, stop: str, origin: int) -> tuple[str, int]:
    """Translate ``glob[i:]`` up to an unnested character in ``stop``; returns (regex, index).

    ``origin`` is where a ``**`` may open without a ``/`` before it: the pattern's start, or a brace
    branch's start (-1 when a ``!`` prefix came first: Bun then never takes a leading ``**`` as a
    globstar, so ``!**`` negates a one-segment ``*``).
    """
    out: list[str] = []
    n = len(glob)
    while i < n:
        c = glob[i]
        if c in stop:
            return "".join(out), i
        if c == "\\":
            if i + 1 < n:
                out.append(re.escape(glob[i + 1]))
                i += 2
            else:
                out.append(re.escape("\\"))
                i += 1
        elif c == "*":
            j = i
            while j < n and glob[j] == "*":
                j += 1
            at_seg_start = i == origin or (i > 0 and glob[i - 1] == "/")
            # Only the pattern's very end or a `/` closes a globstar: `{x,**}` is a plain `*` in Bun.
            at_seg_end = j == n or glob[j] == "/"
            if j - i >= 2 and at_seg_start and at_seg_end:
                if j < n and glob[j] == "/":
                    j += 1
                    if stop == "" and glob[j:] == "*":
                        # Bun refuses to restart a trailing top-level `**/*` at the end of the path,
                        # so its last `*` never matches an empty segment (`src/`, `a/`, "").
                        out.append("(?:[^/]*/)*[^/]+")
                        return "".join(out), n
                    out.append("(?:[^/]*/)*")  # `**/` may match zero directories
                else:
                    out.append(".*")
            else:
                out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = i + 1
            negate = j < n and glob[j] in "!^"
            if negate:
                j += 1
            start = j
            while j < n and (glob[j] != "]" or j == start):
                j += 1
            if j >= n:
                raise _Unterminated  # Bun: an unterminated class matches nothing
            body = glob[start:j]
            parts = []
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    lo, hi = body[k], body[k + 2]
                    if lo <= hi:
                        parts.append(f"{re.escape(lo)}-{re.escape(hi)}")
                    k += 3
                else:
                    parts.append(re.escape(body[k]))
                    k += 1
            cls = "".join(parts)
            out.append(f"[^{cls}]" if negate else (f"[{cls}]" if cls else "(?!)"))
            i = j + 1
        elif c == "{":
            alts: list[str] = []
            j = i + 1
            while True:
                piece, j = _translate(glob, j, ",}", j)
                alts.append(piece)
                if j >= n:
                    # Unterminated brace: Bun keeps only the first alternative.
                    out.append(alts[0])
                    return "".join(out), j
                if glob[j] == "}":
                    j += 1
                    break
                j += 1  # past ','
            out.append("(?:" + "|".join(alts) + ")")
            i = j
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out), i


@lru_cache(maxsize=4096)
def compile_glob(glob: str) -> tuple[re.Pattern[str], bool]:
    """(regex, negated) for one glob; an unterminated ``[`` compiles to a never-matching regex."""
    prefix = len(glob) - len(glob.lstrip("!"))
    negated = prefix % 2 == 1
    glob = glob[prefix:]
    try:
        body, _ = _translate(glob, 0, "", -1 if prefix else 0)
    except _Unterminated:
        return _NEVER, negated
    return re.compile(f"(?s:{body})\\Z"), negated


def glob_match(glob: str, path: str) -> bool:
    """Bun.Glob ``match``: the whole path against one glob."""
    rx, negated = compile_glob(glob)
    return (rx.match(path) is not None) != negated


def normalize_path(path: str) -> str:
    """Backslashes become ``/`` (the reference does this before every glob test)."""
    return path.replace("\\", "/")


def matches_any_path(globs: Sequence[str], paths: Iterable[str] | None) -> bool:
    """Some glob matches some candidate, on the full path or (if it differs) its basename."""
    if not paths:
        return False
    for raw in paths:
        if not isinstance(raw, str):
            continue
        path = normalize_path(raw)
        base = path.rsplit("/", 1)[-1]
        for glob in globs:
            if glob_match(glob, path) or (base != path and glob_match(glob, base)):
                return True
    return False
