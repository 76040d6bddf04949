"""The simulated agent session (docs/architecture.md, "The simulated session"): stream events in, TTSR decisions out.

``SimulatedSession.feed(index, event)`` plays one recorded event through a ``TtsrManager`` the way
the agent session does: buffers reset per turn, deltas routed by stream key, interrupting matches
abort the turn and retry on the *next recorded turn*, non-interrupting tool matches fold a reminder
into that tool's result, non-interrupting prose matches become a deferred hidden follow-up. Judged
rules (``question``) are asked of ``judge`` once a message completes (``workbench.replay.judge.queue``).
Persistence goes into an in-memory copy of the session, never the original file.

The session holds three collaborators, each given its inputs: ``checks`` (``replay/triggers.py``,
what is asked of the manager for a delta or a finished call), ``triggers`` (the same module: the
interrupt decision, pending rules, claims and queued follow-ups) and ``judging`` (the judge queue).
It acts on their answers itself: aborts, retries and injections change its conversation, its session
copy and its events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, cast

import workbench.replay.engine as engine
from workbench.replay.config import ReplayConfig
from workbench.replay.conversation import Conversation, LazyMessage, Message
from workbench.replay.events import (
    NO_CONTINUATION,
    OTHER_CALL_REASON,
    CheckHook,
    ReplayEvent,
    ReplayEventType,
    ReplayResult,
    StepStatus,
)
from workbench.replay.judge.queue import JudgeQueue
from workbench.replay.notifications import NoticeRule, Notification
from workbench.replay.persistence import SessionCopy
from workbench.replay.stream import Stream, StreamEvent, compact_json, thaw
from workbench.replay.streaming import StreamingMessage
from workbench.replay.triggers import ToolChecks, TriggerBook
from workbench.rules import Rule, bucket_rules


class SimulatedSession:
    """One agent session replaying recorded events (forward only; the stepper snapshots it)."""

    def __init__(self, rules: Iterable[Rule], config: ReplayConfig | None = None, *, stream: Stream | None = None,
                 disabled_rules: Mapping[str, str] | None = None) -> None:
        config = ReplayConfig() if config is None else config
        if stream is not None:
            config = config.for_stream(stream)
        self.config = config
        self.cwd = config.where
        self.home = config.home
        self.edit_mode = config.tool_edit_mode
        self.notifications: list[Notification] = []
        self._notice_open = False  # the last notice is still the transcript's last block
        self.manager = engine.new_manager(config.settings)
        self.settings = self.manager.get_settings()
        self.checks = ToolChecks(self.manager, cwd=self.cwd, edit_mode=self.edit_mode)
        self.disabled = dict(disabled_rules or {})
        rules = [r for r in rules if r.name not in self.disabled]
        self._notice_rules = {r.name: NoticeRule.of(r) for r in rules}
        self.buckets = bucket_rules(
            rules,
            self.manager,
            # unchecked, as the reference reads it: any iterable of names (a list from the settings file)
            disabled_rules=cast("Iterable[str]", self.settings.disabled_rules or ()),
            builtin_rules=self.settings.builtin_rules is not False,
            agent_name=config.agent,
        )
        self.interrupt_template, self.reminder_template = engine.resolve_templates(config.templates)
        self.triggers = TriggerBook(self.manager, self.settings, interrupt_template=self.interrupt_template,
                                    cwd=self.cwd, home=self.home)
        self.copy = SessionCopy(config.resume, cwd=self.cwd)
        self.conversation: Conversation = Conversation.EMPTY.extend(self.copy.context_messages())
        restored = self.copy.injected_rule_names()
        if restored:
            self.manager.restore_injected(restored)
        self.streaming: StreamingMessage | None = None
        self.skipping = False
        self.awaiting_retry = False
        self.turn_had_tools = False
        self.status: str = "running"
        self.stream_calls = 0
        self.events: list[ReplayEvent] = []
        self.last_retry: tuple[Conversation, Conversation] | None = None
        self._remaining_turns: list[int] = []
        self._turn = -1
        # ``ttsr.judge: off`` (18.3) keeps judged rules inactive whatever judge was given.
        judge = None if self.settings.extra.get("judge") == "off" else config.judge
        self.judging = JudgeQueue(judge, engine.warning_template(config.templates), manager=self.manager,
                                  cwd=self.cwd, home=self.home, edit_mode=self.edit_mode, emit=self._emit)
        if stream is not None:
            self.expect(stream)
        self._step = -1
        self._final_regex = True  # (``feed``)

    # -- driving ---------------------------------------------------------------------------------

    def expect(self, stream: Stream) -> None:
        """Tell the session where the recorded turns start, so a retry knows if one is left."""
        # a lazily derived stream knows where its turns start without building them
        known = getattr(stream.events, "turn_starts", None)
        self._remaining_turns = known() if known is not None else [
            i for i, e in enumerate(stream.events) if e.type == "turn_start"]

    def feed(self, index: int, ev: StreamEvent, *, final_regex: bool = True) -> StepStatus:
        """Play one event; returns whether it was live, skipped (rest of an aborted turn) or ended.

        ``final_regex=False``: a ``toolcall_end`` holds the finished call's snapshots without asking
        the regex conditions (``TtsrManager.hold_snapshot``), then runs its AST check. For the
        backtest's probe alone, which has shown that they can match no rule that has not fired in
        the turn already (``workbench.backtest.probe``)."""
        self.judging.check_not_waiting()  # an ``ask`` judge holds the session until it is answered
        self._step = index
        self._final_regex = final_regex
        if self.status != "running":
            return "ended"
        if self.skipping:
            if ev.type == "turn_end":
                self.skipping = False
                return "skipped"
            if ev.type != "turn_start":
                return "skipped"
            self.skipping = False
        handler = getattr(self, f"_on_{ev.type}", None)
        if handler is not None:
            handler(ev)
        return "live"

    def finish(self) -> ReplayResult:
        """End of the recording: deliver queued follow-ups and summarise."""
        if self.triggers.follow_ups and self.status == "running":
            self._deliver_follow_ups()
        if self.judging.asides and self.status == "running":
            self._deliver_asides()  # an idle agent starts a turn for them
        if self.status == "running":
            self.status = "completed"
        return ReplayResult(
            tuple(sorted(self.events, key=lambda e: e.step)),
            tuple(self.copy.injected_names()),
            tuple(self.conversation.messages()),
            self.status,
            self.stream_calls,
            tuple(self.copy.new_entries),
            dict(self.disabled),
            judge=self.judging.label,
            judged_rules=tuple(self.judging.judged_rule_names()),
            judge_rounds=tuple(self.judging.rounds),
            edit_modes=tuple(self.checks.edit_modes.values()),
            notifications=tuple(self.notifications),
        )

    # -- event handlers ---------------------------------------------------------------------------

    def _on_user_message(self, ev: StreamEvent) -> None:
        self._notice_open = False
        self.conversation = self.conversation.append(
            {"role": "user", "content": thaw(ev.content), "timestamp": self._ms(ev)}
        )

    def _on_turn_start(self, ev: StreamEvent) -> None:
        self._turn += 1
        self.manager.reset_buffer()
        self.awaiting_retry = False
        self.turn_had_tools = False

    def _on_turn_end(self, ev: StreamEvent) -> None:
        self.manager.increment_message_count()
        self.triggers.emitted.clear()
        # Follow-ups reach the model when the agent would otherwise stop (no tool calls left).
        if self.triggers.follow_ups and not self.turn_had_tools:
            self._deliver_follow_ups()
        if self.judging.asides:
            self._deliver_asides()  # judged warnings join at the step boundary (after tool results)

    def _on_message_start(self, ev: StreamEvent) -> None:
        self._notice_open = False
        if (ev.role or "assistant") == "assistant":
            # Buffers never span two assistant messages, even inside one turn (reference 18.3).
            self.manager.reset_buffer()
            self.streaming = StreamingMessage(self._ms(ev))
            self.stream_calls += 1

    def _streaming(self, ev: StreamEvent) -> StreamingMessage:
        if self.streaming is None:  # a hand-written stream without message_start
            self.streaming = StreamingMessage(self._ms(ev))
            self.stream_calls += 1
        return self.streaming

    def _on_text_delta(self, ev: StreamEvent) -> None:
        self._prose_delta(ev, "text")

    def _on_thinking_delta(self, ev: StreamEvent) -> None:
        self._prose_delta(ev, "thinking")

    def _prose_delta(self, ev: StreamEvent, source: Literal["text", "thinking"]) -> None:
        self._streaming(ev).append_text(ev.content_index, source, ev.delta or "")
        if not self.manager.has_rules():
            return
        ctx = engine.context(source)
        self._handle(self.checks.check(self.manager.check_delta, ev.delta or "", ctx), ctx, ev)

    def _on_toolcall_start(self, ev: StreamEvent) -> None:
        self._streaming(ev).start_tool(ev.content_index or 0, ev.id or "", ev.name or "")
        self.turn_had_tools = True

    def _on_toolcall_end(self, ev: StreamEvent) -> None:
        self._streaming(ev).end_tool(ev.content_index or 0, thaw(ev.arguments) if ev.arguments else None)
        self._final_tool_check(ev)

    def _on_toolcall_delta(self, ev: StreamEvent) -> None:
        msg = self._streaming(ev)
        delta = ev.delta or ""
        block = msg.append_tool(ev.content_index or 0, delta)
        if not self.manager.has_rules():
            return
        if block is None:  # no toolcall_start: the reference sees a bare tool context
            ctx = engine.context("tool")
            self._handle(self.checks.check(self.manager.check_delta, delta, ctx), ctx, ev)
            return
        key = f"toolcall:{block.id}" if block.id else f"tool:{block.name}:{ev.content_index}"
        args = msg.partial_arguments(ev.content_index or 0)
        surface = self.checks.surface(block.name, args, key)
        ctx = engine.context("tool", tool_name=block.name, file_paths=surface.paths, stream_key=key)
        # Regex conditions only: the agent (18.3.4 coordinator) runs ast-grep conditions once, on the
        # finalized call at ``toolcall_end`` (docs/architecture.md, "The simulated session").
        self._handle(self.checks.regex(surface, ctx, delta), ctx, ev)

    def _on_message_end(self, ev: StreamEvent) -> None:
        msg = self._streaming(ev)
        stop = ev.stop_reason or "stop"
        final = msg.finalize(stop, ev.error_message)
        self.conversation = self.conversation.append(final)
        self.streaming = None
        self.triggers.after_message_end(stop)
        self.judging.completed(final, stop, step=self._step, turn=self._turn)

    def _on_tool_result(self, ev: StreamEvent) -> None:
        self._notice_open = False
        content = thaw(ev.content)
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        bucket = self.triggers.tool_buckets.pop(ev.tool_call_id or "", None)
        if bucket:
            text = engine.render(self.reminder_template, bucket, cwd=self.cwd, home=self.home)
            names = tuple(r.name for r in bucket)
            self.copy.append_injection(names, self._ms(ev))
            content = [{"type": "text", "text": text}, *content]
            self._emit("reminder", names, tool_call_id=ev.tool_call_id, content=text)
        self.conversation = self.conversation.append(
            {
                "role": "toolResult",
                "toolCallId": ev.tool_call_id,
                "toolName": ev.tool_name,
                "content": content,
                "isError": bool(ev.is_error),
                "timestamp": self._ms(ev),
            }
        )

    # -- the final check of a call, and what a match leads to -------------------------------------

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
        checks = self.checks
        surface = checks.surface(block.name, args, key, final=True)
        ctx = engine.context("tool", tool_name=block.name, file_paths=surface.paths, stream_key=key)
        snapshot = self.manager.check_snapshot if self._final_regex else self.manager.hold_snapshot
        if surface.entries or surface.digest is not None:
            matches = checks.regex(surface, ctx, "", snapshot)
        else:
            final = compact_json(args)
            matches = checks.check(snapshot, final, ctx)
        if self._handle(matches, ctx, ev):
            return
        # AST conditions run here and only here, as in the agent: on the finalized call's digest or
        # per-file entries (a tool with neither gets no AST check), after the regex check, unless that
        # interrupted. A match aborts with the call complete, so it gets the placeholder result.
        if self.manager.has_ast_rules():
            self._handle(checks.ast(surface, ctx), ctx, ev)

    def _handle(self, matches: list[Rule], ctx: Any, ev: StreamEvent) -> bool:
        """The trigger handler; True when it interrupted (the caller stops processing the event)."""
        if not matches:
            return False
        book = self.triggers
        # Not de-duplicated: a rule matching two files of one call is listed twice, in the event, the
        # abort reason and the notice, as the coordinator passes its concatenated matches on.
        names = tuple(r.name for r in matches)
        key = ctx.stream_key
        if book.should_interrupt(matches, ctx.source):
            book.add_pending(matches)
            book.abort_pending = True
            call = key[len("toolcall:"):] if ctx.source == "tool" and key and key.startswith("toolcall:") else None
            if book.first_announcement(key, names):
                self._emit("ttsr_triggered", names, delta=ev.delta, source=ctx.source, stream_key=key,
                           tool_call_id=call, interrupt=True)
            self._abort(names, ctx, ev)
            return True
        if ctx.source == "tool" and key and key.startswith("toolcall:"):
            call_id = key[len("toolcall:"):]
            fresh = book.claim(call_id, matches)
            if book.first_announcement(key, names):
                self._emit("ttsr_triggered", names, delta=ev.delta, source="tool", stream_key=key,
                           tool_call_id=call_id, interrupt=False, claimed=[r.name for r in fresh])
            return False
        book.add_pending(matches)  # deferred prose reminder: no event, not yet marked
        return False

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
        self.triggers.after_message_end("aborted")
        self.manager.increment_message_count()  # the aborted turn still ends (turn_end)
        self.triggers.emitted.clear()
        self.skipping = ev.type != "turn_end"
        self._retry(target_len, ev)

    def _retry(self, target_len: int, ev: StreamEvent) -> None:
        book = self.triggers
        book.abort_pending = False
        book.tool_buckets.clear()
        mode = self.settings.context_mode or "discard"
        rules = book.take_pending()
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

    def _deliver_follow_ups(self) -> None:
        for content, names, delivery_id in self.triggers.take_follow_ups():
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

    # -- what the stepper and the hooks read of the collaborators ------------------------------------

    @property
    def on_check(self) -> CheckHook | None:
        """Called after every check with (context, the manager method's name, the matches)."""
        return self.checks.on_check

    @on_check.setter
    def on_check(self, hook: CheckHook | None) -> None:
        self.checks.on_check = hook

    @property
    def last_checked_text(self) -> str:
        """The text of the latest check (the stepper explains AST misses on it)."""
        return self.checks.last_checked_text

    @property
    def edit_modes(self) -> dict[str, dict[str, Any]]:
        """Stream key -> the edit mode a call was read with, and why."""
        return self.checks.edit_modes

    @property
    def last_edit_mode(self) -> dict[str, Any] | None:
        """The latest edit-mode reading (the stepper shows it, and clears it before each event)."""
        return self.checks.last_edit_mode

    @last_edit_mode.setter
    def last_edit_mode(self, value: dict[str, Any] | None) -> None:
        self.checks.last_edit_mode = value

    @property
    def pending(self) -> list[Rule]:
        """Rules matched and waiting for the retry's injection or a deferred reminder."""
        return self.triggers.pending

    @property
    def tool_buckets(self) -> dict[str, list[Rule]]:
        """Tool call id -> rules claimed for its result (folded in as a reminder)."""
        return self.triggers.tool_buckets

    @property
    def follow_ups(self) -> list[tuple[str, tuple[str, ...], int]]:
        """Deferred reminders queued (content, rules, delivery id) for the agent's next stop."""
        return self.triggers.follow_ups

    # -- judged rules (the session's ``judging``, workbench.replay.judge.queue) ---------------------

    @property
    def judge(self) -> Any:
        """The judge judged rules are asked of (``None``: they are never delivered)."""
        return self.judging.judge

    @property
    def judge_rounds(self) -> list[Any]:
        """The judge queue of each completed message judged so far (``JudgeRound``)."""
        return self.judging.rounds

    @property
    def judge_waiting(self) -> Any:
        """The request an ``ask`` judge waits on, or ``None``."""
        return self.judging.waiting

    def judged_rule_names(self) -> list[str]:
        return self.judging.judged_rule_names()

    def resume_judging(self, answers: Sequence[Any] | Mapping[str, Any]) -> None:
        """Answer the request an ``ask`` judge waits on and go on judging the message's other outputs."""
        self.judging.resume(answers)

    def _deliver_asides(self) -> None:
        """The judged warnings join the conversation as hidden custom messages (``deliverAs: "aside"``)."""
        for content, names in self.judging.take_asides():
            message = self.injection_message(content, names)
            self.conversation = self.conversation.append(message)
            self.copy.append_custom_message(message)
            # Persisting the message records the rules as injected again, as the agent's message_end does.
            self.manager.mark_injected_by_names(list(names))
            self.copy.append_injection(names, self._ms(None))
            self._emit("injection", names, content=content, deferred=True, judged=True)

    # -- helpers ----------------------------------------------------------------------------------

    def retry_views(self, rules: Sequence[Rule] = ()) -> tuple[Conversation, Conversation]:
        """(keep, discard): what the model would see if a retry for ``rules`` happened now."""
        keep = self.conversation
        discard = self.conversation
        if self.streaming is not None:
            partial = self.streaming.snapshot()
            completed = [b for b in partial.blocks if b.kind == "toolCall" and b.completed]
            keep = keep.append(LazyMessage(lambda: partial.aborted("TTSR retry preview")[0]))
            for block in completed:
                keep = keep.append({"role": "toolResult", "toolCallId": block.id, "toolName": block.name,
                                    "content": [{"type": "text", "text": "Tool execution was aborted: TTSR retry preview"}],
                                    "isError": True})
        if rules:
            content = engine.render(self.interrupt_template, rules, cwd=self.cwd, home=self.home)
            message = self.injection_message(content, [r.name for r in rules])
            keep, discard = keep.append(message), discard.append(message)
        return keep, discard

    def write_session_copy(self, path: str) -> Any:
        """Save the session copy with the entries this replay appended (never the original file)."""
        return self.copy.write(path)

    def pending_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.triggers.pending)

    def _emit(self, type: ReplayEventType, rules: tuple[str, ...], **kw: Any) -> None:
        fixed = {k: kw.pop(k) for k in ("delta", "source", "stream_key", "tool_call_id", "reason", "content") if k in kw}
        detail = {("mode" if k == "detail_mode" else k): v for k, v in kw.items()}
        self.events.append(ReplayEvent(self._step, type, tuple(rules), **fixed, detail=MappingProxyType(detail)))
        if type == "ttsr_triggered":
            self._notify(rules)

    def _notify(self, names: Sequence[str]) -> None:
        """The agent's chat notice for a trigger: merged into the last one while it is the transcript's
        last block (workbench.replay.notifications)."""
        rules = [self._notice_rules.get(name) or NoticeRule(name) for name in names]
        if self._notice_open and self.notifications:
            self.notifications[-1] = self.notifications[-1].merged(rules)
        else:
            # A new block keeps the event's rules as given (duplicates too); only merging de-duplicates.
            self.notifications.append(Notification(self._step, tuple(rules)))
        self._notice_open = True

    def _ms(self, ev: StreamEvent | None) -> int | float:
        if ev is not None and isinstance(ev.timestamp, (int, float)):
            return ev.timestamp
        return max(self._step, 0)  # deterministic stand-in for the clock: the step number
