"""The values that cross the manager's surface: match contexts, diagnostics, injection gaps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

MatchSource = Literal["text", "thinking", "tool"]


@dataclass(frozen=True, slots=True)
class MatchContext:
    """Where a delta came from (the reference's ``TtsrMatchContext``); ``None`` = key absent."""

    source: MatchSource
    tool_name: str | None = None
    file_paths: Sequence[str] | None = None
    stream_key: str | None = None

    @classmethod
    def from_mapping(cls, m: dict[str, Any]) -> MatchContext:
        """Build from the reference's camelCase object (``toolName``, ``filePaths``, ``streamKey``)."""
        paths = m.get("filePaths")
        return cls(
            source=m.get("source"),  # type: ignore[arg-type]
            tool_name=m.get("toolName"),
            file_paths=tuple(paths) if isinstance(paths, (list, tuple)) else None,
            stream_key=m.get("streamKey"),
        )


@dataclass(frozen=True, slots=True)
class InjectionGap:
    """Turns since a rule was last injected (clamped at 0) and whether its position is journaled."""

    gap: int | float
    journal_coords: bool


@dataclass(frozen=True, slots=True)
class InjectionRecord:
    """The manager's per-name record: the message count at injection and the journal flag."""

    last_injected_at: int | float
    journal_coords: bool

