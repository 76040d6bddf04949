"""Row text, search text and filter facts of the omp 18.3 `/tree` (pi-tui 18.2.9's tree selector).

The selector omp 18.3.4 ships knows every entry type the agent now writes (``model_usage``,
``service_tier_change``, ``title_change``, ``mode_change``, ``credential_pin``, ``ttsr_injection``,
``session_init``, ``reset_boundary``) and gives any other type a row reading ``[its type]`` instead
of an empty line. Approximations (the helpers live in packages that are not published): control
characters are removed where the agent calls ``sanitizeText``, and a recovered-retry note longer than
80 cells is cut with ``…``; ``errorId`` bit flags are not decoded, only the persisted marker strings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from workbench.tree.rowtext import (
    MISSING,
    RowRules,
    cut16,
    display_text,
    js_str,
    js_truthy,
    norm,
    search_text,
    shorten18,
)

# The rows omp 18 draws as the older selectors do (``rowtext``, with these rules): a tool call as
# oh-my-pi renders it, paths shortened the pi-tui 18 way, a missing thinking level read as "off".
ROWS18 = RowRules(omp_tools=True, shorten=shorten18, thinking_off=True)
_SHARED_ROWS = frozenset({"compaction", "model_change", "thinking_level_change", "custom", "label"})

SETTINGS_TYPES18 = frozenset({
    "label", "custom", "model_change", "model_usage", "thinking_level_change", "service_tier_change", "title_change",
    "credential_pin", "session_init", "ttsr_injection", "mode_change", "reset_boundary",
})
SEARCH_LIMIT = 200
_SILENT_ABORT = "__omp.silent_abort__"
_USER_INTERRUPT = "Interrupted by user"
_GENERIC_ABORT = "Request was aborted"
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f]")
_SYSTEM_OPEN = re.compile(r"^<(system-[\w-]+)", re.IGNORECASE)
_WS = re.compile(r"\s+")


def _join(content: Any) -> str:
    """Text blocks whose text is a string, concatenated; a string as it is; anything else empty."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b["text"] for b in content
                       if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str))
    return ""


def _extract(content: Any) -> str:
    return cut16(_join(content), SEARCH_LIMIT)


def sanitize_field(value: Any) -> str:
    text = value if isinstance(value, str) else ""
    return _CONTROL.sub("", text).replace("\n", " ").replace("\t", " ").strip()


