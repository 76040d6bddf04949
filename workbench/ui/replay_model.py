"""The page's replay: what is replayed, with what, and the ``Stepper`` that does it, off the document thread.

One ``ReplayModel`` per ``AppState`` (``AppState.replay_model``, made the first time a view asks). It
holds the source (a recorded stream file, or the open session re-chunked: ``load_source``, the one
way every view loads the stream), the judge choice, the ``Stepper`` built from the state's
``ReplayConfig`` and its time-bound pre-check. Every computation on the stepper (build, seek, "Next
trigger") runs on one lane of the one background runner (``ui/background.py``), in order, with
progress and Cancel; a generation counter drops the reports and results of work a newer rebuild
superseded. The installed stepper is published as ``AppState.replay``, where the Rules tab reads it;
the Stepper tab draws it and hears the model's progress through ``ReplayListener``; the Timeline and
the export replay the same source with the same configuration. No view needs another view for this
(docs/architecture.md, "The app").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import param

from workbench.errors import JudgePending, UsageError
from workbench.replay import ReplaySource, Stepper, derive_stream, read_stream, step_at_point, stream_point
from workbench.replay.judge.judges import AskJudge, FixedJudge
from workbench.sessions import load_session
from workbench.ui import collector
from workbench.ui.background import Background, Task
from workbench.ui.entry_html import esc
from workbench.ui.notify import describe, notify, reporting

_MARKS_ALL_UPTO = 5000  # streams up to this many events are replayed whole after a build, so all marks show
_LANE = "stepper"  # every computation on the stepper (build, seek, next trigger) runs here, in order
_SCAN_CHUNK = 200  # events replayed between progress reports / cancel checks of "Next trigger"
# what a stepper is built from: a change to any of these rebuilds it. The first ``_STREAM_CHOICES`` pick the
# stream (a change starts at step 0); the others (rules folder, settings), like a rule edit, a judge choice
# or a grown session file, replay the same stream, whose steps are its events: the step is kept, so keep
# and discard can be compared at the same point.
SOURCE = ("session", "stream", "chunking", "rules_dir", "context_mode", "interrupt_mode", "repeat_mode", "repeat_gap",
          "edit_mode", "agent")
_STREAM_CHOICES = 3
# short enough for the select's width (the longer "none (judged rules are not delivered)" was cut
# off); the select's description says the rest
JUDGE_CHOICES = {"none: not delivered": "none", "yes to all": "yes", "no to all": "no",
                 "ask me": "ask"}


_CHUNKING = SOURCE.index("chunking")  # the choices before it pick the session and the stream file


@dataclass(frozen=True)
class Remap:
    """A step of the stream being replaced by the same session cut into other steps (another chunking)."""

    events: Sequence[Any]
    step: int
    chunking: str


@dataclass(frozen=True)
class Moved:
    """Where ``Remap``'s step went: ``found`` is the new step at the same point, ``None`` when the
    new stream ends before it."""

    step: int
    chunking: str
    found: int | None

    def words(self, chunking: str, shown: int) -> str:
        if self.found is None:
            return (f"Stepper: step {self.step:,} of the {self.chunking} chunking is past the end of the "
                    f"{chunking} one; showing its last step, {shown:,}")
        return (f"Stepper: chunked by {chunking} now; step {self.step:,} of the {self.chunking} chunking "
                f"is step {shown:,} here (the same event of the same turn)")


class Choices(Protocol):
    """What the model reads of the page's state (``AppState``): the chosen files, the rules, the settings."""

    roots: Any
    stream: str
    chunking: str
    tab: str
    goal: str
    step: int
    replay: Any
    param: Any

    def stream_path(self) -> Any: ...
    def session_path(self) -> Any: ...
    def loaded_session(self, path: Any) -> Any: ...
    def rule_set(self) -> Any: ...
    def seed_settings(self) -> None: ...
    def replay_config(self, stream: Any, session: Any, *, judge: Any = None) -> Any: ...
    def agent_of(self, session: Any) -> dict[str, str]: ...
    def agent_settings(self, *, judge_given: bool = False) -> Any: ...


