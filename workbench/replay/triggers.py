"""The trigger side of the simulated session (docs/architecture.md, "The simulated session"): what a
check asks the manager, and the bookkeeping of what the matches left to do.

Two collaborators ``SimulatedSession`` holds, each given its inputs and holding its own state:

- ``ToolChecks`` (``session.checks``): a delta or a finished call checked against the manager: the
  call's matcher surfaces (and the edit mode each call was read with), per-file entries, digests,
  AST conditions; the ``on_check`` hook sees every check.
- ``TriggerBook`` (``session.triggers``): the interrupt decision, one announcement per stream key,
  the rules pending for the retry or a deferred prose reminder, the per-call claims folded into tool
  results, and the follow-ups queued for the agent's next stop.

The session acts on their answers: it aborts, retries and injects (its conversation, its copy of the
session file, its events).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import workbench.replay.engine as engine
from workbench.replay.events import CheckHook
from workbench.rules import Rule


def interrupts(mode: str, source: str) -> bool:
    """The interrupt decision for one effective interrupt mode: does a match on ``source`` abort the stream?"""
    return mode == "always" or (mode == "prose-only" and source in ("text", "thinking")) or (
        mode == "tool-only" and source == "tool")


class ToolChecks:
    """The checks of a simulated session against its ``manager``, for a session run in ``cwd`` with
    ``edit_mode`` (``None``: each edit call's own)."""

    def __init__(self, manager: Any, *, cwd: str, edit_mode: str | None) -> None:
        self.manager = manager
        self.cwd = cwd
        self.edit_mode = edit_mode
        self.edit_modes: dict[str, dict[str, Any]] = {}  # stream key -> the mode a call was read with, and why
        self.last_edit_mode: dict[str, Any] | None = None  # the latest of those readings (the stepper shows it)
        self.last_checked_text = ""  # the stepper explains AST misses on this snapshot
        self.on_check: CheckHook | None = None

    def surface(self, name: str, args: Any, key: str, *, final: bool = False) -> engine.ToolSurface:
        """The call's matcher surfaces; the edit mode it was read with (and why) is kept per stream key,
        the last reading winning, for the replay's output."""
        surface = engine.tool_surface(name, args, self.cwd, self.edit_mode, final=final)
        if surface.mode is not None or name == "apply_patch":
            self.edit_modes[key] = {"stream_key": key, "tool": name, "mode": surface.mode, "reason": surface.reason}
            self.last_edit_mode = self.edit_modes[key]
        return surface

    def check(self, method: Callable[[str, Any], list[Rule]], text: str, ctx: Any) -> list[Rule]:
        matches = list(method(text, ctx))
        self.last_checked_text = text
        if self.on_check is not None:
            self.on_check(ctx, method.__name__, matches)
        return matches

    def per_file(self, surface: engine.ToolSurface, ctx: Any, method: Callable[..., list[Rule]]) -> list[Rule]:
        out: list[Rule] = []
        for path, digest in surface.entries:
            cands = engine.path_candidates(path, self.cwd) or [path]
            sub = engine.context("tool", tool_name=ctx.tool_name, file_paths=cands, stream_key=f"{ctx.stream_key}#{path}")
            out.extend(self.check(method, digest, sub))
        return out

    def regex(self, surface: engine.ToolSurface, ctx: Any, delta: str,
              snapshot: Callable[[str, Any], list[Rule]] | None = None) -> list[Rule]:
        """``snapshot``: what checks a digest or a file's entry (``None``: ``manager.check_snapshot``)."""
        method = self.manager.check_snapshot if snapshot is None else snapshot
        if surface.entries:
            return self.per_file(surface, ctx, method)
        if surface.digest is not None:
            return self.check(method, surface.digest, ctx)
        return self.check(self.manager.check_delta, delta, ctx)

    def ast(self, surface: engine.ToolSurface, ctx: Any) -> list[Rule]:
        if surface.entries:
            return self.per_file(surface, ctx, self.manager.check_ast_snapshot)
        if surface.digest is not None:
            return self.check(self.manager.check_ast_snapshot, surface.digest, ctx)
        return []


class TriggerBook:
    """What matches left to do in a simulated session: given the session's ``manager`` (claims mark
    rules injected), its ``settings`` (the interrupt mode) and what a deferred reminder is rendered
    with (``interrupt_template``, ``cwd``, ``home``)."""

    def __init__(self, manager: Any, settings: engine.TtsrSettings, *, interrupt_template: str, cwd: str,
                 home: str | None) -> None:
        self.manager = manager
        self.settings = settings
        self.interrupt_template = interrupt_template
        self.cwd = cwd
        self.home = home
        self.pending: list[Rule] = []
        self.abort_pending = False
        self.tool_buckets: dict[str, list[Rule]] = {}
        self.follow_ups: list[tuple[str, tuple[str, ...], int]] = []  # (content, rules, delivery id)
        self.next_delivery_id = 0
        self.emitted: dict[str, set[str]] = {}  # stream key -> rules announced this turn

    def should_interrupt(self, matches: Sequence[Rule], source: str) -> bool:
        """The interrupt decision: one rule whose effective mode interrupts for this source interrupts the batch."""
        default = self.settings.interrupt_mode or "always"
        return any(interrupts(rule.interrupt_mode or default, source) for rule in matches)

    def first_announcement(self, key: str | None, names: tuple[str, ...]) -> bool:
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

    def add_pending(self, matches: Iterable[Rule]) -> None:
        have = {r.name for r in self.pending} | self.reserved_names()
        for rule in matches:
            if rule.name not in have:
                have.add(rule.name)
                self.pending.append(rule)

    def take_pending(self) -> list[Rule]:
        """The pending rules (for a retry's injection); none are left pending."""
        rules, self.pending = self.pending, []
        return rules

    def claim(self, call_id: str, matches: Sequence[Rule]) -> list[Rule]:
        """A non-interrupting match on tool call ``call_id``: the rules not yet in any call's bucket
        join this call's (its reminder is folded into the call's result) and are marked injected now
        (the claim); returns them."""
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
        return fresh

    def after_message_end(self, stop: str) -> None:
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

    def take_follow_ups(self) -> list[tuple[str, tuple[str, ...], int]]:
        """The queued follow-ups, to deliver now; the queue empties."""
        queued, self.follow_ups = self.follow_ups, []
        return queued
