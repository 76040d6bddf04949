"""The trigger side of the simulated session (docs/architecture.md, "The simulated session"): checks, the interrupt decision,
per-tool claims, abort with placeholder results, retry on the next recorded turn, deferred prose.

A mixin of ``SimulatedSession``, kept apart so each half stays readable; it uses the session's state
(``manager``, ``conversation``, ``pending``, ``tool_buckets``, ``follow_ups``, ``copy``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import workbench.replay.engine as engine
from workbench.replay.conversation import Message
from workbench.replay.events import NO_CONTINUATION, OTHER_CALL_REASON
from workbench.replay.stream import StreamEvent, compact_json
from workbench.rules import Rule


def interrupts(mode: str, source: str) -> bool:
    """The interrupt decision for one effective interrupt mode: does a match on ``source`` abort the stream?"""
    return mode == "always" or (mode == "prose-only" and source in ("text", "thinking")) or (
        mode == "tool-only" and source == "tool")


class TriggerHandling:
    """Matching and what follows a match; mixed into ``SimulatedSession``."""

    # State owned by the session (declared here for readers and type checkers).
    manager: Any
    settings: engine.TtsrSettings
    cwd: str
    home: str | None
    interrupt_template: str
    reminder_template: str
    conversation: Any
    pending: list[Rule]
    abort_pending: bool
    tool_buckets: dict[str, list[Rule]]
    follow_ups: list[tuple[str, tuple[str, ...], int]]
    next_delivery_id: int
    skipping: bool
    awaiting_retry: bool
    status: str
    copy: Any
    on_check: Any
    last_retry: Any
    last_checked_text: str
    streaming: Any
    edit_mode: str | None
    edit_modes: dict[str, dict[str, Any]]
    last_edit_mode: dict[str, Any] | None
    emitted: dict[str, set[str]]
    _step: int
    _remaining_turns: list[int]
    # Methods of the session this mixin calls.
    _emit: Callable[..., None]
    _ms: Callable[[StreamEvent | None], int | float]
    _streaming: Callable[[StreamEvent], Any]

    # -- matching ---------------------------------------------------------------------------------

    def _tool_surface(self, name: str, args: Any, key: str, *, final: bool = False) -> engine.ToolSurface:
        """The call's matcher surfaces; the edit mode it was read with (and why) is kept per stream key,
        the last reading winning, for the replay's output."""
        surface = engine.tool_surface(name, args, self.cwd, self.edit_mode, final=final)
        if surface.mode is not None or name == "apply_patch":
            self.edit_modes[key] = {"stream_key": key, "tool": name, "mode": surface.mode, "reason": surface.reason}
            self.last_edit_mode = self.edit_modes[key]
        return surface

    def _check(self, method: Callable[[str, Any], list[Rule]], text: str, ctx: Any) -> list[Rule]:
        matches = list(method(text, ctx))
        self.last_checked_text = text  # the stepper explains AST misses on this snapshot
        if self.on_check is not None:
            self.on_check(ctx, method.__name__, matches)
        return matches

    def _per_file(self, surface: engine.ToolSurface, ctx: Any, method: Callable[..., list[Rule]]) -> list[Rule]:
        out: list[Rule] = []
        for path, digest in surface.entries:
            cands = engine.path_candidates(path, self.cwd) or [path]
            sub = engine.context("tool", tool_name=ctx.tool_name, file_paths=cands, stream_key=f"{ctx.stream_key}#{path}")
            out.extend(self._check(method, digest, sub))
        return out

    def _regex(self, surface: engine.ToolSurface, ctx: Any, delta: str) -> list[Rule]:
        if surface.entries:
            return self._per_file(surface, ctx, self.manager.check_snapshot)
        if surface.digest is not None:
            return self._check(self.manager.check_snapshot, surface.digest, ctx)
        return self._check(self.manager.check_delta, delta, ctx)

    def _final_tool_check(self, ev: StreamEvent) -> None:
        """``toolcall_end``: the reference (18.3.x coordinator) checks the finalized call once more.

        Tools with a digest or entries re-check that snapshot; the others check the serialized final
        arguments (``JSON.stringify``), which also covers calls that arrived with no deltas at all. A
        match here aborts with the call already complete, so the call gets the placeholder result
        ``Tool execution was aborted: TTSR matched rule: <name>`` (siblings get the other-call text).
        """
        msg = self.streaming
        if msg is None or not self.manager.has_rules():
            return
        index = ev.content_index or 0
        block = next((b for b in msg.snapshot().blocks if b.index == index and b.kind == "toolCall"), None)
        if block is None or not (block.id or block.name):
            return
        args = block.arguments if isinstance(block.arguments, Mapping) else {}
        key = f"toolcall:{block.id}" if block.id else f"tool:{block.name}:{index}"
        surface = self._tool_surface(block.name, args, key, final=True)
        ctx = engine.context("tool", tool_name=block.name, file_paths=surface.paths, stream_key=key)
        if surface.entries or surface.digest is not None:
            matches = self._regex(surface, ctx, "")
        else:
            final = compact_json(args)
            matches = self._check(self.manager.check_snapshot, final, ctx)
        if self._handle(matches, ctx, ev):
            return
        # AST conditions run here and only here, as in the agent: on the finalized call's digest or
        # per-file entries (a tool with neither gets no AST check), after the regex check, unless that
        # interrupted. A match aborts with the call complete, so it gets the placeholder result.
        if self.manager.has_ast_rules():
            self._handle(self._ast(surface, ctx), ctx, ev)

    def _ast(self, surface: engine.ToolSurface, ctx: Any) -> list[Rule]:
        if surface.entries:
            return self._per_file(surface, ctx, self.manager.check_ast_snapshot)
        if surface.digest is not None:
            return self._check(self.manager.check_ast_snapshot, surface.digest, ctx)
        return []

    def should_interrupt(self, matches: Sequence[Rule], source: str) -> bool:
        """The interrupt decision: one rule whose effective mode interrupts for this source interrupts the batch."""
        default = self.settings.interrupt_mode or "always"
        return any(interrupts(rule.interrupt_mode or default, source) for rule in matches)

    def _handle(self, matches: list[Rule], ctx: Any, ev: StreamEvent) -> bool:
        """The trigger handler; True when it interrupted (the caller stops processing the event)."""
        if not matches:
            return False
        # Not de-duplicated: a rule matching two files of one call is listed twice, in the event, the
        # abort reason and the notice, as the coordinator passes its concatenated matches on.
        names = tuple(r.name for r in matches)
        key = ctx.stream_key
        if self.should_interrupt(matches, ctx.source):
            self._add_pending(matches)
            self.abort_pending = True
            call = key[len("toolcall:"):] if ctx.source == "tool" and key and key.startswith("toolcall:") else None
            if self._first_announcement(key, names):
                self._emit("ttsr_triggered", names, delta=ev.delta, source=ctx.source, stream_key=key,
                           tool_call_id=call, interrupt=True)
            self._abort(names, ctx, ev)
            return True
        if ctx.source == "tool" and key and key.startswith("toolcall:"):
            call_id = key[len("toolcall:"):]
            bucket = self.tool_buckets.setdefault(call_id, [])
            taken = {r.name for r in bucket}
            elsewhere = {r.name for cid, b in self.tool_buckets.items() if cid != call_id for r in b}
            fresh = []
            for rule in matches:
                if rule.name not in taken and rule.name not in elsewhere:
                    taken.add(rule.name)
                    fresh.append(rule)
            bucket.extend(fresh)
            if fresh:
                self.manager.mark_injected(fresh)  # the claim
            if self._first_announcement(key, names):
                self._emit("ttsr_triggered", names, delta=ev.delta, source="tool", stream_key=key,
                           tool_call_id=call_id, interrupt=False, claimed=[r.name for r in fresh])
            return False
        self._add_pending(matches)  # deferred prose reminder: no event, not yet marked
        return False

    def _first_announcement(self, key: str | None, names: tuple[str, ...]) -> bool:
        """One ``ttsr_triggered`` per stream key per violation (the coordinator's ``#emitTriggerOnce``,
        oh-my-pi #12184/#12729): a stream that keeps matching the rules it already announced this turn
        announces nothing more. A context without a key (prose) always announces."""
        if not key:
            return True
        seen = self.emitted.setdefault(key, set())
        if all(name in seen for name in names):
            return False
        seen.update(names)
        return True

    def reserved_names(self) -> set[str]:
        """Rules of deferred reminders queued and not yet delivered: they stay reserved until then
        (oh-my-pi #12065), so a later match cannot queue the same reminder twice."""
        return {name for _, names, _ in self.follow_ups for name in names}

    def _add_pending(self, matches: Iterable[Rule]) -> None:
        have = {r.name for r in self.pending} | self.reserved_names()
        for rule in matches:
            if rule.name not in have:
                have.add(rule.name)
                self.pending.append(rule)

    # -- abort, retry, follow-ups -----------------------------------------------------------------

    def _abort(self, names: tuple[str, ...], ctx: Any, ev: StreamEvent) -> None:
        reason = f"TTSR matched rule: {names[0]}" if len(names) == 1 else f"TTSR matched rules: {', '.join(names)}"
        call_id = None
        if ctx.source == "tool" and ctx.stream_key and ctx.stream_key.startswith("toolcall:"):
            call_id = ctx.stream_key[len("toolcall:"):]
        msg = self._streaming(ev)
        aborted, completed = msg.aborted(reason)
        target_len = len(self.conversation)
        self.conversation = self.conversation.append(aborted)
        placeholders = []
        for block in completed:
            why = reason if call_id is None or block.id == call_id else OTHER_CALL_REASON
            placeholders.append(block.id)
            self.conversation = self.conversation.append(
                {
                    "role": "toolResult",
                    "toolCallId": block.id,
                    "toolName": block.name,
                    "content": [{"type": "text", "text": f"Tool execution was aborted: {why}"}],
                    "isError": True,
                    "timestamp": self._ms(ev),
                }
            )
        self._emit("abort", names, delta=ev.delta, source=ctx.source, stream_key=ctx.stream_key,
                   tool_call_id=call_id, reason=reason, dropped_calls=[b.id for b in msg.incomplete_tools()],
                   placeholder_results=placeholders)
        self.streaming = None
        self._after_message_end("aborted")
        self.manager.increment_message_count()  # the aborted turn still ends (turn_end)
        self.emitted.clear()
        self.skipping = ev.type != "turn_end"
        self._retry(target_len, ev)

    def _retry(self, target_len: int, ev: StreamEvent) -> None:
        self.abort_pending = False
        self.tool_buckets.clear()
        mode = self.settings.context_mode or "discard"
        rules, self.pending = self.pending, []
        names = tuple(r.name for r in rules)
        keep = self.conversation
        discard = self.conversation.truncate(target_len)
        if mode == "discard":
            self.conversation = discard
        continuation = any(i > self._step for i in self._remaining_turns)
        self._emit("retry", names, detail_mode=mode, continuation=continuation)
        if rules:
            message = self._inject(rules, ev, deferred=False)
            # Both variants, whatever the configured mode, so the two can be compared side by side.
            self.last_retry = (keep.append(message), discard.append(message))
        else:  # every matched rule is reserved by a queued reminder: the retry carries no injection
            self.last_retry = (keep, discard)
        if continuation:
            self.awaiting_retry = True
        else:
            self.status = NO_CONTINUATION

    def _after_message_end(self, stop: str) -> None:
        """The agent's ``onAssistantMessageEnd``: deferred prose reminders."""
        if stop in ("aborted", "error"):
            self.tool_buckets.clear()  # claims are not released (17.4.1)
            if not self.abort_pending:
                self.pending = []
            return
        if not self.abort_pending and self.pending:
            rules, self.pending = self.pending, []
            content = engine.render(self.interrupt_template, rules, cwd=self.cwd, home=self.home)
            # Each queued delivery has its own id (the coordinator's ``deliveryId``), persisted with it.
            self.next_delivery_id += 1
            self.follow_ups.append((content, tuple(r.name for r in rules), self.next_delivery_id))

    def _deliver_follow_ups(self) -> None:
        queued, self.follow_ups = self.follow_ups, []
        for content, names, delivery_id in queued:
            self._inject_content(content, names, deferred=True, delivery_id=delivery_id)

    def _inject(self, rules: Sequence[Rule], ev: StreamEvent, *, deferred: bool) -> Message:
        content = engine.render(self.interrupt_template, rules, cwd=self.cwd, home=self.home)
        return self._inject_content(content, tuple(r.name for r in rules), deferred=deferred)

    def injection_message(self, content: str, names: Sequence[str], delivery_id: int | None = None) -> Message:
        """The hidden custom message that carries rendered rules to the model (a deferred one also its ``deliveryId``)."""
        details: dict[str, Any] = {"rules": list(names)}
        if delivery_id is not None:
            details["deliveryId"] = delivery_id
        return {
            "role": "custom",
            "customType": "ttsr-injection",
            "content": content,
            "display": False,
            "details": details,
            "attribution": "agent",
            "timestamp": self._ms(None),
        }

    def _inject_content(self, content: str, names: tuple[str, ...], *, deferred: bool,
                        delivery_id: int | None = None) -> Message:
        ms = self._ms(None)
        message = self.injection_message(content, names, delivery_id)
        self.conversation = self.conversation.append(message)
        self.copy.append_custom_message(message)
        self.manager.mark_injected_by_names(list(names))
        self.copy.append_injection(names, ms)
        self._emit("injection", names, content=content, deferred=deferred)
        return message
