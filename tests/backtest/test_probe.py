"""The probe's decisions before replay (``workbench.backtest.probe``) against the plain path.

Whole backtests with and without the skip are compared in ``test_prefilter.py``; here each piece
the skip relies on is compared with what it stands for: the turns and rules it leaves out with a
full replay, the placeholders with the derived stream, the cheap tests with the engine's own.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import fields, replace
from pathlib import Path

import pytest

from tests.backtest.test_prefilter import RULES, _rule, _session
from workbench.backtest import BacktestOptions, backtest_batch, backtest_session, prefilter, probe, probe_plan
from workbench.backtest import run as backtest_run
from workbench.replay import Firing, ReplayConfig, SimulatedSession, StreamEvent, may_hang, record_firings
from workbench.replay.derive import (
    PLACEHOLDER,
    CallDelta,
    FeedPlan,
    chunk_count,
    chunk_text,
    derive_stream,
    derive_turns,
    open_stream,
)
from workbench.replay.engine import literal_index, rule_sources
from workbench.sessions import load_session
from workbench.ttsr import MatchContext, TtsrManager, TtsrSettings

PROBE = TtsrSettings.of(interrupt_mode="never", repeat_mode="after-gap", repeat_gap=0)
SOURCES = {"text": 0, "thinking": 1, "tool": 2}


def _corpus(tmp_path: Path, seed: int, n: int = 60) -> list[str]:
    rng = random.Random(seed)
    paths = []
    for i in range(n):
        path = tmp_path / f"s{seed}-{i}.jsonl"
        path.write_text(_session(i, rng), encoding="utf-8")
        paths.append(str(path))
    return paths


def _played(rules):
    return [replace(r, interrupt_mode="never") for r in rules]


@pytest.mark.parametrize("seed", range(2))
def test_turns_and_rules_left_out_never_fire_in_a_full_replay(tmp_path: Path, seed: int) -> None:
    rules = _played(RULES)
    quiet_turns = dropped = quiet_sessions = in_calls = 0
    for path in _corpus(tmp_path, seed):
        session = load_session(path)
        planned = probe_plan.plan_session(session, rules)
        assert planned is not None
        # per turn, whether its (text, thinking, tool) deltas can take part in a firing
        groups = [(False, False, False) if p is None else (p.text is not None, p.thinking is not None, bool(p.calls))
                  for p in planned[0]]
        kept = planned[1]
        stream = derive_stream(session, size=3)
        _, recorder = record_firings(stream, rules, ReplayConfig.of(PROBE, cwd=stream.cwd or "/"))
        names = {r.name for r in kept}
        # per turn, each tool call's content index by id: a call's firing names a rule the plan says
        # can fire in that very call (the join asks only about those)
        indices = [{b.get("id"): i for i, b in enumerate(e.message.get("content") or ()) if b.get("type") == "toolCall"}
                   for e in planned[2] if e.type == "message" and e.message and e.message.get("role") == "assistant"]
        for firing in recorder.firings:
            assert firing.rule in names
            assert groups[firing.turn][SOURCES[firing.source]], (path, firing)
            if firing.source == "tool":
                call = indices[firing.turn][firing.stream_key.split("#")[0].removeprefix("toolcall:")]
                assert firing.rule in planned[3][firing.turn][call], (path, firing)
                in_calls += 1
        quiet_turns += sum(not any(g) for g in groups)
        dropped += len({r.name for r in rules} - names)
        quiet_sessions += not kept
    assert quiet_turns and dropped and quiet_sessions and in_calls  # the skip does leave things out


def _random_plan(message: dict, rng: random.Random) -> FeedPlan | None:
    if rng.random() < 0.3:
        return None
    calls = {i: rng.choice([None, 0, rng.randint(0, 80)]) for i, b in enumerate(message.get("content") or ())
             if b.get("type") == "toolCall" and rng.random() < 0.8}
    return FeedPlan(rng.choice([None, 0, rng.randint(0, 200)]), rng.choice([None, 0, rng.randint(0, 60)]), calls)


@pytest.mark.parametrize("seed", range(3))
def test_derive_turns_keeps_every_index_and_what_each_fed_step_sees(tmp_path: Path, seed: int) -> None:
    """Same events at the same indices where fed; placeholders elsewhere; and at every fed delta
    the group's text so far is what the full stream has there (joined deltas lose nothing)."""
    rng = random.Random(seed)
    for path in _corpus(tmp_path, 10 + seed, 20):
        session = load_session(path)
        messages = [e.message for e in session.entries if e.type == "message" and e.message.get("role") == "assistant"]
        for policy, size in (("words", 8), ("fixed", 5), ("tokens", 2)):
            full = derive_stream(session, policy=policy, size=size)
            plans = [_random_plan(m, rng) for m in messages]
            part = derive_turns(session, plans, policy=policy, size=size)
            assert len(part.events) == len(full.events) and part.header == full.header
            turn = -1
            so_far: dict[tuple, str] = {}  # (group) -> the full stream's text so far
            for a, b in zip(full.events, part.events):
                if a.type == "turn_start":
                    turn += 1
                    so_far = {}
                plan = plans[turn] if turn >= 0 else None
                if a.type in ("turn_start", "turn_end"):
                    assert b == a
                    continue
                if plan is None or a.type in ("tool_result", "user_message", "message_end"):
                    assert b is PLACEHOLDER
                    continue
                if a.type == "message_start":
                    assert b == a
                    continue
                group = ("call", a.content_index) if a.type.startswith("toolcall") else (a.type,)
                start = (plan.calls.get(a.content_index) if group[0] == "call"
                         else plan.text if a.type == "text_delta" else plan.thinking)
                if a.type in ("toolcall_start", "toolcall_end"):
                    assert (b == a) if start is not None else (b is PLACEHOLDER)
                    continue
                so_far[group] = so_far.get(group, "") + a.delta
                fed = so_far.setdefault(("fed",) + group, "")
                if start is None or len(so_far[group]) < start:
                    assert b is PLACEHOLDER
                    continue
                assert b.type == a.type and b.content_index == a.content_index
                if a.type == "toolcall_delta":  # a fed call's deltas stand for their events
                    assert isinstance(b, CallDelta) and b.event() == StreamEvent(a.type, content_index=a.content_index,
                                                                                 delta=b.delta)
                    if b.delta == a.delta:
                        assert b.event() == a
                so_far[("fed",) + group] = fed + b.delta
                assert so_far[("fed",) + group] == so_far[group]  # the buffer holds what it would


