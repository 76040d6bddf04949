"""A lazily derived stream (``derive_stream(..., lazy=True)``) against the full derivation.

Property tests over generated sessions: the same events at the same indices, under every chunking
policy, and the same stepper answers at every step, whatever order the steps are asked in.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from workbench.errors import WorkbenchError
from workbench.replay import ReplayConfig, Stepper, derive_stream
from workbench.replay.derive import LazyEvents
from workbench.rules import Rule
from workbench.sessions import parse_session_text
from workbench.sessions.synthetic import generate_session_text

WORDS = ["the", "parser", "result.unwrap()", "console.log(x)", "TODO", "wörld", "  ", "\n", "x" * 30, "12345", "é"]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def random_session(seed: int) -> str:
    """A session with every shape the derivation treats apart: text, thinking and tool-call blocks,
    tool results (list or string content), user and developer messages, earlier TTSR injections,
    labels and side branches, non-message entries."""
    rng = random.Random(seed)
    recs: list[dict] = [{"type": "session", "version": 3, "id": f"s{seed}", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/proj"}]
    prev: str | None = None
    ids: list[str] = []
    for i in range(rng.randint(0, 60)):
        eid = f"e{i}"
        parent = prev if not ids or rng.random() > 0.1 else rng.choice(ids)  # a side branch now and then
        kind = rng.random()
        rec: dict = {"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-01-01T00:00:{i % 60:02d}Z"}
        if kind < 0.35:
            content = []
            for _ in range(rng.randint(0, 3)):
                block = rng.random()
                if block < 0.4:
                    content.append({"type": "text", "text": _text(rng, rng.randint(0, 40))})
                elif block < 0.6:
                    content.append({"type": "thinking", "thinking": _text(rng, rng.randint(0, 20))})
                else:
                    content.append({"type": "toolCall", "id": f"c{i}", "name": rng.choice(["edit", "write", "read"]),
                                    "arguments": {"path": f"src/m{i}.{rng.choice(['ts', 'rs', 'py'])}",
                                                  "new_string": _text(rng, rng.randint(0, 30))}})
            rec["message"] = {"role": "assistant", "content": content, "stopReason": rng.choice(["stop", "toolUse"]),
                              "model": rng.choice(["m1", "m2"]), "timestamp": i}
        elif kind < 0.55:
            body = _text(rng, rng.randint(0, 30))
            rec["message"] = {"role": "toolResult", "toolCallId": f"c{i - 1}", "toolName": "edit",
                              "content": [{"type": "text", "text": body}] if rng.random() < 0.8 else body,
                              "isError": rng.random() < 0.2, "timestamp": i}
        elif kind < 0.75:
            rec["message"] = {"role": rng.choice(["user", "developer"]), "timestamp": i,
                              "content": _text(rng, 8) if rng.random() < 0.5 else [{"type": "text", "text": _text(rng, 5)}]}
        elif kind < 0.82:
            rec = {"type": "custom_message", "id": eid, "parentId": parent, "customType": "ttsr-injection",
                   "content": "reminder", "display": False, "timestamp": rec["timestamp"]}
        elif kind < 0.9:
            rec = {"type": "label", "id": eid, "parentId": parent, "targetId": ids[0] if ids else eid, "label": "l",
                   "timestamp": rec["timestamp"]}
        else:
            rec = {"type": "model_change", "id": eid, "parentId": parent, "provider": "p", "modelId": "m",
                   "timestamp": rec["timestamp"]}
        recs.append(rec)
        ids.append(eid)
        if parent == prev:
            prev = eid
    return "".join(json.dumps(r) + "\n" for r in recs)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize(("policy", "size"), [("words", None), ("fixed", 7), ("tokens", 2)])
def test_lazy_events_equal_the_full_derivation(seed, policy, size):
    session = parse_session_text(random_session(seed))
    for all_branches in (False, True):
        full = derive_stream(session, policy=policy, size=size, all_branches=all_branches)
        lazy = derive_stream(session, policy=policy, size=size, all_branches=all_branches, lazy=True)
        assert isinstance(lazy.events, LazyEvents)
        assert lazy.header == full.header
        assert len(lazy.events) == len(full.events)
        rng = random.Random(seed)
        order = list(range(len(full.events)))
        rng.shuffle(order)  # random access builds messages out of order: each index still answers the same
        assert [lazy.events[i] for i in order] == [full.events[i] for i in order]
        assert tuple(lazy.events) == full.events
        assert lazy.events.turn_starts() == [i for i, e in enumerate(full.events) if e.type == "turn_start"]
        if full.events:
            assert lazy.events[-1] == full.events[-1]
            cut = rng.randrange(len(full.events))
            assert list(lazy.events[:cut]) == list(full.events[:cut])
            assert list(lazy.events[cut:][::2]) == list(full.events[cut:][::2])


def test_only_the_messages_looked_at_are_built():
    session = parse_session_text(generate_session_text(5000))
    lazy = derive_stream(session, lazy=True)
    assert lazy.events.builds == 0
    _ = lazy.events[len(lazy.events) // 2]
    assert lazy.events.builds == 1
    _ = lazy.events[len(lazy.events) // 2]  # kept: not built again
    assert lazy.events.builds == 1


def test_a_bounded_number_of_built_messages_is_kept():
    session = parse_session_text(generate_session_text(3000))
    lazy = derive_stream(session, lazy=True)
    events = lazy.events
    assert isinstance(events, LazyEvents)
    events.keep = 10
    for i in range(len(events)):
        events[i]
    assert len(events._built) <= 10
    assert events.builds > 10


def test_out_of_range_and_errors_as_the_full_derivation():
    session = parse_session_text(random_session(3))
    lazy = derive_stream(session, lazy=True)
    with pytest.raises(IndexError):
        lazy.events[len(lazy.events)]
    head = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z"}\n'
    for message in ({"role": "assistant", "content": [{"type": "text", "text": "hi"}], "timestamp": True},
                    {"role": "toolResult", "toolCallId": "c", "content": ["not a block"]},
                    {"role": "user", "content": [{"text": "no type"}]}):
        line = json.dumps({"type": "message", "id": "a", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
                           "message": message})
        bad_session = parse_session_text(head + line + "\n")
        with pytest.raises(WorkbenchError) as full_error:
            derive_stream(bad_session)
        with pytest.raises(WorkbenchError) as lazy_error:
            derive_stream(bad_session, lazy=True)  # raised while counting, not on a later step
        assert str(lazy_error.value) == str(full_error.value)


RULES = [
    Rule("no-unwrap", "/proj/.omp/rules/no-unwrap.md", "No unwrap.", condition=[r"\.unwrap\("]),
    Rule("no-console", "/proj/.omp/rules/no-console.md", "No console.", condition=[r"console\.log"],
         scope=["tool:edit(*.ts)"], interrupt_mode="never"),
    Rule("todo", "/proj/.omp/rules/todo.md", "No TODO.", condition=[r"\bTODO\b"]),
    Rule("slow", "/proj/.omp/rules/slow.md", "Slow.", condition=[r"(a+)+b"]),  # not provably linear: pre-checked
]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("settings", [{"repeatMode": "after-gap", "repeatGap": 2}, {"contextMode": "keep"}])
def test_stepper_answers_equal_on_lazy_and_full_streams(seed, settings):
    session = parse_session_text(random_session(seed))
    full = derive_stream(session)
    lazy = derive_stream(session, lazy=True)
    config = ReplayConfig.of(settings, cwd="/proj", time_bound=5.0)
    a = Stepper(full, RULES, config)
    b = Stepper(lazy, RULES, config, background=True)  # as the app builds it: the pre-check in the background
    assert len(a) == len(b)
    steps = list(range(len(a)))
    random.Random(seed).shuffle(steps)
    for i in steps:
        assert b.seek(i).to_json() == a.seek(i).to_json()
    assert b.result() == a.result()
    if b.precheck is not None:
        b.precheck.wait(30)


def test_a_large_sample_steps_the_same(tmp_path: Path):
    text = generate_session_text(700, tool_result_bytes=2000)
    session = parse_session_text(text)
    config = ReplayConfig.of({}, cwd="/proj")
    a = Stepper(derive_stream(session), RULES[:3], config)
    b = Stepper(derive_stream(session, lazy=True), RULES[:3], config)
    for i in range(0, len(a), 37):
        assert b.seek(i).to_json() == a.seek(i).to_json()
