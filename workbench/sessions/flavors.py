"""Which agent's `/tree` and context rules a session file is read with: the registry and detection.

``REGISTRY`` holds one ``flavour.TreeFlavour`` object per followed reference version (modules
``omp17``, ``omp18``, ``pi``, ``omp57``); ``flavour(name)`` gives the object of a name or alias.

Flavours: ``omp`` (oh-my-pi 17, also spelled ``omp17``), ``omp18`` (oh-my-pi 18.3 with pi-tui 18.2.9),
``pi`` (pi-mono) and ``omp57`` (oh-my-pi 5.7, for the conformance cases). ``auto`` picks one from the
file by the marks each agent leaves (``detect_flavor``); every caller can still name a flavour, and
``choose_flavor`` is the one decision every command and the app make for a file.

Detection, first rule that applies (why each mark tells the agent apart: docs/flavours.md):

1. ``pi`` when a record only pi writes is present: a ``session_info`` entry, a ``model_change`` with
   ``provider``/``modelId`` fields instead of ``model``, a ``branch_summary`` or ``compaction`` with
   ``fromHook``, a ``usage`` or ``context_edit`` entry, a message of role ``system``.
2. ``omp18`` when a record or field only omp 18 writes is present: an entry of type ``model_usage``,
   ``service_tier_change``, ``credential_pin``, ``session_init``, ``mode_change`` or
   ``reset_boundary``; a header with ``additionalDirectories``, ``previousSessionFiles`` or
   ``providerPromptCacheKey``; a ``thinking_level_change`` with ``configured``; a ``model_change`` with
   ``resolvedModelIsFallback``.
3. ``pi`` when the header's id is a version 4 UUID (pi names a session with ``randomUUID``; oh-my-pi 17
   and 18 with a version 7 UUID, oh-my-pi 5.7 with a nanoid) or the file lies under ``.pi/agent/``.
4. ``omp18`` otherwise: the current release. The reason then says what decided it: a mark of
   oh-my-pi without one of its version (a version 7 UUID, a title slot or title, ``fromExtension``,
   a ``ttsr_injection`` entry, a file under ``.omp/agent/``) or no mark at all ("no mark: read as …").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.errors import UsageError
from workbench.sessions.flavour import Flavor, TreeFlavour
from workbench.sessions.omp17 import OMP17
from workbench.sessions.omp18 import OMP18
from workbench.sessions.omp57 import OMP57
from workbench.sessions.pi import PI

__all__ = ["CURRENT", "FLAVOR_BUTTONS", "FLAVOR_CHOICES", "REGISTRY", "Flavor", "FlavorGuess", "TreeFlavour",
           "choose_flavor", "detect_flavor", "flavour", "flavour_aliases", "resolve_flavor"]

# The registry, one object per followed reference version (``flavour.TreeFlavour``): the CLI's
# --flavor choices, the app's buttons, export and `auto` are built from it.
REGISTRY: tuple[TreeFlavour, ...] = (OMP17, OMP18, PI, OMP57)
_BY_NAME: dict[str, TreeFlavour] = {n: f for f in REGISTRY for n in (f.name, *f.aliases)}
_KNOWN = tuple(f.name for f in REGISTRY)
_ALIASES = {alias: f.name for f in REGISTRY for alias in f.aliases}
# auto first, then each offered flavour followed by its aliases: ("auto", "omp", "omp17", "omp18", "pi")
FLAVOR_CHOICES: tuple[str, ...] = ("auto", *(n for f in REGISTRY if f.offered for n in (f.name, *f.aliases)))
# the app's buttons: one per offered flavour (aliases are accepted in links), then auto
FLAVOR_BUTTONS: tuple[str, ...] = (*(f.name for f in REGISTRY if f.offered), "auto")
CURRENT: Flavor = "omp18"  # what a file without a mark of its agent's version is read as
_CURRENT_NAME = "omp 18.3"

OMP18_ENTRY_TYPES = frozenset({"model_usage", "service_tier_change", "credential_pin", "session_init",
                               "mode_change", "reset_boundary"})
_PI_ENTRY_TYPES = frozenset({"session_info", "usage", "context_edit"})
_OMP_ENTRY_TYPES = frozenset({"ttsr_injection", "title_change"})
# The entry types the marks below are found on (messages: only a role pi alone writes).
_MARKED_TYPES = (OMP18_ENTRY_TYPES | _PI_ENTRY_TYPES | _OMP_ENTRY_TYPES
                 | {"model_change", "branch_summary", "compaction", "thinking_level_change", "message"})
_OMP18_HEADER_FIELDS = ("additionalDirectories", "previousSessionFiles", "providerPromptCacheKey")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FlavorGuess:
    """The flavour a file reads as, and the mark that decided it (line 0 = the header).

    ``given``: named by the caller, not detected. ``note`` is what a command or the app shows
    beside the flavour."""

    flavor: Flavor
    reason: str
    line: int = 0
    given: bool = False

    @property
    def note(self) -> str:
        if self.given:
            return "given with --flavor"
        where = f" (line {self.line})" if self.line else ""
        return f"detected: {self.reason}{where}"

    @property
    def unmarked(self) -> bool:
        """True when no mark of the agent's version decided: the file is read as the current release."""
        return not self.given and self.reason.startswith("no mark")