@pytest.mark.parametrize("seed", range(2))
def test_argument_texts_from_the_plan_derive_the_same_turns(tmp_path: Path, seed: int) -> None:
    """``derive_turns`` with the plan's argument texts gives the stream it gives without them; a
    text is taken only for the very arguments it was made of (an id alone may be reused)."""
    rng = random.Random(seed)
    rules = _played(RULES)
    used = 0

    def events(stream):  # type: ignore[no-untyped-def]
        return [e.event() if isinstance(e, CallDelta) else e for e in stream.events]

    for path in _corpus(tmp_path, 20 + seed, 20):
        session = load_session(path)
        messages = [e.message for e in session.entries if e.type == "message" and e.message.get("role") == "assistant"]
        planned = probe_plan.plan_session(session, rules)
        plans = [_random_plan(m, rng) for m in messages]
        for policy, size in (("words", 8), ("fixed", 5)):
            plain = events(derive_turns(session, plans, policy=policy, size=size))
            if planned is not None:
                used += len(planned[4])
                assert events(derive_turns(session, plans, policy=policy, size=size, texts=planned[4])) == plain
            # the same ids, other objects: never taken
            wrong = {id(b["arguments"]): (dict(b["arguments"]), '{"x": "not these"}') for m in messages
                     for b in m.get("content") or () if b.get("type") == "toolCall" and isinstance(b.get("arguments"), dict)}
            assert events(derive_turns(session, plans, policy=policy, size=size, texts=wrong)) == plain
    assert used

