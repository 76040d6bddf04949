"""Redaction before sharing: secrets, e-mail addresses and home-folder paths replaced in an export.

Only the export's copy of the data changes; the session file is read, never written. Each kind has a
name so that the count and the preview say what was found (``docs`` of the README: "Redaction").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from workbench.errors import UsageError

# The usual shapes of API keys and tokens (provider prefixes), JWTs, bearer headers, mail, home folders.
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("bearer", r"(?i)\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    ("api-key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("aws-key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    ("slack-token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("google-key", r"\bAIza[A-Za-z0-9_-]{35}"),
    ("email", r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"),
    ("home-path", r"(?:/home/|/Users/|[A-Za-z]:\\\\Users\\\\|[A-Za-z]:\\Users\\)[^/\\\s\"']+"),
)


# What a text must contain for each built-in pattern to match in it (any one of them): a substring test
# runs at C speed, while Python's regex engine tries every word boundary of the text, so a real session's
# export (3 MB of strings, nine patterns) took 11 s to preview and now skips most texts for most patterns.
# Each guard is implied by its pattern (bearer is case-blind: its guard reads the lower-cased text).
_GUARDS: dict[str, tuple[str, ...]] = {
    "jwt": ("eyJ",),
    "api-key": ("sk-",),
    "github-token": ("gh", "github_pat_"),
    "aws-key": ("AKIA", "ASIA"),
    "slack-token": ("xox",),
    "google-key": ("AIza",),
    "email": ("@",),
    "home-path": ("/home/", "/Users/", "Users\\"),
}


def _may_match(kind: str, text: str) -> bool:
    if kind == "bearer":
        return "bearer" in text.lower()
    guards = _GUARDS.get(kind)
    return guards is None or any(g in text for g in guards)


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces every match of the built-in patterns and ``extra`` (user regexes) by ``[redacted:KIND]``."""

    extra: tuple[str, ...] = ()
    _compiled: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = [(kind, re.compile(rx)) for kind, rx in BUILTIN_PATTERNS]
        for rx in self.extra:
            try:
                compiled.append(("pattern", re.compile(rx)))
            except re.error as exc:
                raise UsageError(f"--redact-pattern {rx!r}: not a valid regular expression ({exc})") from None
        object.__setattr__(self, "_compiled", tuple(compiled))

    def redact_text(self, text: str, found: Counter[str], preview: list[tuple[str, str]] | None = None) -> str:
        for kind, rx in self._compiled:
            if kind != "pattern" and not _may_match(kind, text):
                continue
            def swap(m: re.Match[str], kind: str = kind) -> str:
                found[kind] += 1
                if preview is not None:
                    preview.append((kind, m.group(0)))
                return f"[redacted:{kind}]"
            text = rx.sub(swap, text)
        return text

    def redact(self, data: Any) -> tuple[Any, Redaction]:
        """A copy of ``data`` (JSON values) with every string redacted, and what was found."""
        found: Counter[str] = Counter()
        preview: list[tuple[str, str]] = []
        # an export repeats a text many times (a row in every filter's view): each distinct text is
        # redacted once and its matches counted again at every repeat
        done: dict[str, tuple[str, list[tuple[str, str]]]] = {}

        def text(value: str) -> str:
            hit = done.get(value)
            if hit is None:
                seen: list[tuple[str, str]] = []
                hit = done[value] = (self.redact_text(value, Counter(), seen), seen)
            found.update(kind for kind, _ in hit[1])
            preview.extend(hit[1])
            return hit[0]

        def walk(value: Any) -> Any:
            if isinstance(value, str):
                return text(value)
            if isinstance(value, dict):
                return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [walk(v) for v in value]
            return value

        copy = walk(data)
        # counted once per distinct value: an export repeats a row's text in every filter's view
        distinct = Counter(kind for kind, _ in dict.fromkeys(preview))
        return copy, Redaction(dict(sorted(distinct.items())), tuple(preview), sum(found.values()))


@dataclass(frozen=True, slots=True)
class Redaction:
    """How many of each kind were redacted, and the matches themselves (the preview, for the user only)."""

    counts: dict[str, int]  # distinct values per kind
    found: tuple[tuple[str, str], ...] = ()
    occurrences: int = 0  # every replacement made

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def preview(self, limit: int = 50) -> Iterable[str]:
        seen: dict[tuple[str, str], int] = {}
        for item in self.found:
            seen[item] = seen.get(item, 0) + 1
        for (kind, text), n in list(seen.items())[:limit]:
            yield f"{kind}: {text}" + (f" (x{n})" if n > 1 else "")