def flavour(name: str) -> TreeFlavour:
    """The flavour object of a name or alias (``omp17`` → the ``omp`` flavour); not ``auto``."""
    found = _BY_NAME.get(name)
    if found is None:
        raise UsageError(f"unknown tree flavor {name!r} (use {', '.join(FLAVOR_CHOICES)})")
    return found


def flavour_aliases() -> dict[str, str]:
    """Other names of the flavours (``omp17`` → ``omp``)."""
    return dict(_ALIASES)


def _pi_mark(etype: str, obj: Mapping[str, Any]) -> str | None:
    if etype in _PI_ENTRY_TYPES:
        return f"a {etype} entry (pi)" if etype != "session_info" else "a session_info entry (pi's session name)"
    if etype == "model_change" and "model" not in obj and ("modelId" in obj or "provider" in obj):
        return "a model_change with provider/modelId"
    if etype in ("branch_summary", "compaction") and "fromHook" in obj:
        return f"a {etype} with fromHook"
    if etype == "message":
        msg = obj.get("message")
        if isinstance(msg, Mapping) and msg.get("role") == "system":
            return "a message of role system (pi)"
    return None


def _omp18_mark(etype: str, obj: Mapping[str, Any]) -> str | None:
    if etype in OMP18_ENTRY_TYPES:
        return f"a {etype} entry"
    if etype == "thinking_level_change" and "configured" in obj:
        return "a thinking_level_change with configured"
    if etype == "model_change" and "resolvedModelIsFallback" in obj:
        return "a model_change with resolvedModelIsFallback"
    return None


def _omp_mark(etype: str, obj: Mapping[str, Any]) -> str | None:
    if etype in _OMP_ENTRY_TYPES:
        return f"a {etype} entry"
    if etype in ("branch_summary", "compaction") and "fromExtension" in obj:
        return f"a {etype} with fromExtension"
    return None


def _header_marks(session: Any, header: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(a mark of pi, a mark of oh-my-pi) in the header, the title slot and the file's place."""
    path = str(getattr(session, "path", "") or "").replace("\\", "/")
    sid = header.get("id")
    match = _UUID.fullmatch(sid) if isinstance(sid, str) else None
    if match is not None and match.group(1) == "4":
        return "the header id is a version 4 UUID (pi's randomUUID)", None
    if "/.pi/agent/" in path:
        return "the file lies under .pi/agent/", None
    if match is not None and match.group(1) == "7":
        return None, "the header id is a version 7 UUID (oh-my-pi)"
    if getattr(session, "title_slot", None) is not None:
        return None, "a title slot on the first line (oh-my-pi)"
    if "title" in header or "titleSource" in header:
        return None, "a header title (oh-my-pi)"
    if "/.omp/agent/" in path:
        return None, "the file lies under .omp/agent/"
    return None, None


def detect_flavor(session: Any) -> FlavorGuess:
    """The flavour of a loaded ``Session`` (or anything with ``header`` and ``entries``)."""
    header: Mapping[str, Any] = getattr(session, "header", None) or {}
    entries: Iterable[Any] = getattr(session, "entries", ()) or ()
    omp18: FlavorGuess | None = None
    omp: FlavorGuess | None = None
    for field in _OMP18_HEADER_FIELDS:
        if field in header:
            omp18 = FlavorGuess("omp18", f"header field {field}", 0)
            break
    for entry in entries:
        etype = entry.type
        if etype not in _MARKED_TYPES:  # most entries: no record to look into
            continue
        obj = entry.obj
        pi = _pi_mark(etype, obj)
        if pi is not None:
            return FlavorGuess("pi", pi, entry.line)
        if omp18 is None:
            mark = _omp18_mark(etype, obj)
            if mark is not None:
                omp18 = FlavorGuess("omp18", mark, entry.line)
        if omp is None:
            mark = _omp_mark(etype, obj)
            if mark is not None:
                omp = FlavorGuess(CURRENT, f"{mark}, no mark of its version: read as {_CURRENT_NAME}", entry.line)
    if omp18 is not None:
        return omp18
    pi_head, omp_head = _header_marks(session, header)
    if pi_head is not None:
        return FlavorGuess("pi", pi_head, 0)
    if omp is not None:
        return omp
    if omp_head is not None:
        return FlavorGuess(CURRENT, f"{omp_head}, no mark of its version: read as {_CURRENT_NAME}", 0)
    return FlavorGuess(CURRENT, f"no mark: read as {_CURRENT_NAME} (the current release)", 0)


def choose_flavor(flavor: str, session: Any = None) -> FlavorGuess:
    """The one flavour decision for a file: as named (``omp17`` → ``omp``), or ``auto`` detected from
    ``session``. The CLI commands, export and the app all take their flavour from here."""
    name = _ALIASES.get(flavor, flavor)
    if name == "auto":
        # A SessionTree built from a loaded file keeps it: detect from the file (header included).
        loaded = getattr(session, "session", None)
        source = loaded if loaded is not None else session
        if source is None:
            return FlavorGuess(CURRENT, f"no mark: read as {_CURRENT_NAME} (the current release)", 0)
        return detect_flavor(source)
    if name not in _KNOWN:
        raise UsageError(f"unknown tree flavor {flavor!r} (use {', '.join(FLAVOR_CHOICES)})")
    return FlavorGuess(name, "given", 0, given=True)


def resolve_flavor(flavor: str, source: Any = None) -> Flavor:
    """A flavour name as given (``omp17`` → ``omp``); ``auto`` detects it from ``source``."""
    return choose_flavor(flavor, source).flavor