def test_the_session_is_fed_stream_events_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe's stream holds a fed call's deltas as ``CallDelta``; what the session is fed (one by
    one, or the first of a join) is the ``StreamEvent`` each stands for."""
    fed: list[object] = []
    feed = SimulatedSession.feed

    def spy(self, index, ev, **kw):  # type: ignore[no-untyped-def]
        fed.append(ev)
        return feed(self, index, ev, **kw)

    monkeypatch.setattr(SimulatedSession, "feed", spy)
    for path in _corpus(tmp_path, 7, 30):
        backtest_session(path, RULES, BacktestOptions(time_bound=None, size=8))
    assert any(e.type == "toolcall_delta" for e in fed)  # type: ignore[attr-defined]
    assert all(type(e) is StreamEvent for e in fed)


def test_chunk_count_is_the_number_of_chunks() -> None:
    rng = random.Random(5)
    spaces = [chr(c) for c in range(0x3100) if chr(c).isspace()]
    alphabet = spaces + list("ab_9.,;é😀\u00a0x") + ["word", "  ", "_\u200b"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        for policy in ("words", "fixed", "tokens"):
            size = rng.randint(1, 9)
            assert chunk_count(text, policy, size) == len(chunk_text(text, policy, size)), (text, policy, size)


def test_presence_is_the_literal_index_search() -> None:
    rng = random.Random(7)
    letters = list("abkKsSiI_ .(") + ["\u017f", "\u212a", "\u0130", "\u01e2", "\u027e", "é", "\uf000"]
    for _ in range(400):
        keys = frozenset(("".join(rng.choice(letters) for _ in range(rng.randint(1, 3))), rng.random() < 0.5)
                         for _ in range(rng.randint(1, 4)))
        keys = frozenset(k for k in keys if not k[1] or k[0].isascii())  # as required_literals gives them
        if not keys:
            continue
        fast, index = probe_plan._Presence(keys), literal_index(keys)
        for _ in range(30):
            pool = letters if rng.random() < 0.5 else letters[:12]
            text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
            assert fast.found_in(text) == index.found_in(text), (keys, text)


@pytest.mark.parametrize("scope", [None, (), ("text",), ("thinking",), ("tool",), ("toolcall",), ("TEXT", "bad token!"),
                                   ("tool:edit(*.ts)",), ("text", "thinking"), ("",), ("edit",), ("text(*.ts)",)])
@pytest.mark.parametrize("globs", [None, (), ("*.ts",), (" ",)])
def test_rule_sources_are_where_the_manager_matches(scope, globs) -> None:
    rule = _rule("r", condition=("xyz",), scope=scope, globs=globs)
    text, thinking, tool = rule_sources(rule)

    def fires(ctx: MatchContext) -> bool:
        manager = TtsrManager(PROBE)
        manager.add_rule(rule)
        return bool(manager.check_snapshot("a xyz b", ctx))

    assert fires(MatchContext("text")) == text
    assert fires(MatchContext("thinking")) == thinking
    tool_fires = any(fires(MatchContext("tool", tool_name=name, file_paths=paths))
                     for name in ("edit", "text", "bash") for paths in (None, ["src/a.ts"], ["b.py"]))
    assert tool_fires == tool


def test_the_first_line_is_read_as_open_stream_reads_it(tmp_path: Path) -> None:
    header = json.dumps({"type": "stream", "version": 1})
    cases = [header + "\n", "\n \n" + header + "\r\n", '{"type": "session"}\r' + header, "\ufeff" + header,
             "\t\r\n" + header, "", "not json\n" + header, '{"type": "stream"', "\u2028" + header,
             '{"type": "\\u0073tream"}', '{"type": "session", "note": "stream"}', '{"type": 1}\n' + header,
             '{"type": "str\\u0065am"}\r\n', "[1]"]
    for i, text in enumerate(cases):
        path = tmp_path / f"c{i}.jsonl"
        path.write_bytes(text.encode("utf-8") + b"\xff\n")
        with path.open(encoding="utf-8", errors="replace") as fh:
            first = next((line for line in fh if line.strip()), "")
        try:
            expected = json.loads(first).get("type") == "stream"
        except (ValueError, AttributeError):
            expected = False
        assert probe._is_stream_file(path.read_bytes()) == expected, text


@pytest.mark.parametrize("in_child", [True, False])
def test_bounded_batches_equal_unbounded_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_child: bool) -> None:
    """With the time bound, small files are probed and played in the child; bigger ones are probed
    here, and those only linear rules can fire in are played here too, the others in the child; a
    chunk at a time either way: the same outcomes, heard in input order."""
    paths = _corpus(tmp_path, 3, 40)
    paths.insert(5, str(tmp_path / "missing.jsonl"))
    monkeypatch.setattr(backtest_run, "_PROBE_CHUNK", 7)
    monkeypatch.setattr(backtest_run, "_PROBE_IN_CHILD_BYTES", 1 << 30 if in_child else -1)
    hanging = {r.name for r in RULES if may_hang(r)}
    assert hanging and hanging != {r.name for r in RULES}
    kinds = set()
    for path in paths:
        if Path(path).exists():
            played = probe.probe_stream(path, _played(RULES), policy="words", size=8)
            kinds.add(any(r.name in hanging for r in played.rules))
    assert kinds == {True, False}  # both ways are taken
    probed_here: list[str] = []
    real_probe = backtest_run._probe
    monkeypatch.setattr(backtest_run, "_probe", lambda path, *a: probed_here.append(path) or real_probe(path, *a))
    heard: list[str] = []
    bounded = backtest_batch(paths, RULES, BacktestOptions(time_bound=30.0), on_outcome=lambda o: heard.append(o.session))
    assert probed_here == ([] if in_child else paths)  # (what the child probes is not heard of here)
    plain = [backtest_session(p, RULES, BacktestOptions(time_bound=None)) for p in paths]
    assert bounded == plain and heard == paths
    assert sum(len(o.hits) for o in plain) > 20 and plain[5].error


def test_the_rule_set_memo_is_made_before_the_bound_forks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probes' memo of the rule set is made in the calling process, before the bounded child is
    forked: the child, which probes and plays the small files, inherits it and never makes it."""
    paths = _corpus(tmp_path, 3, 12)
    made = tmp_path / "made-by"
    real = probe_plan._literals

    def counting(rules):  # (written to a file: the child's calls are seen too)
        with made.open("a") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(rules)

    monkeypatch.setattr(probe_plan, "_literals", counting)
    monkeypatch.setattr(probe_plan._rule_literals, "_last", None)  # (an earlier test's memo of these rules)
    probed_here: list[str] = []
    real_probe = backtest_run._probe
    monkeypatch.setattr(backtest_run, "_probe", lambda path, *a: probed_here.append(path) or real_probe(path, *a))
    bounded = backtest_batch(paths, RULES, BacktestOptions(time_bound=30.0))
    assert not probed_here  # every file was probed in the child
    assert made.read_text().split() == [str(os.getpid())]
    assert bounded == [backtest_session(p, RULES, BacktestOptions(time_bound=None)) for p in paths]


