"""What the LLM would see at a leaf: ``buildSessionContext`` of the agents (docs/flavours.md, "Context at a leaf").

Three flavours differ only in the model bookkeeping: ``pi`` keeps one ``model`` ({provider,
modelId}); ``omp57`` keeps a ``models`` map by role that every assistant message overwrites at
``default``; ``omp`` (v17) stops assistant messages from overwriting ``default`` once a default-role
``model_change`` was seen, maps a null thinking level to "off" and drops retry-recovery / empty
error turns; ``omp18`` (v18.3) is ``omp`` plus the service tier and agent mode, the `/clear`
``reset_boundary`` (the context starts after the latest one unless a later compaction supersedes it)
and the custom messages the agent keeps out of the model's context (``prewalk-plan``,
``vibe-mode-context``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.sessions.entries import Entry, OnDisk, Session, js_ms
from workbench.sessions.flavors import ContextRules, Flavor, is_user_request18, session_flavour
from workbench.sessions.tree import as_entries, branch_path

ContextFlavor = Flavor  # the one spelling of the flavour names (flavors.Flavor)
# Custom messages omp 18 persists for display but never sends to the model.
_DISPLAY_ONLY18 = frozenset({"prewalk-plan", "vibe-mode-context"})
_UNSET: Any = object()

COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"


@dataclass(frozen=True, slots=True)
class SessionContext:
    """The rebuilt conversation at ``leaf_id``; ``messages`` are agent messages in LLM order."""

    messages: tuple[Mapping[str, Any], ...]
    thinking_level: Any = "off"
    model: Mapping[str, Any] | None = None  # pi flavour
    models: Mapping[str, str] = field(default_factory=dict)  # omp flavours
    injected_ttsr_rules: tuple[str, ...] = ()
    leaf_id: str | None = None
    path_ids: tuple[str, ...] = ()
    compaction_id: str | None = None
    service_tier: Any = None  # omp18: the last service_tier_change on the path
    mode: str = "none"  # omp18: the last mode_change's mode
    mode_data: Any = None
    reset_boundary_id: str | None = None  # omp18: the `/clear` boundary the messages start after
    configured_thinking_level: Any = None  # omp18: "auto" when auto thinking was on, else the level

    def llm_messages(self) -> list[dict[str, Any]]:
        """``convertToLlm``: custom / branch / compaction summaries become user messages."""
        out: list[dict[str, Any]] = []
        for msg in self.messages:
            role = msg.get("role")
            if role == "compactionSummary":
                text = COMPACTION_PREFIX + str(msg.get("summary", "")) + "\n</summary>"
                out.append({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": msg.get("timestamp")})
            elif role == "branchSummary":
                text = BRANCH_PREFIX + str(msg.get("summary", "")) + "</summary>"
                out.append({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": msg.get("timestamp")})
            elif role == "custom":
                content = msg.get("content")
                blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
                out.append({"role": "user", "content": blocks, "timestamp": msg.get("timestamp")})
            elif role == "bashExecution":
                if msg.get("excludeFromContext"):
                    continue
                text = f"Ran `{msg.get('command', '')}`\n```\n{msg.get('output', '')}\n```"
                out.append({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": msg.get("timestamp")})
            else:
                out.append(dict(msg))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "leafId": self.leaf_id,
            "messages": [dict(m) for m in self.messages],
            "thinkingLevel": self.thinking_level,
            "model": dict(self.model) if self.model is not None else None,
            "models": dict(self.models),
            "injectedTtsrRules": list(self.injected_ttsr_rules),
            "compactionId": self.compaction_id,
            "serviceTier": self.service_tier,
            "mode": self.mode,
            "resetBoundaryId": self.reset_boundary_id,
            "configuredThinkingLevel": self.configured_thinking_level,
        }


def _blank(value: Any) -> bool:
    return not (isinstance(value, str) and value.strip())


def _empty_error_turn18(msg: Mapping[str, Any]) -> bool:
    """omp 18's ``isEmptyErrorTurn``: an error turn none of whose blocks carries anything.

    Text, thinking (or its signature) and redacted thinking count when not blank; a tool call always
    counts, a ``fallback`` block never; a block of any other kind counts, so no turn is dropped by a
    shape the agent does not know.
    """
    if msg.get("stopReason") != "error":
        return False
    content = msg.get("content")
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text":
            if not _blank(block.get("text")):
                return False
        elif kind == "thinking":
            if not _blank(block.get("thinking")) or not _blank(block.get("thinkingSignature")):
                return False
        elif kind == "redactedThinking":
            if not _blank(block.get("data")):
                return False
        elif kind != "fallback":
            return False
    return True


class UnreadResult(Mapping[str, Any]):
    """A tool result's message the loader left in the file, in a context built with
    ``read_results=False``: its head's fields (role, ids, tool name) are answered as they are, the
    others read back from the file when first asked for (a view of the last messages then reads only
    those of a 1 GB session's path)."""

    __slots__ = ("_entry", "_message")

    def __init__(self, entry: Entry) -> None:
        self._entry = entry
        self._message: Mapping[str, Any] | None = None

    def _read(self) -> Mapping[str, Any]:
        if self._message is None:
            self._message = dict(self._entry.message or {})
        return self._message

    def __getitem__(self, key: str) -> Any:
        head = self._entry.head.get("message")
        if self._message is None and isinstance(head, Mapping) and key in head:
            return head[key]
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def _emit(entry: Entry, rules: ContextRules, read_results: bool = True) -> Mapping[str, Any] | None:
    if not read_results and entry.type == "message" and type(entry.record) is OnDisk:
        return UnreadResult(entry)
    if entry.type == "message":
        msg = entry.message
        if msg is None:
            return None
        if rules.drops_retry_recovery and msg.get("role") == "assistant":
            content = msg.get("content")
            if msg.get("retryRecovery"):
                return None
            if rules.error_turns == "blank" and _empty_error_turn18(msg):
                return None
            if rules.error_turns == "empty" and msg.get("stopReason") == "error" and not content:
                return None  # omp17: an empty error turn carries nothing for the model
        return dict(msg)
    if entry.type == "custom_message":
        if rules.records18 and entry.get("customType") in _DISPLAY_ONLY18:
            return None
        if rules.records18 and "attribution" in entry.obj:
            return {"role": "custom", "customType": entry.get("customType"), "content": entry.get("content"),
                    "display": entry.get("display"), "details": entry.get("details"),
                    "attribution": entry.get("attribution"), "timestamp": js_ms(entry.timestamp)}
        return {
            "role": "custom",
            "customType": entry.get("customType"),
            "content": entry.get("content"),
            "display": entry.get("display"),
            "details": entry.get("details"),
            "timestamp": js_ms(entry.timestamp),
        }
    if entry.type == "branch_summary":
        summary = entry.get("summary")
        if not summary:
            return None
        return {"role": "branchSummary", "summary": summary, "fromId": entry.get("fromId"),
                "timestamp": js_ms(entry.timestamp)}
    return None


def build_session_context(
    source: Session | Iterable[Entry | Mapping[str, Any]],
    leaf_id: str | None = _UNSET,
    *,
    flavor: ContextFlavor = "omp",
    read_results: bool = True,
) -> SessionContext:
    """Rebuild the context at ``leaf_id`` (None → empty; not given or unknown → the last entry).

    ``read_results=False``: a tool result the loader left in the file stays there (``UnreadResult``,
    a read-only mapping, where the messages are otherwise dicts)."""
    ctx_rules = session_flavour(flavor).context_rules
    entries = as_entries(source)
    if leaf_id is None or not entries:
        return SessionContext(messages=(), thinking_level="off", leaf_id=None)
    by_id: dict[str, Entry] = {}
    for entry in entries:
        by_id[entry.id] = entry
    leaf = by_id.get(leaf_id) if leaf_id is not _UNSET else None
    if leaf is None:
        leaf = entries[-1]
    path = branch_path(by_id, leaf.id)

    thinking: Any = "off"
    model: dict[str, Any] | None = None
    models: dict[str, str] = {}
    default_pinned = False
    rules: list[str] = []
    compaction_at = -1
    reset_at = -1
    configured_thinking: Any = None
    service_tier: Any = None
    mode: Any = "none"
    mode_data: Any = None
    for i, entry in enumerate(path):
        if entry.type == "thinking_level_change":
            level = entry.get("thinkingLevel")
            thinking = "off" if (ctx_rules.thinking_off and level is None) else level
            configured = entry.get("configured")
            configured_thinking = configured if configured is not None else level
        elif entry.type == "service_tier_change" and ctx_rules.records18:
            tier = entry.get("serviceTier")
            service_tier = dict(tier) if isinstance(tier, Mapping) else None
        elif entry.type == "mode_change" and ctx_rules.records18:
            mode, mode_data = entry.get("mode"), entry.get("data")
        elif entry.type == "reset_boundary" and ctx_rules.records18:
            reset_at = i
        elif entry.type == "model_change":
            if ctx_rules.model_source == "roles18":
                if entry.get("model"):
                    role = entry.get("role") or "default"
                    models[str(role)] = entry.get("model")
                    default_pinned = default_pinned or role == "default"
            elif ctx_rules.model_source == "provider":
                model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
            elif "model" in entry.obj and entry.get("model") is not None:
                role = entry.get("role") or "default"
                models[str(role)] = entry.get("model")
                if role == "default":
                    default_pinned = True
        elif entry.type == "message" and entry.role == "assistant":
            msg = entry.message or {}
            if ctx_rules.model_source == "provider":
                model = {"provider": msg.get("provider"), "modelId": msg.get("model")}
            elif not (ctx_rules.keeps_pinned_default and default_pinned):
                models["default"] = f"{_js_str(msg.get('provider'))}/{_js_str(msg.get('model'))}"
        elif entry.type == "compaction":
            compaction_at = i
        elif entry.type == "ttsr_injection":
            for name in entry.get("injectedRules") or []:
                if isinstance(name, str) and name not in rules:
                    rules.append(name)

    messages: list[Mapping[str, Any]] = []

    def push(e: Entry) -> None:
        m = _emit(e, ctx_rules, read_results)
        if m is not None:
            messages.append(m)

    compaction_id = None
    reset_id = None
    if reset_at > compaction_at:
        # omp 18 `/clear`: a boundary after the latest compaction elides it and everything before.
        reset_id = path[reset_at].id
        for entry in path[reset_at + 1:]:
            push(entry)
    elif compaction_at < 0:
        for entry in path:
            push(entry)
    else:
        comp = path[compaction_at]
        compaction_id = comp.id
        summary_msg: dict[str, Any] = {"role": "compactionSummary", "summary": comp.get("summary"),
                                       "tokensBefore": comp.get("tokensBefore"), "timestamp": js_ms(comp.timestamp)}
        if ctx_rules.records18:
            # omp 18 carries the display metadata along (a snapcompact archive's frames, kept in
            # preserveData by a package that is not published, are not re-attached here).
            for key in ("shortSummary", "method", "tokensAfter", "warning"):
                if comp.get(key) is not None:
                    summary_msg[key] = comp.get(key)
        messages.append(summary_msg)
        first_kept = comp.get("firstKeptEntryId")
        details = comp.get("details")
        if ctx_rules.records18 and isinstance(details, Mapping) and details.get("kind") == "experimental-context-rollover":
            # A notes-backed rollover summarizes nothing: the latest user request before it (after any
            # `/clear`) comes back verbatim when it is older than the kept tail.
            kept_at = next((k for k, e in enumerate(path) if e.id == first_kept), -1)
            for k in range(compaction_at - 1, reset_at, -1):
                if is_user_request18(path[k].obj):
                    if k < kept_at:
                        push(path[k])
                    break
        keeping = False
        for entry in path[:compaction_at]:
            if not keeping and entry.id == first_kept:
                keeping = True
            if keeping:
                push(entry)
        for entry in path[compaction_at + 1:]:
            push(entry)

    if ctx_rules.records18:
        messages = _replayable18(messages)
    return SessionContext(
        messages=tuple(messages),
        thinking_level=thinking,
        model=model,
        models=models,
        injected_ttsr_rules=tuple(rules),
        leaf_id=leaf.id,
        path_ids=tuple(e.id for e in path),
        compaction_id=compaction_id,
        service_tier=service_tier,
        mode=mode if isinstance(mode, str) else "none",
        mode_data=mode_data,
        reset_boundary_id=reset_id,
        configured_thinking_level=configured_thinking if ctx_rules.records18 else None,
    )


def _replayable18(messages: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """omp 18's last two passes over the model context (session-context.ts).

    1. A tool call with no tool result among the messages (its result is on another branch, or the
       leaf is the call itself) is removed from its assistant turn; such a rewritten turn also loses
       its redacted thinking and its thinking signatures, and is dropped when nothing is left.
    2. Aborted and errored assistant turns are dropped, with the tool results that answer their calls,
       unless an ``interrupted-thinking`` custom message follows them.
    """
    paired = {m.get("toolCallId") for m in messages if m.get("role") == "toolResult"}
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        msg = out[i]
        if msg.get("role") != "assistant":  # (asked first: a tool result's content may be in its file)
            continue
        content = msg.get("content")
        if not isinstance(content, list):
            continue
        def dangling(b: Any) -> bool:
            return isinstance(b, Mapping) and b.get("type") == "toolCall" and b.get("id") not in paired
        if not any(dangling(b) for b in content):
            continue
        kept = []
        for b in content:
            if dangling(b) or (isinstance(b, Mapping) and b.get("type") == "redactedThinking"):
                continue
            if isinstance(b, Mapping) and b.get("type") == "thinking" and b.get("thinkingSignature"):
                b = {k: v for k, v in b.items() if k != "thinkingSignature"}
            kept.append(b)
        if kept:
            out[i] = {**msg, "content": kept}
        else:
            del out[i]
    for i in range(len(out) - 1, -1, -1):
        if i >= len(out):
            continue
        msg = out[i]
        if msg.get("role") != "assistant" or msg.get("stopReason") not in ("aborted", "error"):
            continue
        nxt = out[i + 1] if i + 1 < len(out) else None
        if nxt is not None and nxt.get("role") == "custom" and nxt.get("customType") == "interrupted-thinking":
            continue
        content = msg.get("content")
        calls = {b.get("id") for b in content if isinstance(b, Mapping) and b.get("type") == "toolCall"} \
            if isinstance(content, list) else set()
        del out[i]
        if calls:
            for j in range(len(out) - 1, i - 1, -1):
                if out[j].get("role") == "toolResult" and out[j].get("toolCallId") in calls:
                    del out[j]
    return out


def _js_str(value: Any) -> str:
    """JS template-string conversion of a value (``undefined``/``null`` spelled out)."""
    if value is None:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)
