"""The stepper: one immutable ``Snapshot`` per stream event, computed forward on demand.

Snapshots share structure: buffer texts are prefixes of per-turn ropes, conversations are persistent
lists, and a rule's state or a buffer that did not change between steps is the very same object in
both snapshots. Snapshots are kept once computed, so seeking back and forth returns identical values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import workbench.replay.engine as engine
from workbench.errors import JudgeError, JudgePending
from workbench.replay.config import ReplayConfig, ReplaySource, as_source
from workbench.replay.conversation import TextView
from workbench.replay.engine import compile_rule_condition, explain_no_match, language_for, rule_patterns
from workbench.replay.events import ReplayEvent, ReplayResult
from workbench.replay.session import SimulatedSession
from workbench.replay.snapshot import NOT_CHECKED, BufferView, RuleState, Snapshot
from workbench.replay.stream import Stream
from workbench.replay.timebound import PreCheck, guard
from workbench.rules import Rule

__all__ = ["NOT_CHECKED", "BufferView", "RuleState", "Snapshot", "Stepper"]


# The regex gates' answers that leave an AST rule to its patterns (an AST miss then says why).
_AST_OPEN = "not yet checked"
_AST_OPEN_REASONS = frozenset({_AST_OPEN, "no regex condition (AST only)", "no condition matched"})
# Said at a tool-call delta for a rule with AST conditions the regex gates let through: the agent
# (18.3.4's coordinator) runs ast-grep only on the finished call, so the AST answer comes at toolcall_end.
AST_AT_CALL_END = "the agent checks ast-grep rules when the call is complete"


@dataclass
class _StepChecks:
    """What the manager was asked during one step (filled by the session's check hook)."""

    keys: list[str] = field(default_factory=list)
    why: dict[str, str | None] = field(default_factory=dict)
    matched: list[str] = field(default_factory=list)
    tool_delta: bool = False  # the step is a toolcall_delta: AST conditions wait for toolcall_end


class Stepper:
    """Time travel over a stream: ``seek(i)``, ``next_trigger(i)``, ``prev_trigger(i)``, ``len(stepper)``."""

    def __init__(self, source: ReplaySource | Stream, rules: Iterable[Rule], config: ReplayConfig | None = None, *,
                 progress: Callable[[int, int], None] | None = None, background: bool = False) -> None:
        self.source = as_source(source)
        self.stream = self.source.stream
        self.rules = list(rules)
        self.config = (ReplayConfig() if config is None else config).for_stream(self.stream)
        self.cwd = self.config.where
        # ``progress(done, total)``: the time-bound pre-check replays the whole stream once (seconds on
        # long streams), so it reports how far it got. Only rules that are not provably linear are
        # checked (none: no pre-check). With ``background`` the check runs in a thread
        # (``self.precheck``): the first step is available at once, and ``seek`` waits only until
        # the check has verified the step asked for; when it disables a rule, every snapshot is
        # recomputed without it (``generation`` grows).
        self.precheck: PreCheck | None = None
        self.generation = 0
        # ``interrupt()``: called while ``seek`` waits for the pre-check, and may raise to stop the
        # wait (a cancelled search must not sit on a worker until the check reaches its step)
        self.interrupt: Callable[[], None] | None = None
        if background:
            self.precheck = PreCheck(self.stream, self.rules, self.config, explain=True, progress=progress)
            self._start({}, [])
        else:
            disabled, events = guard(self.stream, self.rules, self.config, explain=True, progress=progress)
            self._start(disabled, events)

    def _start(self, disabled: dict[str, str], time_bound_events: list[Any]) -> None:
        """(Re)build the session with ``disabled`` rules; snapshots start over."""
        self.disabled, self.time_bound_events = disabled, time_bound_events
        # The time-bound pre-check runs without the judge: it must not ask anyone anything.
        self.session = SimulatedSession(self.rules, self.config, disabled_rules=self.disabled, stream=self.stream)
        self.session.on_check = self._on_check
        self._ast_names = frozenset(r.name for r in self.rules if rule_patterns(getattr(r, "ast_condition", None)))
        self._snapshots: list[Snapshot] = []
        self._checks = _StepChecks()
        self._emitted = 0
        self._result: ReplayResult | None = None
        self._render_cache: dict[tuple[str, ...], str] = {}
        self._registration = self._registration_table()
        self._conditions = self._compile_conditions()
        self._rules_sig: tuple | None = None
        self._rounds_seen = 0
        self._bound_by_step: dict[int, list[ReplayEvent]] = {}
        for ev in self.time_bound_events:
            self._bound_by_step.setdefault(ev.step, []).append(ev)

    def _verified(self, index: int) -> None:
        """With a background pre-check: wait until step ``index`` is verified; start over if the
        check has disabled rules since the snapshots were computed."""
        pc = self.precheck
        if pc is None:
            return
        _generation, disabled, events = pc.wait_verified(index, interrupt=self.interrupt)
        if disabled != self.disabled:
            self.generation += 1
            self._start(disabled, events)

    # -- navigation -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.stream.events)

    def seek(self, index: int) -> Snapshot:
        """The snapshot after event ``index`` (negative indexes count from the end)."""
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"step {index} out of range (the stream has {n} events)")
        self._verified(index)
        while len(self._snapshots) <= index:
            if self.session.judge_waiting is not None:
                raise JudgePending(self.session.judge_waiting)
            self._advance()
        return self._snapshots[index]

    @property
    def computed(self) -> int:
        """How many steps have been replayed so far (the snapshots only grow, up to ``len(self)``)."""
        return len(self._snapshots)

    @property
    def waiting(self) -> Any:
        """The ``JudgeRequest`` an ``ask`` judge waits on (the last snapshot's step), or ``None``."""
        return self.session.judge_waiting

    def answer(self, answers: Any) -> Snapshot:
        """Answer the waiting judge request (answers in question order, or a mapping by rule name) and
        return the paused step's snapshot, recomputed with the verdict; later steps can then be sought."""
        if self.session.judge_waiting is None:
            raise JudgeError("no judge is waiting for an answer")
        paused = self._snapshots.pop()
        self.session.resume_judging(answers)
        self._snapshot(paused.index, paused.event, paused.status, earlier=paused.events)
        return self._snapshots[-1]

    def __getitem__(self, index: int) -> Snapshot:
        return self.seek(index)

    def snapshots(self) -> list[Snapshot]:
        if len(self):
            self.seek(len(self) - 1)
        return list(self._snapshots)

    def next_trigger(self, index: int) -> int | None:
        """The first step after ``index`` where a rule matched or the session acted."""
        for i in range(max(index + 1, 0), len(self)):
            if self.seek(i).is_trigger:
                return i
        return None

    def prev_trigger(self, index: int) -> int | None:
        for i in range(min(index, len(self)) - 1, -1, -1):
            if self.seek(i).is_trigger:
                return i
        return None

    def result(self) -> ReplayResult:
        """The run summary (computes every step)."""
        if self._result is None:
            self.snapshots()
            result = self.session.finish()
            self._result = ReplayResult(
                tuple(sorted([*self.time_bound_events, *result.events], key=lambda e: e.step)),
                result.injected, result.context, result.status, result.stream_calls, result.entries,
                dict(self.disabled), judge=result.judge, judged_rules=result.judged_rules,
                judge_rounds=result.judge_rounds,
            )
        return self._result

    # -- computing one step -----------------------------------------------------------------------

    def _on_check(self, ctx: Any, method: str, matches: list[Any]) -> None:
        checks = self._checks
        key = self.session.manager.buffer_key(ctx)
        if key not in checks.keys:
            checks.keys.append(key)
        names = [r.name for r in matches]
        checks.matched.extend(n for n in names if n not in checks.matched)
        # explain() answers for the regex gates; an AST check only adds its matches.
        reasons = self.session.manager.explain(ctx) if method != "check_ast_snapshot" else {}
        for name in self._registration:
            if name in names:
                checks.why[name] = None
            elif name not in checks.why and method != "check_ast_snapshot":
                reason = reasons.get(name)
                checks.why[name] = reason if reason is not None else "no condition matched"
            elif method == "check_ast_snapshot" and checks.why.get(name, _AST_OPEN) in _AST_OPEN_REASONS:
                self._explain_ast(name, ctx)
        if checks.tool_delta and ctx.source == "tool":
            for name in self._ast_names:
                why = checks.why.get(name)
                if why in _AST_OPEN_REASONS:
                    checks.why[name] = f"{why}; {AST_AT_CALL_END}"

    def _explain_ast(self, name: str, ctx: Any) -> None:
        """An AST rule the regex gates let through but no pattern matched: say why, including where
        ast-grep-py may answer otherwise than the agent's native ast-grep (broken source, JSON ...)."""
        rule = next((r for r in self.session.manager.get_rules() if r.name == name), None)
        patterns = rule_patterns(getattr(rule, "ast_condition", None))
        if patterns:
            text = getattr(self.session, "last_checked_text", "")
            self._checks.why[name] = explain_no_match(patterns, text if isinstance(text, str) else "",
                                                      language_for(ctx.file_paths))

    def _advance(self) -> None:
        index = len(self._snapshots)
        ev = self.stream.events[index]
        self._checks = _StepChecks(tool_delta=ev.type == "toolcall_delta")
        self.session.last_retry = None
        self.session.last_edit_mode = None  # set again when this event reads an edit call
        self._rounds_seen = len(self.session.judge_rounds)
        status = self.session.feed(index, ev)
        self._snapshot(index, ev, status, earlier=tuple(self._bound_by_step.get(index, ())))

    def _snapshot(self, index: int, ev: Any, status: Any, *, earlier: tuple[ReplayEvent, ...]) -> None:
        sim = self.session
        prev = self._snapshots[-1] if self._snapshots else None
        new_events = earlier + tuple(sim.events[self._emitted:])
        self._emitted = len(sim.events)
        matched = tuple(self._checks.matched)
        if sim.last_retry is not None:
            keep, discard = sim.last_retry
        else:
            preview = [r for r in self.rules if r.name in matched and r.name not in sim.pending_names()]
            keep, discard = sim.retry_views([*sim.pending, *preview])
        self._snapshots.append(
            Snapshot(
                index=index,
                event=ev,
                status=status,
                session_status=sim.status,
                message_count=sim.manager.get_message_count(),
                buffers=self._buffers(prev),
                rules=self._rule_states(prev, matched),
                matched=matched,
                pending=sim.pending_names(),
                claims=tuple((cid, tuple(r.name for r in b)) for cid, b in sim.tool_buckets.items()),
                follow_ups=tuple(names for _, names, _ in sim.follow_ups),
                events=new_events,
                rendered=self._rendered(new_events, matched, sim),
                conversation=sim.conversation,
                retry_keep=keep,
                retry_discard=discard,
                injected=tuple(sim.copy.injected_names()) if new_events or prev is None else prev.injected,
                judge_queue=tuple(r for r in sim.judge_rounds[self._rounds_seen:] if r.step == index),
                judge_waiting=sim.judge_waiting,
                edit_mode=sim.last_edit_mode if ev.type.startswith("toolcall_") else None,
            )
        )

    def _buffers(self, prev: Snapshot | None) -> tuple[BufferView, ...]:
        current = self.session.manager.buffers
        old = {b.key: b for b in prev.buffers} if prev is not None else {}
        out = []
        for key, text in current.items():
            view = old.get(key)
            if view is not None and key not in self._checks.keys and len(view.text) == len(text):
                out.append(view)  # untouched this step: share it
                continue
            if view is not None and len(text) >= len(view.text) and text.startswith(str(view.text)):
                if len(text) == len(view.text):
                    out.append(view)
                    continue
                body = view.text.extend(text[len(view.text):])
            else:
                body = TextView.of(text)
            out.append(BufferView(key, body, self._conditions))
        return tuple(out)

    def _compile_conditions(self) -> tuple[tuple[str, Any], ...]:
        out = []
        for rule in self.rules:
            if not self._registration.get(rule.name, (False, None))[0]:
                continue
            compiled = []
            for pattern in rule.condition or ():
                try:
                    compiled.append(compile_rule_condition(pattern))
                except Exception:  # the manager skipped it too (and warned)
                    continue
            out.append((rule.name, tuple(compiled)))
        return tuple(out)

    def _registered_names(self) -> list[str]:
        return [name for name, (ok, _) in self._registration.items() if ok]

    def _registration_table(self) -> dict[str, tuple[bool, str | None]]:
        table: dict[str, tuple[bool, str | None]] = {}
        rejected = self.session.manager.rejections
        for item in self.session.buckets.all():
            name = item.rule.name
            if item.bucket == "ttsr":
                table.setdefault(name, (True, None))
            else:
                why = rejected.get(name)
                table.setdefault(name, (False, f"{item.reason}" + (f" ({why})" if why else "")))
        for name, why in self.disabled.items():
            table[name] = (False, f"disabled: {why}")
        return table

    def _rule_states(self, prev: Snapshot | None, matched: tuple[str, ...]) -> tuple[RuleState, ...]:
        manager = self.session.manager
        count = manager.get_message_count()
        records = {name: r.last_injected_at for name, r in manager.injection_records().items()}
        signature = (count, tuple(records.items()), tuple(self._checks.why.items()), matched)
        if prev is not None and signature == self._rules_sig:
            return prev.rules  # nothing that feeds a rule's state changed: share the whole tuple
        self._rules_sig = signature
        settings = self.session.settings
        once = (settings.repeat_mode or "once") == "once"
        gap_needed = settings.repeat_gap
        old = {r.name: r for r in prev.rules} if prev is not None else {}
        out = []
        for name, (registered, rejected) in self._registration.items():
            last = records.get(name)
            gap = None if last is None else max(0, count - last)
            if last is None:
                remaining: int | float | str | None = None
            elif once:
                remaining = "spent"
            else:
                remaining = max(0, gap_needed - (count - last)) if isinstance(gap_needed, (int, float)) else None
            if not registered:
                why: str | None = f"not registered: {rejected}"
            else:
                why = self._checks.why.get(name, NOT_CHECKED)
            state = RuleState(name, registered, rejected, last, gap, remaining, why, name in matched)
            previous = old.get(name)
            out.append(previous if previous == state else state)
        return tuple(out)

    def _rendered(self, events: tuple[ReplayEvent, ...], matched: tuple[str, ...], sim: SimulatedSession
                  ) -> tuple[tuple[str, str], ...]:
        """What was rendered at this step (``injection`` / ``reminder``), else a preview of what the
        matched rules would render: the tool reminder for a claim, the interrupt template otherwise."""
        done = tuple((e.type, e.content) for e in events if e.content)
        if done or not matched:
            return done
        claim = any(e.type == "ttsr_triggered" and e.detail.get("interrupt") is False for e in events)
        kind, template = ("reminder-preview", sim.reminder_template) if claim else ("interrupt-preview", sim.interrupt_template)
        key = (kind, *sorted(matched))
        text = self._render_cache.get(key)
        if text is None:
            rules = [r for r in self.rules if r.name in matched]
            text = engine.render(template, rules, cwd=sim.cwd, home=sim.home)
            self._render_cache[key] = text
        return ((kind, text),)