def test_recorded_streams_and_judged_rules_are_played_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _corpus(tmp_path, 4, 1)[0]
    judged = [_rule("j", question="Is it done?", condition=("never there",))]
    got = probe.probe_stream(path, judged, policy="words", size=8)
    assert got.stream is not None and not got.planned and got.rules == tuple(judged)
    monkeypatch.setattr(prefilter, "_SKIP", False)
    assert probe.probe_stream(path, _played(RULES), policy="words", size=8).stream == open_stream(path, size=8)[0]


def test_rule_sets_taking_turns_each_get_their_own_answers(tmp_path: Path) -> None:
    """The per-rule-set caches (played copies, literals) never serve another rule set."""
    paths = _corpus(tmp_path, 5, 12)
    sets = [RULES, RULES[:3], RULES[3:9], [replace(r, scope=("thinking",)) for r in RULES]]
    options = BacktestOptions(time_bound=None)
    alone = [[backtest_session(p, rules, options) for p in paths] for rules in sets]
    mixed: list[list] = [[] for _ in sets]
    for p in paths:
        for i, rules in enumerate(sets):
            mixed[i].append(backtest_session(p, list(rules), options))  # a new list, the same rules
    assert mixed == alone and len({sum(len(o.hits) for o in a) for a in alone}) == len(sets)


def test_a_call_only_ast_patterns_can_fire_in_is_fed_as_one_delta(tmp_path: Path) -> None:
    """The agent checks ast-grep conditions only on the finished call (toolcall_end), so a call where
    only AST-only rules can fire has its argument deltas joined into the last one; a regex rule that
    can fire there keeps them apart from its first literal on. The firings equal a full replay's."""
    body = "const id = (req as any).user;\n" + "const n = 1;\n" * 40
    records = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/proj"},
               {"type": "message", "id": "u", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "go"}], "timestamp": 1767225600001}},
               {"type": "message", "id": "a", "parentId": "u", "timestamp": "2026-01-01T00:00:02Z",
                "message": {"role": "assistant", "stopReason": "toolUse", "timestamp": 1767225600002, "content": [
                    {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "src/a.ts", "content": body}}]}}]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    session = load_session(str(path))
    ast_only = _rule("as-any", ast_condition=("$EXPR as any",), scope=("tool:write(*.ts)",))
    regex = _rule("any", condition=(r"as any",), scope=("tool:write(*.ts)",))
    for rules, joined in (([ast_only], True), ([ast_only, regex], False)):
        rules = _played(rules)
        planned = probe_plan.plan_session(session, rules)
        assert planned is not None
        plan = planned[0][0]
        assert plan is not None and 0 in plan.calls
        fed = [e for e in derive_turns(session, planned[0], size=3).events if e is not PLACEHOLDER]
        deltas = [e for e in fed if e.type == "toolcall_delta"]
        assert (len(deltas) == 1) is joined, len(deltas)
        stream = derive_stream(session, size=3)
        _, full = record_firings(stream, rules, ReplayConfig.of(PROBE, cwd="/proj"))
        assert full.firings and {f.rule for f in full.firings} == {r.name for r in rules}
        outcome = backtest_session(str(path), rules, BacktestOptions(time_bound=None, size=3))
        keys = [f.name for f in fields(Firing)]
        assert sorted(tuple(getattr(h, k) for k in keys) for h in outcome.hits) == sorted(
            tuple(getattr(f, k) for k in keys) for f in full.firings)
        end = next(i for i, e in enumerate(stream.events) if e.type == "toolcall_end")
        assert [h.step for h in outcome.hits if h.rule == "as-any"] == [end]  # at the finished call


