"""Which agent a session file is read as: the followed versions, their file rules, and detection.

``FLAVOURS`` holds one ``SessionFlavour`` per followed reference version: its names, and what it does
with a file (the context at a leaf, `/tree` navigation, where a branch summary says a hook made it).
The `/tree` selector of each version (row text, search, layout, keys) is ``workbench.tree``'s
``TreeFlavour``, which holds this object; ``session_flavour(name)`` gives the one of a name or alias.

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
from typing import Any, Literal

from workbench.errors import UsageError

__all__ = ["CURRENT", "FLAVOR_BUTTONS", "FLAVOR_CHOICES", "FLAVOURS", "OMP17", "OMP18", "OMP57", "PI",
           "SKILL_PROMPT", "ContextRules", "Flavor", "FlavorGuess", "SessionFlavour", "choose_flavor",
           "detect_flavor", "flavour_aliases", "is_user_request18", "resolve_flavor", "session_flavour"]

Flavor = Literal["omp", "pi", "omp57", "omp18"]
SKILL_PROMPT = "skill-prompt"


@dataclass(frozen=True, slots=True)
class ContextRules:
    """What the model sees at a leaf (``context.build_session_context``); the defaults: omp 5.7."""

    drops_retry_recovery: bool = False  # an assistant turn marked retryRecovery carries nothing
    error_turns: Literal["kept", "empty", "blank"] = "kept"  # failed turns dropped: none, empty, blank
    thinking_off: bool = False  # a thinking change with no level reads "off"
    model_source: Literal["roles", "roles18", "provider"] = "roles"  # how model changes are read
    keeps_pinned_default: bool = False  # a model_change of the default role outlives later turns
    # omp 18's records and passes: service tiers, modes, `/clear` boundaries, the configured thinking
    # level, compaction metadata, rollovers, display-only custom messages, attribution and the last
    # pass that drops tool calls without results.
    records18: bool = False


def is_user_request18(obj: Mapping[str, Any]) -> bool:
    """``isUserRequestEntry``: a user prompt, or a user-invoked ``/skill:`` prompt (custom message)."""
    etype = obj.get("type")
    if etype == "message":
        msg = obj.get("message")
        if not isinstance(msg, Mapping):
            return False
        if msg.get("role") == "user":
            return True
        return msg.get("role") == "custom" and msg.get("customType") == SKILL_PROMPT and msg.get("attribution") == "user"
    if etype == "custom_message":
        content = obj.get("content")
        return (isinstance(content, (str, list)) and obj.get("customType") == SKILL_PROMPT
                and obj.get("attribution") == "user")
    return False


@dataclass(frozen=True, slots=True)
class SessionFlavour:
    """One followed reference version's names and file rules; the defaults: the shared behaviour."""

    name: Flavor
    follows: str
    aliases: tuple[str, ...] = ()
    offered: bool = True  # on the command line and in the app (omp 5.7: conformance only)
    context_rules: ContextRules = ContextRules()  # what the model sees at a leaf
    summary_origin_field: str = "fromExtension"  # where a branch summary says a hook made it
    selector_gets_real_leaf: bool = False  # else the leaf minus trailing label/custom entries
    # Navigating (`/tree` selection): what "already here" means and what a user prompt does.
    here_before_lookup: bool = False  # "already here" is checked before the target is looked up
    rewinds_past_user: bool = False  # selecting a user prompt always rewinds past it
    # The selector's own "already here": "visible" = the visible leaf, "leaf" = the real leaf unless
    # it is an `ask` result, "" = none (only navigation's own check).
    selector_here: Literal["visible", "leaf", ""] = "visible"
    skill_prompt_selected: bool = False  # a skill prompt is selected, not rewound past
    requests18: bool = False  # a user prompt is told by the message (omp 18: a skill prompt is one)

    def __repr__(self) -> str:
        return f"<flavour {self.name}: {self.follows}>"

    def user_request(self, obj: Mapping[str, Any]) -> bool:
        """A user prompt: a row the user-only filter shows, an entry navigation rewinds past."""
        if self.requests18:
            return is_user_request18(obj)
        msg = obj.get("message")
        return obj.get("type") == "message" and isinstance(msg, Mapping) and msg.get("role") == "user"


# One per followed version (docs/flavours.md says which quirk each reproduces).
OMP17 = SessionFlavour("omp", "oh-my-pi 17", aliases=("omp17",),
                       context_rules=ContextRules(drops_retry_recovery=True, error_turns="empty", thinking_off=True,
                                                  keeps_pinned_default=True))
OMP18 = SessionFlavour("omp18", "oh-my-pi 18.3 with pi-tui 18.2.9",
                       context_rules=ContextRules(drops_retry_recovery=True, error_turns="blank", thinking_off=True,
                                                  model_source="roles18", keeps_pinned_default=True, records18=True),
                       selector_gets_real_leaf=True, rewinds_past_user=True, selector_here="leaf",
                       skill_prompt_selected=True, requests18=True)
PI = SessionFlavour("pi", "pi-mono", context_rules=ContextRules(model_source="provider"),
                    summary_origin_field="fromHook", selector_gets_real_leaf=True, here_before_lookup=True,
                    selector_here="")
OMP57 = SessionFlavour("omp57", "oh-my-pi 5.7", offered=False)

# The registry: the CLI's --flavor choices, the app's buttons, export and `auto` are built from it
# (``workbench.tree.REGISTRY`` gives each its `/tree` selector, in this order).
FLAVOURS: tuple[SessionFlavour, ...] = (OMP17, OMP18, PI, OMP57)
_BY_NAME: dict[str, SessionFlavour] = {n: f for f in FLAVOURS for n in (f.name, *f.aliases)}
_KNOWN = tuple(f.name for f in FLAVOURS)
_ALIASES = {alias: f.name for f in FLAVOURS for alias in f.aliases}
# auto first, then each offered flavour followed by its aliases: ("auto", "omp", "omp17", "omp18", "pi")
FLAVOR_CHOICES: tuple[str, ...] = ("auto", *(n for f in FLAVOURS if f.offered for n in (f.name, *f.aliases)))
# the app's buttons: one per offered flavour (aliases are accepted in links), then auto
FLAVOR_BUTTONS: tuple[str, ...] = (*(f.name for f in FLAVOURS if f.offered), "auto")
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


def session_flavour(name: str) -> SessionFlavour:
    """The file rules of a flavour name or alias (``omp17`` → the ``omp`` flavour); not ``auto``."""
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
        obj = entry.head  # what is looked at here is never left in the file (records.py)
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
