"""The Stepper tab's work on its background lane: building the stepper, seeking, "Next trigger".

A mixin of ``StepperView`` (which owns the widgets and panes these methods fill): every computation
on the stepper runs on one lane of the view's ``Background``, in order, with progress and Cancel; a
generation counter drops the reports and results of work a newer rebuild superseded.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from workbench.errors import UsageError
from workbench.replay import ReplaySource, Stepper, derive_stream, read_stream
from workbench.sessions import load_session
from workbench.ui.background import Task
from workbench.ui.entry_html import esc
from workbench.ui.judge_view import seek_until
from workbench.ui.notify import describe, notify, reporting

if TYPE_CHECKING:  # the view's types, for the declarations below only (stepper_view imports this module)
    import panel as pn

    from workbench.ui.background import Background
    from workbench.ui.judge_view import JudgeView
    from workbench.ui.state import AppState

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


class StepperLane:
    """Build, seek and search the ``StepperView``'s stepper off the document thread."""

    # What the mixin uses of the view: declared here so the type checker can follow both halves
    # (``StepperView.__init__`` sets them all, and defines the methods declared at the end).
    state: AppState
    built: int
    stepper: Any
    bg: Background
    judge: JudgeView
    _task: Task | None
    _generation: int
    _installed: int
    _dirty: bool
    _built_from: tuple[Any, ...] | None
    _config_note: str
    _events_at: dict[int, tuple[Any, ...]]
    _marks: dict[int, tuple[str, ...]]
    _marked: int
    rules_select: pn.widgets.Select
    slider: pn.widgets.IntSlider
    cancel_btn: pn.widgets.Button
    progress: pn.indicators.Progress
    marks: pn.pane.HTML
    position: pn.pane.HTML
    buffers: pn.pane.HTML
    rules: pn.pane.HTML
    events: pn.pane.HTML
    rendered: pn.pane.HTML
    keep: pn.pane.HTML
    discard: pn.pane.HTML

    def _on_step(self) -> None: ...
    def _stop_play(self) -> None: ...

    # -- building ------------------------------------------------------------------------------------
    def _source(self) -> tuple[Any, ...]:
        return tuple(getattr(self.state, name) for name in SOURCE)

    def _stale(self) -> bool:
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
        ``open_step`` asked for it; otherwise a new stream starts at 0. Decided by comparing choices, not by which watcher ran: one update that
        changes several parameters calls several watchers, and an earlier one (the tab) may rebuild
        with the later ones' values already set."""
        if self._dirty and self.state.tab in ("stepper", "rules"):
            built = self._built_from
            same_stream = built is None or built[:_STREAM_CHOICES] == self._source()[:_STREAM_CHOICES]
            keep = same_stream or self.state.goal == "step"
            self._dirty = False
            self.rebuild(keep_step=keep)

    def _load_stream(self) -> tuple[Any, str, Any]:
        """(stream, label, session): the session is ``None`` for a recorded stream file, whose agent is
        then ``main`` unless the Agent box names one (as ``workbench replay`` on a stream file)."""
        path = self.state.stream_path()
        if path is not None:
            return read_stream(path), self.state.roots.display(path), None
        session_path = self.state.session_path()
        if session_path is None:
            raise UsageError("open a session (Sessions tab) or choose a stream file")

        # the tree's copy when the file is unchanged (no second parse, no second copy in memory); the
        # stream is built turn by turn as the steps are looked at (docs/large-sessions.md)
        session = self.state.loaded_session(session_path) or load_session(session_path)
        stream = derive_stream(session, policy=self.state.chunking, lazy=True)
        return stream, f"{self.state.roots.display(session_path)} re-chunked by {self.state.chunking}", session

    def rebuild(self, keep_step: bool = False) -> None:
        """Make a new stepper from the current choices on the background lane; errors become a notification.

        The time-bound pre-check of a long stream takes seconds: the page shows its progress (never
        running backwards) and a Cancel button meanwhile; the result is installed on the document.
        In a notebook it runs inline.
        """
        self._stop_play()
        if self._task is not None:
            self._task.cancel()
        _stop_precheck(self.stepper)
        self._built_from = self._source()
        self.stepper = None
        self.state.replay = None
        self._events_at = {}
        self._generation += 1
        generation = self._generation
        # a new stream or new settings start at step 0; a rule edit keeps the step being looked at
        target = self.state.step if keep_step else 0
        if not keep_step and self.state.step:
            self.state.step = 0
        self._show_progress(generation, 0, "Loading the stream")
        for pane in (self.buffers, self.rules):
            pane.loading = self.bg.served

        def work(task: Task) -> tuple[Any, str, BaseException | None]:
            return self._prepare(target, lambda pct, text: task.progress(int(pct), 100, text))

        self._task = self.bg.submit(
            work, what="Stepper", lane=_LANE,
            done=lambda result: self._install(generation, keep_step, *result),
            progress=lambda done, total, text: self._show_progress(generation, done, text),
        )
        self._show_cancel("Cancel the stepper's preparation")

    def cancel(self) -> None:
        """Stop the running preparation or "Next trigger" search (the Cancel button)."""
        if self._task is not None and not self._task.finished:
            self._task.cancel()
            self._generation += 1 if self.stepper is None else 0
            self._hide_progress()
            for pane in (self.buffers, self.rules):
                pane.loading = False
            notify("Cancelled.", "info", 2000)
            if self.stepper is not None:
                self._on_step()
            else:
                self.position.object = '<div class="wb-muted">Cancelled: change a choice to prepare the stepper again.</div>'

    def _show_cancel(self, tip: str) -> None:
        self.cancel_btn.param.update(visible=self.bg.served and not (self._task is None or self._task.finished),
                                     description=tip)

    def _hide_progress(self) -> None:
        self.progress.visible = False
        self.cancel_btn.visible = False

    def _show_progress(self, generation: int, pct: float, text: str) -> None:
        if generation != self._generation or generation == self._installed:
            return  # a newer rebuild reports its own progress; a finished one has nothing left to report
        self._progress_to(pct, text)

    def _progress_to(self, pct: float, text: str) -> None:
        value = max(0, min(100, int(pct)))
        if self.progress.visible and value < self.progress.value:
            return  # a report that arrives late must not move the bar back
        self.progress.param.update(value=value, visible=True)
        self.position.object = (f'<div class="wb-kv"><span class="wb-tag wb-tag-active">working</span> '
                                f"{esc(text)}</div>")

    def _prepare(self, target: int, report: Any) -> tuple[Any, str, BaseException | None]:
        """(stepper, label, error): the heavy part, safe to run off the document thread.

        ``report(percent, text)`` hears the phases: stream 0–10 %, rules 10–20 %, the time-bound
        pre-check up to the step to show 20–60 %, then the events replayed up to ``target`` 60–100 %,
        counted. The pre-check (a bounded replay in a child process) runs in the background from
        the first event on: a step is shown as soon as it is checked, not after the whole stream
        (78 s before on a 100,000-entry session; docs/large-sessions.md).
        """
        try:
            report(0, "Loading the stream")
            stream, label, session = self._load_stream()
            n = len(stream.events)
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

            judge = self.judge.make_judge()
            config = self.state.replay_config(stream, session, judge=judge)
            self._config_note = config_note(self.state.agent_of(session),
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
            return stepper, label, None
        except Exception as exc:  # reported on the document thread by _install
            _stop_precheck(locals().get("stepper"))
            return None, "", exc

    def _install(self, generation: int, keep_step: bool, stepper: Any, label: str, error: BaseException | None) -> None:
        if generation != self._generation:
            _stop_precheck(stepper)
            return  # a newer rebuild superseded this one
        self._installed = generation
        for pane in (self.buffers, self.rules):
            pane.loading = False
        self._hide_progress()
        with reporting("Stepper"):
            if error is not None:
                # the reason where the stepper would be (a bad stream= or rules= link says which and why)
                self.position.object = (f'<div class="wb-muted wb-stepper-error">The stepper could not be built: '
                                        f"{esc(describe(error))}</div>")
                for pane in (self.buffers, self.rules, self.events, self.rendered, self.keep, self.discard):
                    pane.object = ""
                notify(f"Stepper: {describe(error)}", "error")
                return
            self.stepper = stepper
            self._label = label
            self._marks, self._marked = {}, 0
            self.marks.object = ""
            n = len(stepper)
            if self.state.goal == "step":
                keep_step, self.state.goal = True, ""  # one shot: open_step asked for this step
            step = min(self.state.step, max(n - 1, 0)) if keep_step else 0
            if keep_step and step != self.state.step:
                notify(f"Stepper: step {self.state.step:,} is past the end of this stream; showing step {step:,}",
                       "warning", 4000)
            # bounds and value in one update: a slider left at the old stream's value must not move
            # the new stream there
            self.slider.param.update(start=0, end=max(n - 1, 1), value=step, disabled=n <= 1)
            if self.rules_select.value != self.state.rules_dir and self.state.rules_dir in self.rules_select.options.values():
                self.rules_select.value = self.state.rules_dir
            if step != self.state.step:
                self.state.step = step
        self._on_step()
        self.state.replay = stepper
        self.built += 1
        if self.state.goal == "first-trigger" and self.stepper is not None:
            self.state.goal = ""  # one shot: the landing page's first step asks for the trigger
            self.next_trigger()

    # -- moving --------------------------------------------------------------------------------------
    def go(self, index: int) -> None:
        """Show step ``index`` (clamped); steps far beyond those replayed so far are reached on the lane."""
        if self.stepper is None or self._busy() or self._stale():
            return
        st = self.stepper
        n = len(st)
        target = max(0, min(int(index), n - 1)) if n else 0
        done_upto = self._computed()
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
            self._hide_progress()
            if generation == self._generation:
                self._set_step(found)

        self._lane_work(work, "Step", f"Replaying up to step {target:,}", done)

    def _set_step(self, index: int) -> None:
        self.state.step = index
        if self.slider.value != index:
            self.slider.value = index

    def next_trigger(self) -> None:
        """Go to the next step where a rule matched or the session acted.

        The steps ahead may not have been replayed yet (thousands of events on a long stream): the
        search runs on the lane with a progress bar and a Cancel button.
        """
        st = self.stepper
        if st is None:
            return
        running = self._task
        if running is not None and self._busy():
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
            self._hide_progress()
            if generation != self._generation:
                return
            if found is None:
                notify("No further trigger in this stream.", "info", 2500)
                self._set_step(n - 1)
            else:
                self._set_step(found)

        self._lane_work(work, "Next trigger", "Looking for the next trigger", done)

    def _lane_work(self, work: Any, what: str, text: str, done: Any) -> None:
        generation = self._generation

        def progress(d: int, t: int, msg: str) -> None:
            if generation == self._generation:
                self._progress_to(100 * d / max(t, 1), msg)

        def failed(exc: BaseException) -> None:
            self._hide_progress()
            notify(f"{what}: {exc}", "error")

        self._progress_to(0, text)
        self._task = self.bg.submit(work, what=what, lane=_LANE, done=done, progress=progress, failed=failed)
        self._show_cancel(f"Stop: {text.lower()}")

    def _busy(self) -> bool:
        return self._task is not None and not self._task.finished and not self._task.cancelled

    def _computed(self) -> int:
        # how many steps the stepper has replayed so far (its snapshot list only grows)
        return len(self.stepper._snapshots) if self.stepper is not None else 0