# Conditions with several requirements (``required_literal_sets``): the plan leaves out a call that
# holds one but not another; with a lookahead, a backreference, an escaped quote and a comma (sets
# the plan does not use), a second condition or an AST pattern beside it (then no narrowing).
CONJUNCTIONS = [r"\bnew\s+(Set|Map)\b", r"foo.*(bar|baz)", r"(?=[\s\S]*Map)new", r"x(a)\1y", r"new \"Set\"",
                r"new,\s*Set", r"(?i)NEW\s+set", r"return\s+\w+\s*;\s*\}", r"const\s+\w+\s*=>"]


@pytest.mark.parametrize("seed", range(4))
def test_a_call_missing_one_of_a_conditions_requirements_is_left_out(tmp_path: Path, seed: int,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.backtest.test_call_skip import _session as call_session
    from tests.backtest.test_prefilter import backtest_outcomes

    rng = random.Random(700 + seed)
    rules = []
    for k in range(rng.randint(2, 5)):
        kw: dict = {"condition": tuple(rng.sample(CONJUNCTIONS, rng.choice([1, 1, 1, 2])))}
        if rng.random() < 0.2:
            kw["ast_condition"] = ("$A.set($B)",)
        kw["scope"] = rng.choice([("tool",), ("tool:edit",), ("tool:write(*.ts)",), ("tool", "text")])
        rules.append(_rule(f"c{k}", **kw))
    rules.append(_rule("set-map", condition=(r"\bnew\s+(Set|Map)\b",), scope=("tool",)))
    paths = []
    for i in range(60):
        path = tmp_path / f"c{i}.jsonl"
        path.write_text(call_session(i, rng), encoding="utf-8")
        paths.append(str(path))
    def fed_calls() -> int:
        played = _played(rules)  # new copies: the plan's literals are found again for them
        planned = [probe_plan.plan_session(load_session(p), played) for p in paths]
        return sum(len(plan.calls) for found in planned if found is not None for plan in found[0] if plan is not None)

    narrowed = fed_calls()
    with monkeypatch.context() as m:
        m.setattr(probe_plan, "_also", lambda cond: ())
        assert narrowed < fed_calls()  # other requirements did leave calls out
    options = BacktestOptions(time_bound=None, size=rng.choice([1, 3, 8]))
    skipped = backtest_outcomes(paths, rules, True, monkeypatch, options)
    full = backtest_outcomes(paths, rules, False, monkeypatch, options)
    assert skipped == full
    assert sum(len(o.hits) for o in full) > 0


def test_other_requirements_leave_calls_out() -> None:
    # ``new`` alone (a pi edit's ``newText`` key holds it) no longer feeds a call to `ts-set-map`.
    rule = _rule("set-map", condition=(r"\bnew\s+(Set|Map)\b",), scope=("tool:edit(*.ts)",))
    records = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/proj"},
               {"type": "message", "id": "a", "parentId": None, "timestamp": "2026-01-01T00:00:02Z",
                "message": {"role": "assistant", "stopReason": "toolUse", "timestamp": 1767225600002, "content": [
                    {"type": "toolCall", "id": "c1", "name": "edit",
                     "arguments": {"path": "src/a.ts", "oldText": "a", "newText": "const x = 1;"}},
                    {"type": "toolCall", "id": "c2", "name": "edit",
                     "arguments": {"path": "src/a.ts", "oldText": "a", "newText": "const s = new Set();"}}]}}]
    from workbench.sessions import parse_session_text

    session = parse_session_text("\n".join(json.dumps(r) for r in records) + "\n")
    planned = probe_plan.plan_session(session, _played([rule]))
    assert planned is not None and planned[0][0] is not None
    assert set(planned[0][0].calls) == {1}  # only the call holding `Set`
