"""The simulated agent session (docs/architecture.md, "The simulated session"): stream events in, TTSR decisions out.

``SimulatedSession.feed(index, event)`` plays one recorded event through a ``TtsrManager`` the way
the agent session does: buffers reset per turn, deltas routed by stream key, interrupting matches
abort the turn and retry on the *next recorded turn*, non-interrupting tool matches fold a reminder
into that tool's result, non-interrupting prose matches become a deferred hidden follow-up. Judged
rules (``question``) are asked of ``judge`` once a message completes (``workbench.replay.judge.queue``).
Persistence goes into an in-memory copy of the session, never the original file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, cast

import workbench.replay.engine as engine
from workbench.replay.config import ReplayConfig
from workbench.replay.conversation import Conversation, LazyMessage
from workbench.replay.events import (
    CheckHook,
    ReplayEvent,
    ReplayEventType,
    ReplayResult,
    StepStatus,
)
from workbench.replay.judge.queue import JudgedHandling
from workbench.replay.notifications import NoticeRule, Notification
from workbench.replay.persistence import SessionCopy
from workbench.replay.stream import Stream, StreamEvent, thaw
from workbench.replay.streaming import StreamingMessage
from workbench.replay.triggers import TriggerHandling
from workbench.rules import Rule, bucket_rules


class SimulatedSession(TriggerHandling, JudgedHandling):
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
        self.edit_modes: dict[str, dict[str, Any]] = {}  # stream key -> the mode a call was read with, and why
        self.last_edit_mode: dict[str, Any] | None = None  # the latest of those readings (the stepper shows it)
        self.emitted: dict[str, set[str]] = {}  # stream key -> rules announced this turn
        self.notifications: list[Notification] = []
        self._notice_open = False  # the last notice is still the transcript's last block
        self.manager = engine.new_manager(config.settings)
        self.settings = self.manager.get_settings()
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
        self.copy = SessionCopy(config.resume, cwd=self.cwd)
        self.conversation: Conversation = Conversation.EMPTY.extend(self.copy.context_messages())
        restored = self.copy.injected_rule_names()
        if restored:
            self.manager.restore_injected(restored)
        self.streaming: StreamingMessage | None = None
        self.pending: list[Rule] = []
        self.abort_pending = False
        self.tool_buckets: dict[str, list[Rule]] = {}
        self.follow_ups: list[tuple[str, tuple[str, ...], int]] = []  # (content, rules, delivery id)
        self.next_delivery_id = 0
        self.skipping = False
        self.awaiting_retry = False
        self.turn_had_tools = False
        self.status: str = "running"
        self.stream_calls = 0
        self.events: list[ReplayEvent] = []
        self.on_check: CheckHook | None = None
        self.last_retry: tuple[Conversation, Conversation] | None = None
        self._remaining_turns: list[int] = []
        self._turn = -1
        # ``ttsr.judge: off`` (18.3) keeps judged rules inactive whatever judge was given.
        judge = None if self.settings.extra.get("judge") == "off" else config.judge
        self._init_judging(judge, engine.warning_template(config.templates))
        if stream is not None:
            self.expect(stream)
        self._step = -1

    # -- driving ---------------------------------------------------------------------------------

    def expect(self, stream: Stream) -> None:
        """Tell the session where the recorded turns start, so a retry knows if one is left."""
        # a lazily derived stream knows where its turns start without building them
        known = getattr(stream.events, "turn_starts", None)
        self._remaining_turns = known() if known is not None else [
            i for i, e in enumerate(stream.events) if e.type == "turn_start"]

    def feed(self, index: int, ev: StreamEvent) -> StepStatus:
        """Play one event; returns whether it was live, skipped (rest of an aborted turn) or ended."""
        self._check_not_waiting()  # an ``ask`` judge holds the session until it is answered
        self._step = index
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
        if self.follow_ups and self.status == "running":
            self._deliver_follow_ups()
        if self.asides and self.status == "running":
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
            judge=self.judge.label if self.judge is not None else None,
            judged_rules=tuple(self.judged_rule_names()),
            judge_rounds=tuple(self.judge_rounds),
            edit_modes=tuple(self.edit_modes.values()),
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
        self.emitted.clear()
        # Follow-ups reach the model when the agent would otherwise stop (no tool calls left).
        if self.follow_ups and not self.turn_had_tools:
            self._deliver_follow_ups()
        if self.asides:
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
        self._handle(self._check(self.manager.check_delta, ev.delta or "", ctx), ctx, ev)

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
            self._handle(self._check(self.manager.check_delta, delta, ctx), ctx, ev)
            return
        key = f"toolcall:{block.id}" if block.id else f"tool:{block.name}:{ev.content_index}"
        args = msg.partial_arguments(ev.content_index or 0)
        surface = self._tool_surface(block.name, args, key)
        ctx = engine.context("tool", tool_name=block.name, file_paths=surface.paths, stream_key=key)
        # Regex conditions only: the agent (18.3.4 coordinator) runs ast-grep conditions once, on the
        # finalized call at ``toolcall_end`` (docs/architecture.md, "The simulated session").
        self._handle(self._regex(surface, ctx, delta), ctx, ev)

    def _on_message_end(self, ev: StreamEvent) -> None:
        msg = self._streaming(ev)
        stop = ev.stop_reason or "stop"
        final = msg.finalize(stop, ev.error_message)
        self.conversation = self.conversation.append(final)
        self.streaming = None
        self._after_message_end(stop)
        self._judge_completed(final, stop)

    def _on_tool_result(self, ev: StreamEvent) -> None:
        self._notice_open = False
        content = thaw(ev.content)
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        bucket = self.tool_buckets.pop(ev.tool_call_id or "", None)
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
        return tuple(r.name for r in self.pending)

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
