r"""Probe-mode backtests of session files: which turns, groups and rules can fire, found before replay.

In probe mode (see ``workbench.backtest.prefilter``) what fires in a turn depends only on that turn and
the rules do not interact (nothing aborts, no injection silences a rule; ``tests/backtest`` drops a
rule's hits to get a replay without it). A regex condition matches only text holding one of its
required literals, an AST pattern only code holding its longest identifier, and a rule matches only
where its scope reaches (text, thinking, tool calls; a rule with globs never in text or thinking,
which carry no file paths). So, working on the session's messages rather than on the derived stream:

* a session none of whose turns holds a literal where its rule can match is not derived at all
  (only its turns are counted);
* otherwise the replay holds only the rules that can fire somewhere (every rule of such a name, so
  the manager keeps the same first registration of a duplicated name), and each turn feeds only
  its groups (its text deltas, its thinking deltas, each tool call's events) that hold such a
  literal. A group's deltas that end before its first literal occurrence can end are joined into
  the first delta that reaches it: no condition can match before, and every fed step sees the
  buffer it would have seen (``probe_kit.FeedPlan``). A call where only rules without a regex
  condition can fire has all its deltas joined into the last: AST conditions are checked only on
  the finished call (``toolcall_end``), as the agent does. The events not fed are ``probe_kit.PLACEHOLDER``:
  same indices, so firings keep their steps.

Within a fed call, the argument deltas before the first one at which some rule may match are joined
into it as well, found per call by working out its buffers without the manager
(``workbench.backtest.call_skip``); after a firing, again for the rules that have not fired in the
turn.

What a skipped event would have done besides feeding a buffer (the conversation, the message being
built, tool results and reminders, claims, injection records and message counts, which never gate in
probe mode) is not part of a probe's outcome: the firings and the status, which changes only on an
interrupt.

Which turns, groups and rules can fire is decided in ``workbench.backtest.probe_plan``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.backtest import call_skip, prefilter
from workbench.backtest.prefilter import DELTA_TYPES, muted_events, turn_filter
from workbench.backtest.probe_plan import plan_session, warm
from workbench.replay import (
    ReplayConfig,
    SimulatedSession,
    Stream,
    StreamEvent,
    chunk_text,
    derive_stream,
    open_stream,
    probe_kit,
    read_stream,
    thaw,
)
from workbench.rules import Rule
from workbench.sessions import parse_session_bytes

CallDelta = probe_kit.CallDelta

__all__ = ["ProbeStream", "probe_firings", "probe_stream", "warm"]


@dataclass(frozen=True, slots=True)
class ProbeStream:
    """What a probe plays: ``stream`` (``None`` when no turn can fire: nothing to play), its turn
    count, the ``rules`` to hold and, when ``planned``, ``mute``: the events not to feed (``None``:
    every one). An unplanned stream is muted per segment by ``prefilter.muted_events``."""

    stream: Stream | None
    turns: int
    rules: tuple[Rule, ...]
    mute: tuple[bool, ...] | None = None
    planned: bool = False
    visit: tuple[int, ...] | None = None  # planned: the events to look at (the others are not fed)
    # planned: per turn, per fed tool call (content index), the names of the rules that can fire in
    # it (``probe_plan``); the join asks only about those
    calls: tuple[Mapping[int, frozenset[str]] | None, ...] | None = None


def _mute(stream: Stream, plans: Sequence[probe_kit.FeedPlan | None]) -> tuple[tuple[bool, ...], tuple[int, ...]] | None:
    """Per event of the stream ``derive_turns`` gave: True when it is not fed; and the events a
    replay must look at, those fed and every ``turn_start`` (the turns are counted); ``None`` when
    the stream's turns do not line up with the session's assistant messages. Not fed, besides the
    placeholders: every ``turn_end`` (it only counts messages and delivers queued reminders) and the
    ``turn_start`` of a turn with nothing to feed."""
    mute: list[bool] = []
    visit: list[int] = []
    turn = -1
    placeholder = probe_kit.PLACEHOLDER
    for i, e in enumerate(stream.events):
        if e is placeholder:
            mute.append(True)
        elif e.type == "turn_start":
            turn += 1
            if turn >= len(plans):
                return None
            mute.append(plans[turn] is None)
            visit.append(i)
        elif e.type == "turn_end":
            mute.append(True)
        else:
            mute.append(False)
            visit.append(i)
    return (tuple(mute), tuple(visit)) if turn == len(plans) - 1 else None


def _is_stream_file(data: bytes) -> bool:
    """Whether the first non-blank line, read as ``open_stream`` reads it (text mode), is a JSON
    object with ``"type": "stream"``."""
    end = data.find(b"\n")
    head = data if end < 0 else data[:end]
    if b"\r" not in head and head.strip():  # text mode's first line is this one too
        if b"stream" not in head and b"\\" not in head:
            return False  # no way to write the string "stream" in it: no need to parse it
        line = head.decode("utf-8", errors="replace")
    else:
        line = ""
    if not line.strip():
        with io.StringIO(data.decode("utf-8", errors="replace"), newline=None) as fh:
            line = next((x for x in fh if x.strip()), "")
    return probe_kit.says_stream(line)


def probe_stream(path: str, rules: Sequence[Rule], *, policy: str, size: int | None) -> ProbeStream:
    """What a probe of the file at ``path`` plays: a recorded stream file as it is (with every rule),
    a session as above. Raises what ``open_stream`` raises."""
    source = Path(path)
    data = None
    # Judged rules are asked about whole outputs, even with no condition: every turn is played.
    if prefilter._SKIP and not any(r.question for r in rules):
        try:
            data = source.read_bytes()
        except OSError:  # open_stream says why, as without the skip
            data = None
    if data is None:
        stream = open_stream(path, policy=policy, size=size)[0]
        return ProbeStream(stream, stream.turn_count(), tuple(rules))
    if _is_stream_file(data):
        stream = read_stream(source)
        return ProbeStream(stream, stream.turn_count(), tuple(rules))
    session = parse_session_bytes(data, path=str(source))
    chunk_text("", policy, size)  # bad chunking options fail as derive_stream would
    planned = plan_session(session, rules)
    if planned is not None and not planned[1]:  # no rule can fire anywhere: nothing to derive
        return ProbeStream(None, len(planned[0]), ())
    if planned is None:
        stream = derive_stream(session, policy=policy, size=size)
        return ProbeStream(stream, stream.turn_count(), tuple(rules))
    # What cannot fire is left as placeholders: not fed, so not chunked either.
    stream = probe_kit.derive_turns(session, planned[0], policy=policy, size=size, branch=planned[2], texts=planned[4])
    muted = _mute(stream, planned[0])
    if muted is None:  # never expected: the turns are counted as derive_turns counts them
        stream = derive_stream(session, policy=policy, size=size)
        return ProbeStream(stream, stream.turn_count(), tuple(rules))
    return ProbeStream(stream, len(planned[0]), planned[1], muted[0], planned=True, visit=muted[1], calls=planned[3])


def probe_firings(probe: ProbeStream, config: ReplayConfig, *, recorder: Callable[[Any], Any],
                  tick: Callable[[], None] | None = None) -> tuple[str, list[Any]]:
    """``(status, firings)`` of ``record_firings`` in probe mode: ``recorder(manager)`` is the
    ``on_check`` hook (with ``observe(index, event)`` and ``firings``). Events that cannot take part
    in a firing are not fed; when no delta is fed, there is nothing to play: no firing, and the
    session completes (only an interrupt can end it early, and nothing fires)."""
    stream = probe.stream
    if stream is None:
        return "completed", []
    mute: Sequence[bool] | None
    if probe.planned:  # (a planned stream feeds a delta of each group holding a literal: never none)
        mute = probe.mute
    else:
        mute = muted_events(stream, turn_filter(probe.rules)) if prefilter._SKIP else None
        if mute is not None and all(m or ev.type not in DELTA_TYPES for m, ev in zip(mute, stream.events)):
            return "completed", []
    # No ``stream=``: it only tells a retry whether a recorded turn is left, and nothing interrupts.
    sim = SimulatedSession(probe.rules, config)
    hook = recorder(sim.manager)
    sim.on_check = hook
    events = stream.events
    tests = call_skip.call_tests(probe.rules)
    if probe.visit is None or mute is None:  # as ``play``
        _play_visits(sim, events, range(len(events)), mute, hook, tick, tests)
    else:  # as ``play``, over the events not fed only for the turns they start
        _play_visits(sim, events, probe.visit, mute, hook, tick, tests, probe.calls)
    return sim.finish().status, hook.firings


def _play_visits(sim: SimulatedSession, events: Sequence[Any], visit: Sequence[int], mute: Sequence[bool] | None,
                 hook: Any, tick: Callable[[], None] | None, tests: Sequence[call_skip.CallTest],
                 calls: Sequence[Mapping[int, frozenset[str]] | None] | None = None) -> None:
    """Feed the events at ``visit`` (those ``mute`` leaves out only observed). A tool call's argument
    deltas before the first one at which a rule may match are joined into it
    (``workbench.backtest.call_skip``): the same firings, one check instead of many. Only the rules
    that can fire in the call are asked about (``calls``, per turn and content index, from the plan:
    a rule whose scope or globs cannot admit the call, or none of whose literals it holds, matches
    none of its buffers; ``None``: every rule), and a match counts only for a rule the manager's gate
    admits in that check's context. After a firing,
    the rules that fired in the turn are left out of that question: the recorder keeps a rule's first
    firing per turn, and in probe mode a match changes nothing another rule's checks see (nothing
    interrupts, and with ``repeatMode: after-gap`` and gap 0 a claim silences no rule)."""
    settings = sim.settings
    probing = (settings.interrupt_mode == "never" and settings.repeat_mode == "after-gap" and settings.repeat_gap == 0
               and all(r.interrupt_mode == "never" for r in sim.manager.get_rules()))
    k, n = 0, len(visit)
    ids: set[str] = set()  # the call ids started since the manager's buffers were last reset
    reused = _reused_ids(events, visit, mute) if _CALL_SKIP else set()
    turn = -1
    narrowed: dict[frozenset[str], tuple[call_skip.CallTest, ...]] = {}
    lean_end = -1  # a call's end whose regex check can match no rule that has not fired in the turn
    while k < n:
        i = visit[k]
        ev = events[i]
        hook.observe(i, ev)
        if ev.type == "turn_start":
            turn += 1
        muted = mute is not None and mute[i]
        if not muted:
            sim.feed(i, _event(ev), final_regex=i != lean_end)
            if ev.type in ("message_start", "turn_start"):
                ids.clear()  # (``reset_buffer``)
        if tick is not None:
            tick()
        k += 1
        if ev.type != "toolcall_start" or not _CALL_SKIP:
            continue
        fresh = bool(ev.id) and ev.id not in ids  # no earlier call left a buffer under its keys
        ids.add(ev.id or "")
        if muted or not fresh or k - 1 in reused:
            continue
        end = k  # the call's deltas that follow its start, all fed (a recorded stream may interleave calls)
        while end < n and events[visit[end]].type == "toolcall_delta" and events[visit[end]].content_index == ev.content_index \
                and (mute is None or not mute[visit[end]]):
            end += 1
        if end - k < 2:
            continue
        deltas = [events[visit[x]] for x in range(k, end)]
        can_fire = calls[turn] if calls is not None and 0 <= turn < len(calls) else None
        names = can_fire.get(ev.content_index or 0) if can_fire is not None else None
        asked: Sequence[call_skip.CallTest] = tests
        if names is not None:
            kept = narrowed.get(names)
            if kept is None:
                kept = narrowed[names] = tuple(t for t in tests if t.rule in names)
            asked = kept
        shadow = call_skip.CallShadow(asked, ev.id or "", ev.name or "", deltas, sim.cwd, sim.edit_mode,
                                      sim.manager.gated_names)
        # The call's end, fed next with the finished arguments: the session reads those, not the
        # streamed text, so deltas that can match nothing need not be fed at all (below).
        closing = events[visit[end]] if end < n else None
        closes = (closing is not None and closing.type == "toolcall_end" and closing.content_index == ev.content_index
                  and bool(closing.arguments) and not (mute is not None and mute[visit[end]]))
        done = 0  # the call's deltas fed so far
        while done < len(deltas):
            fired = frozenset(f.rule for f in hook.firings if f.turn == hook.turn) if probing else frozenset()
            first = shadow.next_possible(fired)
            if first is None:
                break  # the rest is fed delta by delta
            if tick is not None:
                for _ in range(first - done):
                    tick()
            at = visit[k + first]
            if shadow.quiet and closes and first == len(deltas) - 1:
                # No rule that has not fired in the turn can match at any of these deltas: feeding
                # them would only grow buffers that the call's end replaces or extends to the same
                # text (a check's answer depends on the text alone), and the end carries the arguments.
                done = len(deltas)
                if tick is not None:
                    tick()
                break
            joined = _event(deltas[first]) if first == done else StreamEvent(
                "toolcall_delta", content_index=ev.content_index, delta="".join(d.delta or "" for d in deltas[done:first + 1]))
            hook.observe(at, joined)
            sim.feed(at, joined)
            if tick is not None:
                tick()
            done = first + 1
            if not probing:
                break  # only the first join: a match may change what later checks see
        if probing and shadow.quiet and shadow.settled and done == len(deltas) and closes \
                and thaw(closing.arguments) == shadow.final:  # type: ignore[union-attr]  # ``closes``: not None
            # The end checks what the last delta's buffers held: the same arguments, and a write's or
            # ``replace`` edit's surface does not change when the call is final (``call_skip._stable_text``),
            # so its regex check finds nothing the join has not ruled out; it still holds the buffers
            # (a firing of the AST check reads them) and runs the AST check.
            lean_end = visit[end]
        k += done


def _event(ev: Any) -> StreamEvent:
    """The event a probe's stream holds at an index it feeds (a fed call's deltas are ``CallDelta``)."""
    return ev.event() if type(ev) is CallDelta else ev


def _reused_ids(events: Sequence[Any], visit: Sequence[int], mute: Sequence[bool] | None) -> set[int]:
    """The positions in ``visit`` of the fed ``toolcall_start`` events whose id a later call starts
    with again before the manager's buffers are reset (a fed ``message_start`` / ``turn_start``).
    Such a call is fed delta by delta: the later call extends the buffers left under the shared
    keys (a raw delta is appended to whatever the key holds), and a join leaves other buffers there
    (a recorded stream may reuse an id; ``tests/backtest/test_call_skip.py`` has such streams)."""
    out: set[int] = set()
    later: set[str] = set()
    for k in range(len(visit) - 1, -1, -1):
        ev = events[visit[k]]
        if mute is not None and mute[visit[k]]:
            continue
        if ev.type in ("message_start", "turn_start"):
            later.clear()
        elif ev.type == "toolcall_start" and ev.id:
            if ev.id in later:
                out.add(k)
            later.add(ev.id)
    return out


# Private switch for tests and the benchmark: the probe without the tool-call join (``call_skip``).
_CALL_SKIP = True
