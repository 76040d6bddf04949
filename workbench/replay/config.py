"""What a replay is given: one typed configuration (``ReplayConfig``) and one typed source (``ReplaySource``).

Every entry point of the replay (``Stepper``, ``SimulatedSession``, ``run_session``, the time bound's
``guard`` and ``PreCheck``, ``record_firings``) takes these two values instead of a row of keyword
arguments, so that a new input (the agent's name, where each setting came from) is one field here and
reaches every consumer without a signature changing on the way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from workbench.replay.engine import TtsrSettings
from workbench.replay.judge.judges import Judge
from workbench.replay.stream import Stream

__all__ = ["AUTO_EDIT_MODE", "ReplayConfig", "ReplaySource", "SettingsInput", "Templates", "as_source", "settings_of"]

# ``None`` (the engine's defaults), an ``(interrupt, reminder)`` pair or a mapping with ``interrupt`` /
# ``reminder`` / ``warning`` keys; each text may be a ``Path`` read with the engine's template loader.
Templates: TypeAlias = "tuple[str | Path | None, ...] | Mapping[str, str | Path | None] | None"
# A ``TtsrSettings``, the reference's mapping (camelCase or snake_case keys), or a live source the manager
# reads at every check (18.3).
SettingsInput: TypeAlias = "TtsrSettings | Mapping[str, Any] | Callable[[], Any] | None"

AUTO_EDIT_MODE = "auto"  # each tool call's edit mode is read from the call itself


@dataclass(frozen=True, slots=True)
class ReplayConfig:
    """How to replay: the TTSR settings, where the agent runs, its templates, the session resumed, the
    edit mode, the judge of judged rules, the time bound (seconds per event; ``None``: unbounded) and the
    agent whose rules apply (``agents:`` frontmatter; ``None``: every rule, as the caller already chose).

    ``settings`` given as a mapping or ``None`` becomes ``TtsrSettings`` (a live source stays as it is).
    ``cwd`` ``None`` means the stream's own working directory (``for_stream``).
    """

    settings: TtsrSettings | Callable[[], Any] = field(default_factory=TtsrSettings)
    cwd: str | None = None
    home: str | None = None
    templates: Templates = None
    resume: Any = None  # a loaded ``Session`` or a path to one
    edit_mode: str = AUTO_EDIT_MODE
    judge: Judge | None = None
    time_bound: float | None = 2.0
    agent: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", settings_of(self.settings))

    @classmethod
    def of(cls, settings: SettingsInput = None, **fields: Any) -> ReplayConfig:
        """A configuration from ``settings`` in any accepted form and keyword fields."""
        return cls(settings=settings_of(settings), **fields)

    def replace(self, **changes: Any) -> ReplayConfig:
        return dataclasses.replace(self, **changes)

    def for_stream(self, stream: Stream) -> ReplayConfig:
        """This configuration with ``cwd`` settled: the given one, else the stream's, else ``/``."""
        where = self.cwd or stream.cwd or "/"
        return self if where == self.cwd else dataclasses.replace(self, cwd=where)

    @property
    def where(self) -> str:
        return self.cwd or "/"

    @property
    def tool_edit_mode(self) -> str | None:
        """The edit mode handed to the engine's tool surfaces: ``None`` lets each call decide."""
        return None if self.edit_mode == AUTO_EDIT_MODE else self.edit_mode

    def unjudged(self) -> ReplayConfig:
        """The same replay without a judge (the time bound must not ask anyone anything)."""
        return self if self.judge is None else dataclasses.replace(self, judge=None)


def settings_of(settings: SettingsInput) -> TtsrSettings | Callable[[], Any]:
    """``TtsrSettings`` from a mapping or ``None``; a ``TtsrSettings`` or a live source as given."""
    if settings is None or isinstance(settings, Mapping):
        return TtsrSettings.from_mapping(settings)
    return settings


@dataclass(frozen=True, slots=True)
class ReplaySource:
    """What is replayed: the ``stream``, the session it was derived from (``None`` for a recorded
    stream file) and a ``label`` saying so to a reader."""

    stream: Stream
    session: Any = None
    label: str = ""


def as_source(source: ReplaySource | Stream) -> ReplaySource:
    return source if isinstance(source, ReplaySource) else ReplaySource(source)
