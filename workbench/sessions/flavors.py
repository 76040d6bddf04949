"""Which agent's `/tree` and context rules a session file is read with: named flavours and detection.

Flavours: ``omp`` (oh-my-pi 17, also spelled ``omp17``), ``omp18`` (oh-my-pi 18.3 with pi-tui 18.2.9),
``pi`` (pi-mono) and ``omp57`` (oh-my-pi 5.7, for the conformance cases). ``auto`` picks one from the
file by the marks each agent leaves (``detect_flavor``); every caller can still name a flavour.

Detection, first rule that applies:

1. ``pi`` when a record only pi writes is present: a ``session_info`` entry, a ``model_change`` with
   ``provider``/``modelId`` fields instead of ``model``, or a ``branch_summary`` with ``fromHook``.
2. ``omp18`` when a record or field only omp 18 writes is present: an entry of type ``model_usage``,
   ``service_tier_change``, ``credential_pin``, ``session_init``, ``mode_change`` or
   ``reset_boundary``; a header with ``additionalDirectories``, ``previousSessionFiles`` or
   ``providerPromptCacheKey``; a ``thinking_level_change`` with ``configured``; a ``model_change`` with
   ``resolvedModelIsFallback``.
3. ``omp`` (17) otherwise: the two agents write the same version 3 header, so an old file without any
   of these marks reads as the older selector, which is what the samples were recorded with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workbench.errors import UsageError

Flavor = Literal["omp", "pi", "omp57", "omp18"]
FLAVOR_CHOICES: tuple[str, ...] = ("auto", "omp", "omp17", "omp18", "pi")
_ALIASES = {"omp17": "omp"}
_KNOWN = ("omp", "pi", "omp57", "omp18")

OMP18_ENTRY_TYPES = frozenset({"model_usage", "service_tier_change", "credential_pin", "session_init",
                               "mode_change", "reset_boundary"})
# The entry types the marks below are found on.
_MARKED_TYPES = OMP18_ENTRY_TYPES | {"session_info", "model_change", "branch_summary", "thinking_level_change"}
_OMP18_HEADER_FIELDS = ("additionalDirectories", "previousSessionFiles", "providerPromptCacheKey")


@dataclass(frozen=True, slots=True)
class FlavorGuess:
    """The flavour a file reads as, and the mark that decided it (line 0 = the header)."""

    flavor: Flavor
    reason: str
    line: int = 0


def detect_flavor(session: Any) -> FlavorGuess:
    """The flavour of a loaded ``Session`` (or anything with ``header`` and ``entries``)."""
    header: Mapping[str, Any] = getattr(session, "header", None) or {}
    entries: Iterable[Any] = getattr(session, "entries", ()) or ()
    omp18: FlavorGuess | None = None
    for field in _OMP18_HEADER_FIELDS:
        if field in header:
            omp18 = FlavorGuess("omp18", f"header field {field}", 0)
            break
    for entry in entries:
        etype = entry.type
        if etype not in _MARKED_TYPES:  # most entries: no record to look into
            continue
        obj = entry.obj
        if etype == "session_info":
            return FlavorGuess("pi", "a session_info entry (pi's session name)", entry.line)
        if etype == "model_change" and "model" not in obj and ("modelId" in obj or "provider" in obj):
            return FlavorGuess("pi", "a model_change with provider/modelId", entry.line)
        if etype == "branch_summary" and "fromHook" in obj:
            return FlavorGuess("pi", "a branch_summary with fromHook", entry.line)
        if omp18 is None:
            if etype in OMP18_ENTRY_TYPES:
                omp18 = FlavorGuess("omp18", f"a {etype} entry", entry.line)
            elif etype == "thinking_level_change" and "configured" in obj:
                omp18 = FlavorGuess("omp18", "a thinking_level_change with configured", entry.line)
            elif etype == "model_change" and "resolvedModelIsFallback" in obj:
                omp18 = FlavorGuess("omp18", "a model_change with resolvedModelIsFallback", entry.line)
    if omp18 is not None:
        return omp18
    return FlavorGuess("omp", "no mark of pi or omp 18: read as omp 17", 0)


def resolve_flavor(flavor: str, source: Any = None) -> Flavor:
    """A flavour name as given (``omp17`` → ``omp``); ``auto`` detects it from ``source``."""
    name = _ALIASES.get(flavor, flavor)
    if name == "auto":
        # A SessionTree built from a loaded file keeps it: detect from the file (header included).
        loaded = getattr(source, "session", None)
        return detect_flavor(loaded if loaded is not None else source).flavor if source is not None else "omp"
    if name not in _KNOWN:
        raise UsageError(f"unknown tree flavor {flavor!r} (use {', '.join(FLAVOR_CHOICES)})")
    return name  # type: ignore[return-value]