class ReplayListener(Protocol):
    """What a view that draws the replay hears from the model (the Stepper tab), on the document."""

    def replay_rebuilding(self) -> None: ...  # a rebuild starts: stop playing, the panes show loading
    def replay_progress(self, pct: float, text: str) -> None: ...  # long work reports (never backwards)
    def replay_working(self, tip: str) -> None: ...  # work is queued: offer Cancel
    def replay_idle(self) -> None: ...  # the work ended: no progress bar, no Cancel
    def replay_failed(self, error: BaseException) -> None: ...  # no stepper: say why where it would be
    def replay_installed(self, step: int) -> None: ...  # a new stepper, shown at ``step`` next
    def replay_show(self) -> None: ...  # draw the step on screen
    def replay_moved(self, index: int) -> None: ...  # the step moved to ``index``
    def replay_cancelled(self) -> None: ...  # Cancel stopped the work


def open_session(state: Choices) -> Any:
    """The open session, loaded (``None`` when none is open): the tree's copy when the file is unchanged
    (no second parse, no second copy in memory), else read now as the tree reads it (a big file's large
    tool results left in it, its first pass kept: docs/large-sessions.md), so that a link straight to
    the Stepper costs what the Tree tab's load does."""
    path = state.session_path()
    if path is None:
        return None
    held = state.loaded_session(path)
    if held is not None:
        return held
    session = load_session(path, leave_big_results=True)
    collector.after_load(len(session.entries))
    return session


def load_source(state: Choices, *, session: Any = None) -> ReplaySource:
    """The stream the replay steps through, for the state's choices: the chosen stream file (its
    ``session`` is ``None``: the agent is then ``main`` unless the Agent box names one, as ``workbench
    replay`` on a stream file), else the open session re-chunked by the chosen policy.

    ``session``: the open session, already loaded by the caller (else ``open_session``); the stream is
    built turn by turn as the steps are looked at (docs/large-sessions.md)."""
    path = state.stream_path()
    if path is not None:
        return ReplaySource(read_stream(path), label=state.roots.display(path))
    session_path = state.session_path()
    if session_path is None:
        raise UsageError("open a session (Sessions tab) or choose a stream file")
    if session is None:
        session = open_session(state)
    stream = derive_stream(session, policy=state.chunking, lazy=True)
    return ReplaySource(stream, session=session,
                        label=f"{state.roots.display(session_path)} re-chunked by {state.chunking}")


def make_judge(choice: str) -> Any:
    """A fresh judge for a new stepper (``None`` when judged rules are not to be delivered)."""
    if choice == "yes":
        return FixedJudge(True)
    if choice == "no":
        return FixedJudge(False)
    if choice == "ask":
        return AskJudge()
    return None


def seek_or_pause(stepper: Any, index: int) -> tuple[Any, int]:
    """``stepper.seek(index)``, or the snapshot where an ``ask`` judge paused before it (and its index)."""
    try:
        return stepper.seek(index), index
    except JudgePending:
        last = stepper.computed - 1
        return stepper.seek(last), last


def seek_until(stepper: Any, goal: int) -> int:
    """Compute snapshots up to ``goal`` or the pause before it; returns the last index reached."""
    return seek_or_pause(stepper, goal)[1]


def config_note(agent: dict[str, str], layers: Any) -> str:
    """The Stepper's status line for what the replay runs with (every value escaped): the agent and
    why, then each setting with where it came from (chosen here, a project or user file, the default)."""
    parts = [f'<span class="wb-agent">agent: <b>{esc(agent["name"])}</b> ({esc(agent_why(agent))})</span>']
    for s in layers.ttsr:
        where = {"flag": "chosen here", "default": "default"}.get(s.source) or f"{s.source}: {s.file}"
        parts.append(f'<span class="wb-setting" data-key="{esc(s.key)}">{esc(s.key)} {esc(json.dumps(s.value))} '
                     f"({esc(where)})</span>")
    return '<div class="wb-kv wb-replay-config">' + " · ".join(parts) + "</div>"


