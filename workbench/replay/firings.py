"""Where a rule fired: one ``Firing`` per rule and turn, recorded while a simulated session runs.

Rule examples (``workbench.rulecheck``) and the backtest (``workbench.backtest``) both play a stream
through a ``workbench.replay.SimulatedSession`` with ``record_firings`` — so it reaches the engine
exactly as the stepper presents it — and listen on its ``on_check`` hook. ``FiringRecorder`` turns
those checks into firings with the offset of the first match in the buffer that fired and a short
snippet around it. ``not_registered`` and ``ast_patterns`` are shared with ``workbench.rulecheck.scan``.
The AST matcher reports no position, so AST firings locate their node with ``ast_spans`` (the
snapshot it ran on is the buffer the regex check just wrote under the same key).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from workbench.replay.config import ReplayConfig
from workbench.replay.engine import MatchContext, TtsrManager, ast_spans, language_for
from workbench.replay.session import SimulatedSession
from workbench.replay.stream import Stream
from workbench.rules import Rule

Via = Literal["regex", "ast", "judge"]  # judge: a judged rule delivered (rule examples)
SNIPPET_CONTEXT = 40
SNIPPET_LIMIT = 160


@dataclass(frozen=True, slots=True)
class Firing:
    """The first time ``rule`` fired in one turn of a stream.

    ``turn`` is the 0-based turn index (``-1`` for events before any ``turn_start``), ``step`` the
    index of the stream event; ``offset``/``end`` the first match in the buffer under
    ``stream_key`` (``None`` when it cannot be located); ``fired_at`` that buffer's length when the
    rule fired (how much of it had streamed).
    """

    rule: str
    turn: int
    step: int
    source: str
    tool_name: str | None
    stream_key: str
    file_paths: tuple[str, ...] | None
    via: Via
    offset: int | None
    end: int | None
    fired_at: int
    snippet: str

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule, "turn": self.turn, "step": self.step, "source": self.source,
            "tool_name": self.tool_name, "stream_key": self.stream_key,
            "file_paths": list(self.file_paths) if self.file_paths is not None else None,
            "via": self.via, "offset": self.offset, "end": self.end, "fired_at": self.fired_at,
            "snippet": self.snippet,
        }


def snippet(text: str, start: int | None, end: int | None, *, context: int = SNIPPET_CONTEXT) -> str:
    """The match with ``context`` characters either side, on one line (``⏎`` for line breaks)."""
    if start is None:
        piece = text[: context * 2]
        cut_left, cut_right = False, len(text) > len(piece)
    else:
        stop = end if end is not None and end >= start else start
        left = max(0, start - context)
        right = min(len(text), stop + context)
        piece = text[left:right]
        cut_left, cut_right = left > 0, right < len(text)
    flat = piece.replace("\r\n", "⏎").replace("\n", "⏎").replace("\r", "⏎").replace("\t", " ")
    if len(flat) > SNIPPET_LIMIT:
        flat, cut_right = flat[:SNIPPET_LIMIT], True
    return ("…" if cut_left else "") + flat + ("…" if cut_right else "")


def ast_patterns(rule: Rule) -> tuple[str, ...]:
    """The rule's non-blank ``astCondition`` patterns (a single string counts as one)."""
    raw = rule.ast_condition or ()
    return tuple(p.strip() for p in ([raw] if isinstance(raw, str) else raw) if isinstance(p, str) and p.strip())


def not_registered(rule: Rule, manager: TtsrManager | None = None) -> str | None:
    """Why ``rule`` can never fire (``None`` when the manager registers it). The rule is added to
    ``manager`` when one is given (registration does not depend on interrupt or repeat settings)."""
    if not rule.condition and not rule.ast_condition and getattr(rule, "question", None) is None:
        return "no condition or astCondition (not a TTSR rule)"
    manager = manager if manager is not None else TtsrManager(None)
    if manager.add_rule(rule):
        return None
    return manager.rejections.get(rule.name, "rejected by the TTSR manager")


class FiringRecorder:
    """An ``on_check`` hook for a ``SimulatedSession``: the first firing of each rule in each turn.

    Call ``observe(index, event)`` before feeding each event, so that firings carry the step and
    the turn. ``last_checks`` keeps the last context checked per stream key (for explanations).
    """

    def __init__(self, manager: TtsrManager) -> None:
        self.manager = manager
        self.firings: list[Firing] = []
        self.turn = -1
        self.step = -1
        self.last_checks: dict[str, MatchContext] = {}
        self.ast_checked = False
        self._seen: set[tuple[str, int]] = set()

    def observe(self, index: int, ev: Any) -> None:
        self.step = index
        if ev.type == "turn_start":
            self.turn += 1

    def __call__(self, ctx: MatchContext, method: str, matches: list[Any]) -> None:
        key = self.manager.buffer_key(ctx)
        self.last_checks[key] = ctx
        via: Via = "ast" if method == "check_ast_snapshot" else "regex"
        if via == "ast":
            self.ast_checked = True
        for rule in matches:
            name = rule.name
            if (name, self.turn) in self._seen:
                continue
            self._seen.add((name, self.turn))
            self.firings.append(self._firing(name, ctx, key, via))

    def _firing(self, name: str, ctx: MatchContext, key: str, via: Via) -> Firing:
        text = self.manager.get_buffer(key) or ""
        start: int | None = None
        end: int | None = None
        if via == "regex":
            spans = self.manager.match_spans(name, key)
            if spans:
                start, end = spans[0]
        else:
            lang = language_for(ctx.file_paths)
            rule = next((r for r in self.manager.get_rules() if r.name == name), None)
            spans3 = ast_spans(ast_patterns(rule), text, lang) if lang and rule is not None else []
            if spans3:
                start, end = spans3[0][0], spans3[0][1]
        return Firing(
            rule=name, turn=self.turn, step=self.step, source=ctx.source, tool_name=ctx.tool_name,
            stream_key=key, file_paths=tuple(ctx.file_paths) if ctx.file_paths is not None else None,
            via=via, offset=start, end=end, fired_at=len(text), snippet=snippet(text, start, end),
        )


def record_firings(stream: Stream, rules: Sequence[Rule], config: ReplayConfig | None = None, *,
                   tick: Callable[[], None] | None = None) -> tuple[SimulatedSession, FiringRecorder]:
    """Play ``stream`` through a simulated session holding ``rules``; the recorder holds the firings.

    ``tick()`` runs after every event: a time bound then measures a stall per event, not per session.
    ``config.judge`` answers judged rules (``workbench.replay.judge.judges``); their verdicts are in
    ``sim.judge_rounds``. No time bound here: the caller bounds the whole run.
    """
    sim = SimulatedSession(rules, config, stream=stream)
    recorder = FiringRecorder(sim.manager)
    sim.on_check = recorder
    for i, ev in enumerate(stream.events):
        recorder.observe(i, ev)
        sim.feed(i, ev)
        if tick is not None:
            tick()
    return sim, recorder
