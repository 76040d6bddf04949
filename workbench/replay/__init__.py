"""Recorded streams, the simulated agent session and the stepper.

- ``Stream`` / ``StreamEvent`` (frozen) / ``StreamHeader``: the JSONL stream format
  (docs/stream-format.md); ``read_stream(path)``, ``write_stream(stream, path)``, ``parse_stream(lines)``,
  ``parse_event(mapping)``, ``make_stream(events)`` and ``event(type, **fields)`` to build one in memory.
- ``derive_stream(session, *, policy="words"|"fixed"|"tokens", size=None, all_branches=False)``: a
  stream from a recorded session (each assistant message re-chunked into deltas); ``chunk_text``.
- ``SimulatedSession``: the agent session (docs/architecture.md) driven by stream events through a ``TtsrManager``
  (abort / retry / reminders / deferred prose / persistence into a copy of the session).
  ``run_session(source, rules, config) -> ReplayResult`` runs a whole stream.
- ``ReplayConfig`` (settings, cwd, home, templates, resume, edit mode, judge, time bound) and
  ``ReplaySource`` (stream, session, label): what every replay entry point below is given.
- ``Stepper(source, rules, config)``: one immutable ``Snapshot``
  per stream event; ``seek(i)``, ``next_trigger(i)``, ``prev_trigger(i)``, ``len(stepper)``.
- ``ReplayEvent``: an event the simulated session emitted (``ttsr_triggered``, ``abort``, ``retry``,
  ``reminder``, ``injection``, ``time_bound``); ``ReplayResult``: a finished run (``to_json()`` is the
  CLI's JSON).
- ``Snapshot`` / ``BufferView`` / ``RuleState``: what the stepper shows for one event.
- ``Message`` / ``Conversation``: the conversation the model sees, as a persistent list; ``text_of(message)``.
- ``SessionCopy``: the in-memory copy of a session the replay persists into (``write(path)``).
- ``record_firings(stream, rules, config)`` / ``Firing`` / ``FiringRecorder``: where each
  rule fired, per turn, while a simulated session runs (shared by rule examples and the backtest).
- ``guard(...)`` / ``TimeBound`` / ``find_slow_rules``: the time bound that disables a catastrophic
  rule (the work runs in a forked child the parent can kill); only rules that are not provably
  linear are watched (``may_hang``). ``PreCheck``: the guard in a background thread
  (``Stepper(background=True)`` exposes it as ``stepper.precheck``: ``verified``, ``state``,
  ``cancel()``, ``wait()``). ``Bounded``, ``wait_all`` and ``culprits`` are its parts the backtest
  drives batch by batch.
- ``open_stream(path, ...)``: a stream file as is, any other file derived from a session.
- ``stream_point(events, index)`` / ``step_at_point(events, point)``: a step as a point every chunking
  of the same session shares, and the first step of another chunking at that point (the Stepper keeps
  its place when the chunking changes).
- ``judge/``: judged rules (the judges, the judge queue of a finished message, the tallies of the
  backtest, rule examples); the names below and ``AskJudge`` … ``judge_from_option`` come from there.
- ``completed_outputs(message, *, cwd, edit_mode)`` -> ``JudgedOutput`` rows: a finished assistant
  message cut into the outputs judged rules and ``/omfg`` see (each tool call per file, reply, reasoning).
- ``interrupts(mode, source)``: whether an interrupt mode aborts on a source; ``not_registered(rule)``
  and ``ast_patterns(rule)``: why a rule can never fire, and its AST patterns.
- ``probe_kit``: the replay's own pieces the backtest's probe (``workbench.backtest.probe``) builds on
  (deriving only what it feeds, a call's arguments as streamed and as checked, what a rule can see),
  one module rather than names here.
- ``templates`` arguments accept ``None`` (defaults), an ``(interrupt, reminder)`` pair or a mapping
  with ``interrupt`` / ``reminder`` keys (texts, or ``Path`` objects read with the engine's loader).
"""

from __future__ import annotations

from workbench.replay import probe_kit
from workbench.replay.config import ReplayConfig, ReplaySource
from workbench.replay.conversation import Conversation, Message, text_of
from workbench.replay.derive import (
    CHUNK_POLICIES,
    ChunkPolicy,
    chunk_text,
    derive_stream,
    open_stream,
    step_at_point,
    stream_point,
)
from workbench.replay.events import (
    NO_CONTINUATION,
    ReplayEvent,
    ReplayResult,
    StepStatus,
)
from workbench.replay.firings import (
    Firing,
    FiringRecorder,
    ast_patterns,
    not_registered,
    record_firings,
    snippet,
)
from workbench.replay.judge.judges import (
    API_KEY_ENV,
    AskJudge,
    FixedJudge,
    HttpJudge,
    Judge,
    JudgeQuestion,
    JudgeRequest,
    ScriptJudge,
    judge_from_option,
)
from workbench.replay.judge.queue import JudgedOutput, completed_outputs
from workbench.replay.judge.rule_examples import example_judge, judged_outcome
from workbench.replay.judge.tally import JudgedBacktest, SessionJudging, judge_line, summarize, tally_session
from workbench.replay.memo import LastRuleSet
from workbench.replay.persistence import SessionCopy
from workbench.replay.run import run_session
from workbench.replay.session import SimulatedSession
from workbench.replay.snapshot import BufferView, RuleState, Snapshot
from workbench.replay.stepper import Stepper
from workbench.replay.stream import (
    Stream,
    StreamEvent,
    StreamHeader,
    event,
    make_stream,
    parse_event,
    parse_stream,
    read_stream,
    thaw,
    write_stream,
)
from workbench.replay.timebound import (
    Bounded,
    PreCheck,
    TimeBound,
    culprits,
    find_slow_rules,
    guard,
    has_condition,
    may_hang,
    wait_all,
)
from workbench.replay.timeline import Lane, Marker, Timeline, build_timeline
from workbench.replay.triggers import interrupts

__all__ = [
    "API_KEY_ENV",
    "CHUNK_POLICIES",
    "NO_CONTINUATION",
    "AskJudge",
    "Bounded",
    "BufferView",
    "ChunkPolicy",
    "Conversation",
    "Firing",
    "FiringRecorder",
    "FixedJudge",
    "HttpJudge",
    "Judge",
    "JudgeQuestion",
    "JudgeRequest",
    "JudgedBacktest",
    "JudgedOutput",
    "Lane",
    "LastRuleSet",
    "Marker",
    "Message",
    "PreCheck",
    "ReplayConfig",
    "ReplayEvent",
    "ReplayResult",
    "ReplaySource",
    "RuleState",
    "ScriptJudge",
    "SessionCopy",
    "SessionJudging",
    "SimulatedSession",
    "Snapshot",
    "StepStatus",
    "Stepper",
    "Stream",
    "StreamEvent",
    "StreamHeader",
    "TimeBound",
    "Timeline",
    "ast_patterns",
    "build_timeline",
    "chunk_text",
    "completed_outputs",
    "culprits",
    "derive_stream",
    "event",
    "example_judge",
    "find_slow_rules",
    "guard",
    "has_condition",
    "interrupts",
    "judge_from_option",
    "judge_line",
    "judged_outcome",
    "make_stream",
    "may_hang",
    "not_registered",
    "open_stream",
    "parse_event",
    "parse_stream",
    "probe_kit",
    "read_stream",
    "record_firings",
    "run_session",
    "snippet",
    "summarize",
    "tally_session",
    "text_of",
    "thaw",
    "wait_all",
    "write_stream",
    "step_at_point",
    "stream_point",
]