def agent_why(agent: dict[str, str]) -> str:
    """Why the agent is the one it is, worded for the app (``from session_init``, ``set in the Agent box``)."""
    why = agent.get("why", "")
    if agent.get("source") == "session" and why.startswith("session_init entry names"):
        return "from session_init"
    return why


def _stop_precheck(stepper: Any) -> None:
    """Stop a stepper's background time-bound check (its child process) when the stepper is dropped."""
    check = getattr(stepper, "precheck", None)
    if check is not None:
        check.cancel()


def _first_trigger(stepper: Any, lo: int, hi: int) -> int | None:
    """The first trigger step in ``[lo, hi)`` (replaying those steps as needed)."""
    for i in range(lo, min(hi, len(stepper))):
        if stepper.seek(i).is_trigger:
            return i
    return None


class ReplayModel(param.Parameterized):
    """Build, seek and search the page's ``Stepper`` off the document thread, for every view that shows it."""

    judge = param.Selector(default="none", objects=list(JUDGE_CHOICES.values()),
                           doc="How judged rules are answered (none, yes, no, ask).")
    built = param.Integer(default=0, doc="Bumped each time a new stepper is installed.")

    def __init__(self, state: Choices, **params: Any) -> None:
        super().__init__(**params)
        self.state = state
        self.bg = Background()
        self.stepper: Any = None
        self.label = ""
        self.config_note = ""
        self.listeners: list[ReplayListener] = []
        self._task: Task | None = None
        self._generation = 0
        self._installed = -1  # the generation whose stepper is installed (late progress reports are dropped)
        self._dirty = True
        self._built_from: tuple[Any, ...] | None = None  # _source() of the latest rebuild (None: none yet)
        state.seed_settings()  # the settings start from the project's config files (docs/agent-settings.md)
        self.param.watch(lambda e: self._mark_dirty(), "judge")
        s = state.param
        s.watch(lambda *e: self._mark_dirty(), [*SOURCE, "rules_revision"])
        s.watch(lambda e: self._rebuild_if_derived(), "revision")
        s.watch(lambda e: self.ensure(), "tab")
        s.watch(lambda e: self.ensure(), "replay_wanted")

    def listen(self, listener: ReplayListener) -> None:
        self.listeners.append(listener)

    def _tell(self, hook: Callable[[ReplayListener], None]) -> None:
        for listener in self.listeners:
            hook(listener)

    @property
    def served(self) -> bool:
        return self.bg.served

    # -- building ------------------------------------------------------------------------------------
    def _source(self) -> tuple[Any, ...]:
        return tuple(getattr(self.state, name) for name in SOURCE)

    def stale(self) -> bool:
        """The installed stepper replays other choices than the state's: a rebuild is due (now or once
        the tab shows). Within one ``param.update`` (``open_step``: step, tab and session at once) the
        step watcher may run before the rebuild: the old stream must not clamp the new step."""
        return self.stepper is not None and self._built_from != self._source()

    def _rebuild_if_derived(self) -> None:
        if not self.state.stream:
            self._mark_dirty()

    def _mark_dirty(self) -> None:
        # Replaying a long session costs real time: only do it while the Stepper or Rules tab shows it.
        self._dirty = True
        self.ensure()

    def ensure(self) -> None:
        """Rebuild now if something changed and the stepper is on screen (or not served at all).

        The step is kept when the stream is that of the last build (new settings, another rules folder
        or a rule edit replay the same events), for the first build (a deep link's step=) and when
        ``open_step`` asked for it; otherwise a new stream starts at 0. Decided by comparing choices,
        not by which watcher ran: one update that changes several parameters calls several watchers,
        and an earlier one (the tab) may rebuild with the later ones' values already set."""
        if self._dirty and self.state.tab in ("stepper", "rules"):
            built, source = self._built_from, self._source()
            same_stream = built is None or built[:_STREAM_CHOICES] == source[:_STREAM_CHOICES]
            only_chunking = built is not None and not same_stream and built[:_CHUNKING] == source[:_CHUNKING]
            # a stream file is replayed as recorded: another chunking leaves its events as they are
            same_stream = same_stream or (only_chunking and bool(self.state.stream))
            keep = same_stream or self.state.goal == "step"
            # the open session cut into other steps: the same point of the stream is looked for in them
            remap = None
            if only_chunking and not keep and self.stepper is not None and built is not None:
                remap = Remap(self.stepper.stream.events, self.state.step, built[_CHUNKING])
            self._dirty = False
            self.rebuild(keep_step=keep, remap=remap)

    def rebuild(self, keep_step: bool = False, remap: Remap | None = None) -> None:
        """Make a new stepper from the current choices on the background lane; errors become a notification.

        The time-bound pre-check of a long stream takes seconds: the page shows its progress (never
        running backwards) and a Cancel button meanwhile; the result is installed on the document.
        In a notebook it runs inline.
        """
        self._tell(lambda v: v.replay_rebuilding())
        if self._task is not None:
            self._task.cancel()
        _stop_precheck(self.stepper)
        self._built_from = self._source()
        self.stepper = None
        self.state.replay = None
        self._generation += 1
        generation = self._generation
        # a new stream or new settings start at step 0; a rule edit keeps the step being looked at
        # ``remap``: the step moves to where the old one's point of the stream is in the new steps
        target = self.state.step if keep_step else 0
        if not keep_step and remap is None and self.state.step:
            self.state.step = 0
        self._show_progress(generation, 0, "Loading the stream")

        def work(task: Task) -> tuple[Any, str, BaseException | None, Moved | None]:
            return self._prepare(target, lambda pct, text: task.progress(int(pct), 100, text), remap)

        self._task = self.bg.submit(
            work, what="Stepper", lane=_LANE,
            done=lambda result: self._install(generation, keep_step, *result),
            progress=lambda done, total, text: self._show_progress(generation, done, text),
        )
        self._tell(lambda v: v.replay_working("Cancel the stepper's preparation"))

    def cancel(self) -> None:
        """Stop the running preparation or "Next trigger" search (the Cancel button)."""
        if self._task is not None and not self._task.finished:
            self._task.cancel()
            self._generation += 1 if self.stepper is None else 0
            self._tell(lambda v: v.replay_idle())
            notify("Cancelled.", "info", 2000)
            self._tell(lambda v: v.replay_cancelled())

    def close(self) -> None:
        """The page is gone: stop its work (the lane's task, the stepper's time-bound pre-check and its
        child process), which would otherwise go on using the server's CPU for nobody."""
        self._generation += 1  # a result still on its way installs nothing
        if self._task is not None:
            self._task.cancel()
        _stop_precheck(self.stepper)

    def working(self) -> bool:
        """Work is queued on the lane and not finished (the Cancel button is offered meanwhile)."""
        return self.bg.served and not (self._task is None or self._task.finished)

    def _show_progress(self, generation: int, pct: float, text: str) -> None:
        if generation != self._generation or generation == self._installed:
            return  # a newer rebuild reports its own progress; a finished one has nothing left to report
        self._tell(lambda v: v.replay_progress(pct, text))

    def _prepare(self, target: int, report: Any,
                 remap: Remap | None = None) -> tuple[Any, str, BaseException | None, Moved | None]:
        """(stepper, label, error, moved): the heavy part, safe to run off the document thread.
        ``moved`` says where ``remap``'s step went in the new stream (``None`` without ``remap``).

        ``report(percent, text)`` hears the phases: stream 0–10 %, rules 10–20 %, the time-bound
        pre-check up to the step to show 20–60 %, then the events replayed up to ``target`` 60–100 %,
        counted. The pre-check (a bounded replay in a child process) runs in the background from
        the first event on: a step is shown as soon as it is checked, not after the whole stream
        (78 s before on a 100,000-entry session; docs/large-sessions.md).
        """
        try:
            report(0, "Loading the stream")
            source = load_source(self.state)
            stream, label, session = source.stream, source.label, source.session
            n = len(stream.events)
            moved = None
            if remap is not None:
                report(5, f"Finding step {remap.step:,} of the {remap.chunking} chunking in the new steps")
                found = step_at_point(stream.events, stream_point(remap.events, remap.step))
                target = max(n - 1, 0) if found is None else found
                moved = Moved(remap.step, remap.chunking, found)
            report(10, f"Loading the rules ({n:,} events in the stream)")
            ruleset = self.state.rule_set()
            rules = ruleset.rules()
            report(20, f"Checking rule time bounds: replaying {n:,} events with {len(rules)} rules once")
            shown = [-1]  # the whole percent last reported: the child is polled every 10 ms

            def checked(done: int, total: int) -> None:
                # called from the check's own thread, also after this preparation has ended (the
                # stepper is in use by then) or was cancelled: a report then is dropped, and never
                # raises into the check
                pct = 20 + 40 * done // max(total, 1)
                if pct != shown[0] and not finished[0]:
                    shown[0] = pct
                    try:
                        report(pct, f"Checking rule time bounds: {done:,} of {total:,} events")
                    except Exception:  # noqa: BLE001 - the preparation was cancelled: it stops at its own next report
                        finished[0] = True

            finished = [False]

            judge = make_judge(self.judge)
            config = self.state.replay_config(stream, session, judge=judge)
            self.config_note = config_note(self.state.agent_of(session),
                                           self.state.agent_settings(judge_given=judge is not None))
            stepper = Stepper(ReplaySource(stream, label=label), rules, config, progress=checked, background=True)
            goal = min(max(target, 0), max(len(stepper) - 1, 0))
            finished[0] = True  # the check goes on in the background; from here on the replay reports
            chunk = 250
            for i in range(0, goal + 1 if n else 0, chunk):  # an empty stream has no step to go to
                report(60 + 40 * i / max(goal, 1), f"Replaying events up to step {goal:,}: {i:,} done")
                if seek_until(stepper, min(i + chunk - 1, goal)) < min(i + chunk - 1, goal):
                    break  # an ``ask`` judge paused the replay: it goes on once answered
            if 0 < n <= _MARKS_ALL_UPTO:  # a short stream is replayed whole here: the slider marks are complete
                report(99, f"Replaying all {n:,} events for the slider's marks")
                seek_until(stepper, n - 1)
            report(100, "Done")
            finished[0] = True
            return stepper, label, None, moved
        except Exception as exc:  # reported on the document thread by _install
            _stop_precheck(locals().get("stepper"))
            return None, "", exc, None

    def _install(self, generation: int, keep_step: bool, stepper: Any, label: str, error: BaseException | None,
                 moved: Moved | None = None) -> None:
        if generation != self._generation:
            _stop_precheck(stepper)
            return  # a newer rebuild superseded this one
        self._installed = generation
        self._tell(lambda v: v.replay_idle())
        with reporting("Stepper"):
            if error is not None:
                self._tell(lambda v: v.replay_failed(error))
                notify(f"Stepper: {describe(error)}", "error")
                return
            self.stepper = stepper
            self.label = label
            n = len(stepper)
            if self.state.goal == "step":
                keep_step, self.state.goal = True, ""  # one shot: open_step asked for this step
            step = min(self.state.step, max(n - 1, 0)) if keep_step else 0
            if keep_step and step != self.state.step:
                notify(f"Stepper: step {self.state.step:,} is past the end of this stream; showing step {step:,}",
                       "warning", 4000)
            elif moved is not None:
                step = max(n - 1, 0) if moved.found is None else moved.found
                notify(moved.words(self.state.chunking, step), "info" if moved.found is not None else "warning", 5000)
            self._tell(lambda v: v.replay_installed(step))
            if step != self.state.step:
                self.state.step = step
        self._tell(lambda v: v.replay_show())
        self.state.replay = stepper
        self.built += 1
        if self.state.goal == "first-trigger" and self.stepper is not None:
            self.state.goal = ""  # one shot: the landing page's first step asks for the trigger
            self.next_trigger()

    # -- moving --------------------------------------------------------------------------------------
    def go(self, index: int) -> None:
        """Show step ``index`` (clamped); steps far beyond those replayed so far are reached on the lane."""
        if self.stepper is None or self.busy() or self.stale():
            return
        st = self.stepper
        n = len(st)
        target = max(0, min(int(index), n - 1)) if n else 0
        done_upto = self.computed()
        # a step the background pre-check has not reached yet would wait for it: on the lane, not here
        verified = st.precheck.verified if st.precheck is not None else n
        if target < min(done_upto + _SCAN_CHUNK, verified):
            self._set_step(target)
            return
        generation = self._generation

        def work(task: Task) -> int:
            for lo in range(done_upto, target + 1, _SCAN_CHUNK):
                task.progress(lo - done_upto, target - done_upto, f"Replaying up to step {target:,}: {lo:,} done")
                st.seek(min(lo + _SCAN_CHUNK - 1, target))
            return target

        def done(found: int) -> None:
            self._tell(lambda v: v.replay_idle())
            if generation == self._generation:
                self._set_step(found)

        self._lane_work(work, "Step", f"Replaying up to step {target:,}", done)

    def _set_step(self, index: int) -> None:
        self.state.step = index
        self._tell(lambda v: v.replay_moved(index))

    def next_trigger(self) -> None:
        """Go to the next step where a rule matched or the session acted.

        The steps ahead may not have been replayed yet (thousands of events on a long stream): the
        search runs on the lane with a progress bar and a Cancel button.
        """
        st = self.stepper
        if st is None:
            return
        running = self._task
        if running is not None and self.busy():
            # one piece of work at a time on the lane: say so, instead of a click that does nothing
            notify(f"Next trigger: {running.what} is still running; click again once it is done", "info", 3000)
            return
        start, n = self.state.step, len(st)
        generation = self._generation

        def work(task: Task) -> int | None:
            for lo in range(start + 1, n, _SCAN_CHUNK):
                task.progress(lo - start, n - start, f"Looking for the next trigger: step {lo:,} of {n - 1:,}")
                found = _first_trigger(st, lo, lo + _SCAN_CHUNK)
                if found is not None:
                    return found
            return None

        def done(found: int | None) -> None:
            self._tell(lambda v: v.replay_idle())
            if generation != self._generation:
                return
            if found is None:
                notify("No further trigger in this stream.", "info", 2500)
                self._set_step(n - 1)
            else:
                self._set_step(found)

        self._lane_work(work, "Next trigger", "Looking for the next trigger", done)

    def previous_trigger(self) -> None:
        if self.stepper is not None:
            found = self.stepper.prev_trigger(self.state.step)
            self.go(0 if found is None else found)

    def _lane_work(self, work: Any, what: str, text: str, done: Any) -> None:
        generation = self._generation

        def progress(d: int, t: int, msg: str) -> None:
            if generation == self._generation:
                self._tell(lambda v: v.replay_progress(100 * d / max(t, 1), msg))

        def failed(exc: BaseException) -> None:
            self._tell(lambda v: v.replay_idle())
            notify(f"{what}: {exc}", "error")

        stepper = self.stepper

        def interruptible(task: Task) -> Any:
            # a step that waits for the time-bound pre-check stops there when the task is cancelled
            # (Cancel, or the page closed), instead of holding a pool worker until the check gets there
            if stepper is not None:
                stepper.interrupt = task.check
            try:
                return work(task)
            finally:
                if stepper is not None:
                    stepper.interrupt = None

        self._tell(lambda v: v.replay_progress(0, text))
        self._task = self.bg.submit(interruptible, what=what, lane=_LANE, done=done, progress=progress, failed=failed)
        self._tell(lambda v: v.replay_working(f"Stop: {text.lower()}"))

    def busy(self) -> bool:
        return self._task is not None and not self._task.finished and not self._task.cancelled

    def computed(self) -> int:
        """How many steps the stepper has replayed so far (its snapshot list only grows)."""
        return self.stepper.computed if self.stepper is not None else 0