def strip_system_wrapper(content: str) -> str:
    """One ``<system-…>…</system-…>`` envelope around custom-message content is not shown."""
    trimmed = content.strip()
    m = _SYSTEM_OPEN.match(trimmed)
    if not m:
        return content
    start = m.end()
    nxt = trimmed[start:start + 1]
    if nxt != ">" and not nxt.isspace():
        return content
    quote: str | None = None
    end = -1
    for i in range(start, len(trimmed)):
        ch = trimmed[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "<":
            return content
        elif ch == ">":
            end = i
            break
    if end < 0 or quote:
        return content
    closing = f"</{m.group(1)}>"
    close_at = len(trimmed) - len(closing)
    if close_at <= end or trimmed[close_at:].lower() != closing.lower():
        return content
    return trimmed[end + 1:close_at].strip()


def advisor_display(details: Any) -> tuple[str, str]:
    """(qualifier, text) of an advisor note: distinct non-default advisors then severities; note bodies."""
    if not isinstance(details, Mapping) or not isinstance(details.get("notes"), list):
        return "", ""
    notes: list[str] = []
    names: list[str] = []
    severities: list[str] = []
    for note in details["notes"]:
        if not isinstance(note, Mapping):
            continue
        if isinstance(note.get("note"), str):
            notes.append(note["note"])
        if isinstance(note.get("advisor"), str):
            name = sanitize_field(note["advisor"])
            if name and name != "default" and name not in names:
                names.append(name)
        if isinstance(note.get("severity"), str):
            sev = sanitize_field(note["severity"])
            if sev and sev not in severities:
                severities.append(sev)
    return ", ".join(names + severities), " ".join(notes)


def _canonical(text: Any) -> bool:
    """``canonicalizeMessage`` is non-empty: some character other than dots, ellipses and blanks."""
    if not isinstance(text, str) or not text:
        return False
    return bool(text.strip().strip(". \u2026\t\n\r"))


def has_text18(content: Any) -> bool:
    if isinstance(content, str):
        return _canonical(content)
    if isinstance(content, list):
        return any(isinstance(b, Mapping) and b.get("type") == "text" and _canonical(b.get("text")) for b in content)
    return False


def hidden_assistant18(msg: Mapping[str, Any]) -> bool:
    """A tool-call-only assistant row (no text, not an error or abort) is hidden unless it is the leaf."""
    if has_text18(msg.get("content")):
        return False
    stop = msg.get("stopReason")
    return not (isinstance(stop, str) and stop and stop not in ("stop", "toolUse"))


def _renders_abort(msg: Mapping[str, Any]) -> bool:
    return msg.get("errorMessage") not in (_SILENT_ABORT, _USER_INTERRUPT)


def _assistant_error(msg: Mapping[str, Any]) -> tuple[str, str]:
    """(kind, text) of ``resolveAssistantErrorPresentation``: none / compact-recovered / full."""
    recovery = msg.get("retryRecovery")
    status = recovery.get("status") if isinstance(recovery, Mapping) else None
    if status == "superseded":
        return "none", ""
    if status == "recovered":
        note = recovery.get("note") if isinstance(recovery, Mapping) else None
        text = _WS.sub(" ", (note if isinstance(note, str) else "").replace("\t", "   ")).strip() or "retried"
        return "compact-recovered", text if len(text) <= 80 else text[:79] + "…"
    error = msg.get("errorMessage")
    stop = msg.get("stopReason")
    if stop == "aborted":
        if not _renders_abort(msg):
            return "none", ""
        generic = not error or error == _GENERIC_ABORT
        return "full", "Operation aborted" if generic else js_str(error)
    if stop == "error":
        return "full", js_str(error) if error else "Error"
    if error and _renders_abort(msg):
        return "full", js_str(error)
    return "none", ""


def _tiers(value: Any) -> str:
    if not value:
        return "(default)"
    if isinstance(value, Mapping):
        return " ".join(f"{k}:{js_str(v)}" for k, v in value.items())
    return ""


def display_text18(obj: Mapping[str, Any], *, tool_calls: Mapping[str, Any], home: str | None) -> str:
    etype = obj.get("type")
    if etype in _SHARED_ROWS:
        return display_text(obj, rules=ROWS18, tool_calls=tool_calls, home=home)
    if etype == "message":
        raw = obj.get("message")
        msg: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}  # not an object: "[undefined]" below
        role = msg.get("role")
        if role == "user" or role == "developer":
            return f"{role}: " + norm(_extract(msg.get("content")))
        if role == "assistant":
            kind, text = _assistant_error(msg)
            if kind == "compact-recovered":
                return "assistant: " + text
            content = norm(_extract(msg.get("content")))
            if content:
                return "assistant: " + content
            if kind == "full":
                return "assistant: " + cut16(norm(text), 80)
            return "assistant: (aborted)" if msg.get("stopReason") == "aborted" else "assistant: (no content)"
        if role == "toolResult" and msg.get("toolCallId") == "":
            tool_calls = {}  # pi-tui 18 looks a call up only by a non-empty id
        return display_text(obj, rules=ROWS18, tool_calls=tool_calls, home=home)
    if etype == "custom_message":
        if obj.get("customType") == "advisor":
            qualifier, text = advisor_display(obj.get("details"))
            return (f"advisor ({qualifier}): " if qualifier else "advisor: ") + norm(text)
        return f"[{js_str(obj.get('customType', MISSING))}]: " + norm(strip_system_wrapper(_join(obj.get("content"))))
    if etype == "branch_summary":
        summary = obj.get("summary")
        return "[branch summary]: " + norm(summary if isinstance(summary, str) else "")
    if etype == "model_usage":
        role = sanitize_field(obj.get("role"))
        return (f"[model usage: {sanitize_field(obj.get('purpose'))} {role + ' ' if role else ''}"
                f"{sanitize_field(obj.get('provider'))}/{sanitize_field(obj.get('model'))}]")
    if etype == "service_tier_change":
        return f"[service tier: {_tiers(obj.get('serviceTier'))}]"
    if etype == "title_change":
        title = obj.get("title")
        return f"[title: {norm(title if isinstance(title, str) else js_str(title))}]"
    if etype == "mode_change":
        return f"[mode: {js_str(obj.get('mode', MISSING))}]"
    if etype == "credential_pin":
        return f"[credential pin: {js_str(obj.get('provider', MISSING))}]"
    # Bookkeeping and unknown types read as their type, never as an empty row.
    return f"[{(etype if isinstance(etype, str) else '').replace('_', ' ')}]"


def search_text18(obj: Mapping[str, Any], label: str | None) -> str:
    etype = obj.get("type")
    if etype in _SHARED_ROWS or etype == "branch_summary":
        return search_text(obj, label, rules=ROWS18)
    parts: list[str] = [label] if label else []
    if etype == "message":
        msg = obj.get("message")
        if isinstance(msg, Mapping):
            role = msg.get("role")
            parts.append("" if role is None else js_str(role))
            content = msg.get("content", MISSING)
            if js_truthy(content):  # JS truthiness: an empty block list still adds an (empty) part
                parts.append(_extract(content))
            if role == "bashExecution" and msg.get("command"):
                parts.append(js_str(msg.get("command")))
    elif etype == "custom_message":
        ctype = obj.get("customType")
        parts.append("" if ctype is None else js_str(ctype))
        if ctype == "advisor":
            qualifier, text = advisor_display(obj.get("details"))
            parts += [p for p in (qualifier, text) if p]
        else:
            text = cut16(strip_system_wrapper(_join(obj.get("content"))), SEARCH_LIMIT)
            if text:
                parts.append(text)
    elif etype == "model_usage":
        parts += ["model usage"] + [sanitize_field(obj.get(k)) for k in ("purpose", "role", "provider", "model")]
    elif etype == "service_tier_change":
        parts.append("service tier")
        tiers = obj.get("serviceTier")
        if isinstance(tiers, Mapping):
            for family, tier in tiers.items():
                if tier:
                    parts += [family, js_str(tier)]
    elif etype == "title_change":
        parts += ["title", _part(obj.get("title"))]
    elif etype == "mode_change":
        parts += ["mode", _part(obj.get("mode"))]
    elif etype == "credential_pin":
        parts += ["credential pin", _part(obj.get("provider"))]
    elif etype == "ttsr_injection":
        rules = obj.get("injectedRules")
        parts += ["ttsr injection"] + ([js_str(r) for r in rules] if isinstance(rules, list) else [])
    elif etype == "reset_boundary":
        parts.append("reset boundary")
    elif etype == "session_init":
        parts.append("session init")
    return " ".join(parts)


def _part(value: Any) -> str:
    return "" if value is None else js_str(value)
