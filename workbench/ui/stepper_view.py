"""Stepper tab: step a stream through the rules and see buffers, rule states, events and both retries.

The view keeps only an index into the ``Stepper``'s snapshots (``AppState.step``). The stepper is the
page's replay model's (``AppState.replay_model``, ``ui/replay_model.py``): it is rebuilt there when the
stream, the rules or the settings change, and building, seeking and "Next trigger" run there on a
background lane; this view draws what the model has and hears its progress (``ReplayListener``).
"""

from __future__ import annotations

import json
import os
from typing import Any

import panel as pn
import param
from panel.viewable import Viewer

from workbench.ui.edit_mode import edit_mode_note, edit_mode_select
from workbench.ui.entry_html import ACTIVE_BUTTON, conversation_html, esc, pre
from workbench.ui.judge_card import JudgeCard, judged_names
from workbench.ui.keys import KeyCatcher
from workbench.ui.notify import describe, reporting
from workbench.ui.replay_model import seek_or_pause
from workbench.ui.state import AppState
from workbench.ui.step_html import buffers_html, rules_html
from workbench.ui.theme import theme_sheets

DERIVED = "(derived from the open session)"
_CONVERSATION_TAIL = 14
_LOG_WINDOW = 14
_MARKS_CSS = """
.wb-marks { position: relative; height: 12px; border-top: 1px solid #d0d7de; }
.wb-mark { position: absolute; top: 0; width: 3px; height: 4px; margin-left: -1px; }
.wb-mark-trigger { background: #d1242f; } .wb-mark-abort { background: #9a6700; } .wb-mark-retry { background: #1f6feb; }
"""
_MARK_KINDS = ("trigger", "abort", "retry")
# fits the select's 220 px (the longer "(no rules folder under the served roots)" was cut off)
NO_RULES = "(no rules folder found)"
AGENT_HELP = ("The agent whose rules apply (a rule's agents: frontmatter): empty takes it from the session, "
              "as workbench replay does (its session_init entry, a subagent's header, else main)")
RULES_HELP = ("The project folder whose rules the replay uses: one with .omp/rules or .xcsh/rules under the served roots. "
              "None found: serve a folder that has one, or add rules on the Rules tab")


def _html(min_height: int = 120, **kw: Any) -> pn.pane.HTML:
    return pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", min_height=min_height, **kw)


def _card(title: str, body: Any, **kw: Any) -> pn.Card:
    return pn.Card(body, title=title, collapsible=False, sizing_mode="stretch_width", margin=(4, 4), **kw)


def marks_seen(done: int, total: int) -> str:
    """How far the marks under the slider reach while the replay is still running (words, not
    "the first 1 steps")."""
    if done >= total:
        return ""
    if done <= 1:
        return " · marks so far: step 0 only (the rest follow as the replay runs)"
    return f" · marks so far: steps 0–{done - 1:,} of {total:,} (the rest follow as the replay runs)"


_GROW = {"flex": "1 1 0"}  # a wrapped panel shares the line's width with the others on it


def _wrap(*objects: Any) -> pn.FlexBox:
    return pn.FlexBox(*objects, flex_wrap="wrap", sizing_mode="stretch_width", margin=0)


