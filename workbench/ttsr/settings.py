"""Manager settings: the reference's ``ttsr.*`` group, merged over its defaults.

The reference spreads the caller's object over the defaults, so unknown keys survive and a key given
explicitly (even as ``undefined``) wins. ``TtsrSettings`` keeps that: the seven known keys are typed
fields and everything else lives in ``extra``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from workbench.rules.agent_settings import TTSR_DEFAULTS
from workbench.rules.model import INTERRUPT_MODES, InterruptMode

__all__ = [
    "CONTEXT_MODES",
    "DEFAULTS",
    "INTERRUPT_MODES",
    "REPEAT_MODES",
    "ContextMode",
    "InterruptMode",
    "RepeatMode",
    "TtsrSettings",
    "js_truthy",
]

# A value as read from a JSON/YAML settings file.
JsonValue: TypeAlias = "None | bool | int | float | str | list[Any] | tuple[Any, ...] | Mapping[str, Any]"

# The one home of each settings enum (Literal + its choices): CLI choices and UI options come from here.
ContextMode = Literal["keep", "discard"]
CONTEXT_MODES: tuple[ContextMode, ...] = ("keep", "discard")
RepeatMode = Literal["once", "after-gap"]
REPEAT_MODES: tuple[RepeatMode, ...] = ("once", "after-gap")

# The manager's own settings: the agent's ttsr group (one table, ``rules/agent_settings.py``) less
# ``judge``, which decides discovery (whether judged rules are delivered) rather than the manager.
DEFAULTS: dict[str, Any] = {k: v for k, v in TTSR_DEFAULTS.items() if k != "judge"}

_CAMEL = {
    "enabled": "enabled",
    "context_mode": "contextMode",
    "interrupt_mode": "interruptMode",
    "repeat_mode": "repeatMode",
    "repeat_gap": "repeatGap",
    "builtin_rules": "builtinRules",
    "disabled_rules": "disabledRules",
}
_FIELD = {camel: snake for snake, camel in _CAMEL.items()}


def _camel_key(key: str) -> str:
    if key in _CAMEL:
        return _CAMEL[key]
    if key in _FIELD:
        return key
    # Unknown snake_case keys are kept as given: the reference never renames them either.
    return key


@dataclass(frozen=True, slots=True)
class TtsrSettings:
    """The merged settings. Only ``enabled``, ``repeat_mode`` and ``repeat_gap`` steer the manager."""

    # The reference reads these from a user's settings file unchecked, so a value of another JSON type
    # is kept as given (``enabled`` is tested for JS truthiness, ``repeatGap`` compared as a number).
    enabled: JsonValue = True
    context_mode: ContextMode | str | None = "discard"
    interrupt_mode: InterruptMode | str | None = "always"
    repeat_mode: RepeatMode | str | None = "once"
    repeat_gap: int | float | JsonValue = 10
    builtin_rules: bool | JsonValue = True
    disabled_rules: list[str] | tuple[str, ...] | JsonValue = field(default_factory=list)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, m: Mapping[str, Any] | None) -> TtsrSettings:
        """Merge ``m`` (camelCase or snake_case keys) over the defaults; unknown keys are kept."""
        merged: dict[str, Any] = dict(DEFAULTS)
        merged["disabledRules"] = []
        for key, value in (m or {}).items():
            merged[_camel_key(str(key))] = value
        known = {_FIELD[k]: merged.pop(k) for k in list(merged) if k in _FIELD}
        return cls(**known, extra=merged)

    def to_mapping(self) -> dict[str, Any]:
        """The camelCase mapping, defaults first, then unknown keys in the order given."""
        out = {camel: getattr(self, snake) for camel, snake in _FIELD.items()}
        out.update(self.extra)
        return out

    @classmethod
    def of(cls, **given: Any) -> TtsrSettings:
        """Settings from snake_case keywords, leaving out those given as ``None`` (not chosen: the
        default applies). The CLI's flags and the UI's widgets build their settings with this."""
        return cls.from_mapping({k: v for k, v in given.items() if v is not None})

    @property
    def is_enabled(self) -> bool:
        """JS truthiness of ``enabled`` (the reference tests ``if (!settings.enabled)``)."""
        return js_truthy(self.enabled)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness for JSON-ish values."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == value and value != 0  # NaN and 0 are falsy
    if isinstance(value, str):
        return value != ""
    return True