class StepperView(Viewer):
    """Stream + rules + settings → a step-by-step replay with time travel."""

    state = param.ClassSelector(class_=AppState)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        s = self.state
        self.replay = s.replay_model  # made (and watching the state) before this view's watchers
        self._events_at: dict[int, tuple[Any, ...]] = {}
        self._play_cb: Any = None
        # a linked stream= or rules= that is not among the choices stays chosen (the build then says
        # why it cannot be used); a select would otherwise switch silently to its first option
        self.stream_select = pn.widgets.Select(label="Stream", options=self._stream_options(), width=280)
        self.stream_select.value = s.stream if s.stream in self.stream_select.options.values() else ""
        self.stream_select.param.watch(lambda e: setattr(s, "stream", e.new or ""), "value")
        self.chunking = pn.widgets.Select.from_param(s.param.chunking, label="Chunking", width=100)
        self.rules_select = pn.widgets.Select(label="Rules from", options=self._rules_options(), width=220,
                                              description=RULES_HELP)
        if s.rules_dir in self.rules_select.options.values():
            self.rules_select.value = s.rules_dir
        self.rules_select.param.watch(lambda e: setattr(s, "rules_dir", e.new or ""), "value")
        # the same light buttons as the tree's filters: the selected one is the filled (pressed) one,
        # under a visible label (a RadioButtonGroup draws none of its own)
        self.context_mode = pn.Column(
            pn.pane.Str("Retry context", styles={"font-size": "12px", "color": "#24292f"}, margin=(4, 10, 0, 10)),
            pn.widgets.RadioButtonGroup.from_param(s.param.context_mode, color="light", width=140, margin=(2, 10, 5, 10),
                                                   css_classes=["wb-context-mode"], stylesheets=[ACTIVE_BUTTON]),
            margin=0)
        self.interrupt_mode = pn.widgets.Select.from_param(s.param.interrupt_mode, label="Interrupt", width=110)
        self.repeat_mode = pn.widgets.Select.from_param(s.param.repeat_mode, label="Repeat", width=100)
        self.repeat_gap = pn.widgets.IntInput.from_param(s.param.repeat_gap, label="Gap", width=70)
        self.edit_mode = edit_mode_select(s)
        self.agent = pn.widgets.TextInput.from_param(s.param.agent, label="Agent", width=110,
                                                     placeholder="from session", description=AGENT_HELP,
                                                     css_classes=["wb-agent-name"])
        self.reset_btn = pn.widgets.Button(label="|◀ Reset", width=90)
        self.back_btn = pn.widgets.Button(label="◀ Back", width=85)
        self.step_btn = pn.widgets.Button(label="Step ▶", width=85, color="primary")
        self.play_btn = pn.widgets.Toggle(label="▶ Play", width=90)
        self.next_btn = pn.widgets.Button(label="Next trigger ▶|", width=130)
        self.reset_btn.on_click(lambda e: self.go(0))
        self.back_btn.on_click(lambda e: self.go(self.state.step - 1))
        self.step_btn.on_click(lambda e: self.go(self.state.step + 1))
        self.next_btn.on_click(lambda e: self.next_trigger())
        self.cancel_btn = pn.widgets.Button(label="Cancel", width=80, visible=False, css_classes=["wb-stepper-cancel"])
        self.cancel_btn.on_click(lambda e: self.cancel())
        self.play_btn.param.watch(self._on_play, "value")
        self.slider = pn.widgets.IntSlider(label="", start=0, end=1, value=0, sizing_mode="stretch_width",
                                           min_width=200, margin=(12, 10))
        self.slider.param.watch(lambda e: self.go(e.new), "value_throttled")
        # marks under the slider: triggers, aborts and retries among the steps replayed so far
        self.marks = pn.pane.HTML("", stylesheets=[*theme_sheets(), _MARKS_CSS], sizing_mode="stretch_width",
                                  css_classes=["wb-slider-marks"], margin=(0, 10), height=16)
        self._marks: dict[int, tuple[str, ...]] = {}
        self._marked = 0

        self.keys = KeyCatcher(["arrowleft", "arrowright", "space", "n", "shift+n", "home"], self._on_key)
        self.position = _html(min_height=20, css_classes=["wb-step-position"], margin=(8, 10))
        # long work shows progress: the phases of a rebuild, then the events replayed up to the step shown
        self.progress = pn.indicators.Progress(value=0, max=100, width=320, visible=False, bar_color="primary",
                                               css_classes=["wb-stepper-progress"], margin=(8, 10))
        self.buffers = _html(css_classes=["wb-buffers"])
        self.rules = _html(css_classes=["wb-rules-table"])
        self.events = _html(css_classes=["wb-events"])
        self.rendered = _html(css_classes=["wb-rendered"])
        self.keep = _html(css_classes=["wb-keep"])
        self.discard = _html(css_classes=["wb-discard"])
        self.judge = JudgeCard(self.replay, on_answer=self._on_step)
        s.param.watch(lambda e: self._on_step(), "step")
        s.param.watch(lambda e: self._refresh_options(), ["catalog_revision"])
        self.replay.listen(self)
        if self.replay.stepper is not None:  # built for another tab (Rules) before this one was shown
            self.replay_installed(s.step)
            self._on_step()
        self.replay.ensure()

    @property
    def stepper(self) -> Any:
        """The replay model's installed ``Stepper`` (``None`` while one is being built)."""
        return self.replay.stepper

    # -- notebook entry point ------------------------------------------------------------------------
    @classmethod
    def from_paths(cls, source: str | os.PathLike[str], rules_dir: str | os.PathLike[str] | None = None,
                   **settings: Any) -> StepperView:
        """A stepper for a notebook cell: ``source`` is a ``*.stream.jsonl`` file or a session file.

        The served roots are the folders of ``source`` and ``rules_dir``; ``settings`` are AppState
        parameters (``context_mode="keep"``, ``chunking="fixed"``, ``step=…``).
        """
        return cls(state=AppState.for_file(source, rules_dir, tab="stepper", **settings))

    # -- choices -------------------------------------------------------------------------------------
    def _stream_options(self) -> dict[str, str]:
        opts = {DERIVED: ""}
        for f in self.state.stream_files():
            shown = self.state.roots.display(f)
            opts[shown] = shown
        if self.state.stream and self.state.stream not in opts.values():
            opts[self.state.stream] = self.state.stream
        return opts

    def _rules_options(self) -> dict[str, str]:
        opts: dict[str, str] = {}
        for d in self.state.rule_dirs():
            shown = self.state.roots.display(d) or "."
            opts[shown] = self.state.roots.display(d)
        if self.state.rules_dir and self.state.rules_dir not in opts.values():
            opts[self.state.rules_dir] = self.state.rules_dir
        return opts or {NO_RULES: ""}

    def _refresh_options(self) -> None:
        self.stream_select.options = self._stream_options()
        self.rules_select.options = self._rules_options()

    # -- moving: the model's, on its lane -----------------------------------------------------------
    def go(self, index: int) -> None:
        """Show step ``index`` (clamped); steps far beyond those replayed so far are reached on the lane."""
        self.replay.go(index)

    def next_trigger(self) -> None:
        """Go to the next step where a rule matched or the session acted (on the lane, with progress)."""
        self.replay.next_trigger()

    def previous_trigger(self) -> None:
        self.replay.previous_trigger()

    def cancel(self) -> None:
        """Stop the running preparation or "Next trigger" search (the Cancel button)."""
        self.replay.cancel()

    # -- what the model reports (ReplayListener) -----------------------------------------------------
    def replay_rebuilding(self) -> None:
        self._stop_play()
        self._events_at = {}
        for pane in (self.buffers, self.rules):
            pane.loading = self.replay.served

    def replay_progress(self, pct: float, text: str) -> None:
        value = max(0, min(100, int(pct)))
        if self.progress.visible and value < self.progress.value:
            return  # a report that arrives late must not move the bar back
        self.progress.param.update(value=value, visible=True)
        self.position.object = (f'<div class="wb-kv"><span class="wb-tag wb-tag-active">working</span> '
                                f"{esc(text)}</div>")

    def replay_working(self, tip: str) -> None:
        self.cancel_btn.param.update(visible=self.replay.working(), description=tip)

    def replay_idle(self) -> None:
        self.progress.visible = False
        self.cancel_btn.visible = False
        for pane in (self.buffers, self.rules):
            pane.loading = False

    def replay_failed(self, error: BaseException) -> None:
        # the reason where the stepper would be (a bad stream= or rules= link says which and why)
        self.position.object = (f'<div class="wb-muted wb-stepper-error">The stepper could not be built: '
                                f"{esc(describe(error))}</div>")
        for pane in (self.buffers, self.rules, self.events, self.rendered, self.keep, self.discard):
            pane.object = ""

    def replay_installed(self, step: int) -> None:
        n = len(self.replay.stepper)
        self._marks, self._marked = {}, 0
        self.marks.object = ""
        # bounds and value in one update: a slider left at the old stream's value must not move
        # the new stream there
        self.slider.param.update(start=0, end=max(n - 1, 1), value=step, disabled=n <= 1)
        if self.rules_select.value != self.state.rules_dir and self.state.rules_dir in self.rules_select.options.values():
            self.rules_select.value = self.state.rules_dir

    def replay_show(self) -> None:
        self._on_step()

    def replay_moved(self, index: int) -> None:
        if self.slider.value != index:
            self.slider.value = index

    def replay_cancelled(self) -> None:
        if self.stepper is not None:
            self._on_step()
        else:
            self.position.object = '<div class="wb-muted">Cancelled: change a choice to prepare the stepper again.</div>'

    # -- keys and play -------------------------------------------------------------------------------

    def _on_key(self, key: str) -> None:
        with reporting("Stepper key"):
            if key == "arrowleft":
                self.go(self.state.step - 1)
            elif key == "arrowright":
                self.go(self.state.step + 1)
            elif key == "space":
                self.play_btn.value = not self.play_btn.value
            elif key == "n":
                self.next_trigger()
            elif key == "shift+n":
                self.previous_trigger()
            elif key == "home":
                self.go(0)

    def _on_play(self, event: Any) -> None:
        if event.new:
            self.play_btn.label = "⏸ Pause"
            if self._play_cb is None:
                self._play_cb = pn.state.add_periodic_callback(self._tick, period=120)
        else:
            self._stop_play()

    def _stop_play(self) -> None:
        if self._play_cb is not None:
            self._play_cb.stop()
            self._play_cb = None
        if self.play_btn.value:
            self.play_btn.value = False
        self.play_btn.label = "▶ Play"

    def _tick(self) -> None:
        if self.stepper is None or self.state.step >= len(self.stepper) - 1:
            self._stop_play()
            return
        self.go(self.state.step + 1)
        if self.stepper.seek(self.state.step).is_trigger:
            self._stop_play()  # pause on a trigger so it can be read

    # -- rendering -----------------------------------------------------------------------------------
    def _on_step(self) -> None:
        if self.replay.stale():
            return  # the rebuild shows the step (clamped to the new stream's length)
        with reporting("Step"):
            self._render()

    def _render(self) -> None:
        st = self.stepper
        if st is None or not len(st):
            msg = ('<div class="wb-muted">Nothing to step: the stream has no events (a session with no entries, '
                   "or an empty stream file).</div>" if st is not None else
                   '<div class="wb-muted">Nothing to step: choose a stream or open a session.</div>')
            for pane in (self.buffers, self.rules, self.events, self.rendered, self.keep, self.discard):
                pane.object = msg if pane is self.buffers else ""
            self.position.object = ""
            return
        snap, i = seek_or_pause(st, min(self.state.step, len(st) - 1))
        if i != self.state.step:
            self.state.step = i  # the judge waits here: the replay goes no further until answered
        self._update_marks()
        if self.slider.value != i:
            self.slider.value = i
        ev = snap.event
        trig = '<span class="wb-tag wb-tag-trigger">TRIGGER</span>' if snap.is_trigger else ""
        self.position.object = (
            f'<div class="wb-kv">step <b>{i}</b> / {len(st) - 1} · event <b>{esc(ev.type)}</b> · '
            f"status <b>{esc(snap.session_status)}</b> · messages {esc(snap.message_count)} {trig}"
            f"{edit_mode_note(snap.edit_mode)}"
            f'<br>stream: {esc(self.replay.label)} · keys: ←/→ step, Space play/pause, N next trigger, '
            f'Shift+N previous</div>{self.replay.config_note}'
        )
        self.buffers.object = buffers_html(snap)
        self.rules.object = rules_html(snap, judged_names(st), self._rejected_rules())
        self.judge.show(st, snap)
        self.events.object = self._events_html(i)
        self.rendered.object = "".join(
            f'<div class="wb-kv">{esc(kind)}</div>{pre(text)}' for kind, text in snap.rendered
        ) or '<div class="wb-muted">(no template rendered at this step)</div>'
        mode = self.state.context_mode
        self.keep.object = self._conversation(snap.retry_keep.messages(), "keep", mode)
        self.discard.object = self._conversation(snap.retry_discard.messages(), "discard", mode)

    def _update_marks(self) -> None:
        """Mark the steps replayed since the last call; redraw the strip when any was added."""
        st = self.stepper
        done = self.replay.computed()
        if st is None or done <= self._marked:
            return
        for j in range(self._marked, done):
            snap = st.seek(j)
            types = {e.type for e in snap.events}
            kinds = tuple(k for k, on in (("trigger", snap.is_trigger), ("abort", "abort" in types),
                                          ("retry", "retry" in types)) if on)
            if kinds:
                self._marks[j] = kinds
        self._marked = done
        n = max(len(st) - 1, 1)
        # one row per kind (trigger on top, then abort, then retry): a step can be all three
        ticks = "".join(f'<span class="wb-mark wb-mark-{k}" style="left:{100 * j / n:.3f}%;top:{4 * _MARK_KINDS.index(k)}px" '
                        f'title="step {j}: {k}"></span>'
                        for j, ks in sorted(self._marks.items())[:400] for k in ks)
        counts = {k: sum(1 for ks in self._marks.values() if k in ks) for k in _MARK_KINDS}
        seen = marks_seen(done, len(st))
        self.marks.object = (f'<div class="wb-marks">{ticks}</div><div class="wb-muted" style="font-size:11px">'
                             f'{counts["trigger"]} trigger(s) · {counts["abort"]} abort(s) · {counts["retry"]} retry(ies)'
                             f"{seen}</div>")

    def _events_at_step(self, j: int) -> tuple[Any, ...]:
        if j not in self._events_at:
            self._events_at[j] = tuple(self.stepper.seek(j).events)
        return self._events_at[j]

    def _rejected_rules(self) -> dict[str, str]:
        """The rules folder's files that discovery turned away (e.g. an empty body), by name."""
        rule_set = self.state.current_rule_set()
        if rule_set is None:
            return {}
        return {item.rule.name: item.invalid for item in rule_set.loaded().items if item.invalid}

    def _events_html(self, i: int) -> str:
        st = self.stepper
        lines = []
        for j in range(max(0, i - _LOG_WINDOW), i + 1):
            ev = st.seek(j).event
            delta = ev.delta if ev.delta is not None else (ev.name or ev.tool_name or ev.stop_reason or ev.role or "")
            cur = " wb-ev-current" if j == i else ""
            lines.append(f'<div class="wb-ev{cur}">{j:>5} {esc(ev.type)} {esc(json.dumps(delta, ensure_ascii=False)[:80]) if delta != "" else ""}</div>')
            for rev in self._events_at_step(j):
                what = ",".join(rev.rules) or rev.reason or ""
                extra = f" {rev.reason}" if rev.reason and rev.rules else ""
                lines.append(f'<div class="wb-ev wb-ev-trigger">{j:>5} ▸ {esc(rev.type)} {esc(what)}{esc(extra)}</div>')
        return "".join(lines)

    def _conversation(self, messages: list[Any], which: str, mode: str) -> str:
        chosen = ('<span class="wb-tag wb-tag-active">selected context mode</span>' if which == mode else "")
        head = f'<div class="wb-kv">retry under <b>{which}</b> {chosen} · {len(messages)} message(s)</div>'
        more = ""
        if len(messages) > _CONVERSATION_TAIL:
            more = f'<div class="wb-muted">… {len(messages) - _CONVERSATION_TAIL} earlier message(s)</div>'
            messages = messages[-_CONVERSATION_TAIL:]
        return head + more + conversation_html(messages)

    def __panel__(self) -> pn.viewable.Viewable:
        # rows that wrap: in a notebook's width (~970 px) the settings, the controls and the panels
        # move to the next line instead of pushing "why now" and the Discard panel off to the side
        choose = _wrap(self.stream_select, self.chunking, self.rules_select, self.context_mode, self.interrupt_mode,
                       self.repeat_mode, self.repeat_gap, self.edit_mode, self.agent, self.judge.select)
        controls = _wrap(self.reset_btn, self.back_btn, self.step_btn, self.play_btn, self.next_btn, self.cancel_btn,
                         pn.Column(self.slider, self.marks, sizing_mode="stretch_width", margin=0, min_width=320,
                                   styles=_GROW),
                         self.keys)
        top = _wrap(_card("Buffers", self.buffers, height=230, scroll=True, min_width=360, styles=_GROW),
                    _card("Rules", self.rules, height=230, scroll=True, min_width=560, styles=_GROW))
        bottom = _wrap(_card("Events", self.events, height=330, scroll=True, min_width=280, styles=_GROW),
                       _card("Keep", self.keep, height=330, scroll=True, min_width=300, styles=_GROW),
                       _card("Discard", self.discard, height=330, scroll=True, min_width=300, styles=_GROW))
        return pn.Column(choose, controls, pn.Row(self.position, self.progress, sizing_mode="stretch_width"), top,
                         _card("Judge (judged rules)", self.judge, scroll=True, max_height=360), bottom,
                         _card("Rendered templates", self.rendered, scroll=True, max_height=260),
                         sizing_mode="stretch_width")
