"""The probe-mode turn skip changes no backtest answer (generated corpora, with and without it)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.backtest.generated import ChainedSession
from tests.replay.conftest import ev, stream_of
from workbench.backtest import BacktestOptions, backtest_session, prefilter
from workbench.replay.derive import derive_stream
from workbench.replay.stream import parse_event, write_stream
from workbench.rules import Rule

SNIPPETS = ["let v = res.unwrap();", 'console.log("debug", value);', "const u = (req as any).user;",
            "print('loaded')", "p = os.path.join(root, name)", "This uses the Deprecated API for now.",
            'password = "hunter2"', "// TODO fix later", "TODO(ann) ok", 'say "hi"\nthen', "tab\there",
            "\u00e9t\u00e9 \U0001F600 emoji", "C:\\path\\n", "x = {\"path\": 1}", "just skip the tests"]
WORDS = "the config loader reads values from the environment and falls back to defaults any time".split()


def _rule(name: str, **kw) -> Rule:
    return Rule(name=name, path=f"/r/{name}.md", content=f"Rule {name}.", **kw)


RULES = [
    _rule("no-unwrap", condition=(r"\.unwrap\(\)",), scope=("text", "tool:edit(*.rs)", "tool:write(*.rs)")),
    _rule("console", condition=(r"console\.(log|debug)\(",), scope=("tool:edit(src/**/*.ts)",), interrupt_mode="never"),
    _rule("as-any", ast_condition=("$EXPR as any",), scope=("tool:edit(*.ts)", "tool:write(*.ts)")),
    _rule("print", condition=(r"^\s*print\(",), globs=("scripts/**/*.py",)),
    _rule("os-path", condition=(r"os\.path\.join",), scope=("tool(*.py)",)),
    _rule("deprecated", condition=(r"(?i)\bdeprecated api\b",), scope=("text",)),
    _rule("secrets", condition=(r"(?i)password\s*=\s*[\"'][^\"']+[\"']",)),
    _rule("shortcut", condition=("just skip the tests",), scope=("thinking",)),
    _rule("todo", condition=(r"\bTODO(?!\()",), scope=("tool",), interrupt_mode="tool-only"),
    _rule("raw-json", condition=(r"\"path\": \"scripts",)),  # only the raw argument text has it
    _rule("escaped-newline", condition=(r"\\n",)),  # a backslash and n: raw JSON of a newline
    _rule("quote", condition=(r"say \"hi\"",)),
    _rule("emoji", condition=("\U0001F600",)),
    # The compact JSON of the final check of a tool without a digest (``custom``) has it.
    _rule("compact", condition=(r"\"path\":\"scripts",)),
    _rule("globbed-prose", condition=("falls back",), globs=("src/**",)),  # globs: tool calls only
    _rule("thinking-only", condition=("defaults any",), scope=("thinking",)),
    _rule("dup", condition=("loader reads",), scope=("text",)),  # the manager keeps the first "dup"
    _rule("dup", condition=(r"\.unwrap",), scope=("tool",)),
]


def _prose(rng: random.Random, n: int) -> str:
    out = " ".join(rng.choice(WORDS) for _ in range(n))
    if rng.random() < 0.25:
        out += " " + rng.choice(SNIPPETS)
    return out


def _session(index: int, rng: random.Random) -> str:
    session = ChainedSession(f"s{index}", index, cwd="/proj")
    add = session.add

    add({"role": "user", "content": [{"type": "text", "text": _prose(rng, 5)}]})
    for turn in range(rng.randint(1, 5)):
        blocks: list[dict] = []
        if rng.random() < 0.4:
            blocks.append({"type": "thinking", "thinking": _prose(rng, 8)})
        blocks.append({"type": "text", "text": _prose(rng, rng.randint(3, 20))})
        for k in range(rng.choice([0, 1, 1, 2])):
            ext = rng.choice(("ts", "rs", "py"))
            folder = {"ts": "src/api", "rs": "crates/core/src", "py": "scripts"}[ext]
            path = f"{folder}/m{rng.randint(0, 3)}.{ext}"
            body = "\n".join(_prose(rng, 4) for _ in range(rng.randint(1, 3)))
            pick = rng.random()
            if pick < 0.4:
                args, name = {"path": path, "old_string": "x", "new_string": body}, "edit"
            elif pick < 0.8:
                args, name = {"path": path, "content": body}, "write"
            else:  # a tool without a matcher digest: its buffer holds the raw JSON
                args, name = {"path": path, "cmd": body, "n": rng.choice([1, 2.5, None, True])}, "custom"
            blocks.append({"type": "toolCall", "id": f"c{index}_{turn}_{k}", "name": name, "arguments": args})
        calls = [b for b in blocks if b["type"] == "toolCall"]
        add({"role": "assistant", "content": blocks, "stopReason": "toolUse" if calls else "stop"})
        session.answer(calls)
    return session.text()


def _odd_stream(rng: random.Random) -> list:
    """A recorded stream with shapes the model does not cover (bare tool deltas, missing ids)."""
    events = [ev("turn_start"), ev("message_start", role="assistant")]
    text = _prose(rng, 6)
    events += [ev("text_delta", contentIndex=0, delta=text[i:i + 5]) for i in range(0, len(text), 5)]
    raw = json.dumps({"path": "src/a.ts", "new_string": _prose(rng, 5)})
    if rng.random() < 0.5:
        events.append(ev("toolcall_start", contentIndex=1, id=rng.choice(["", "t1"]), name="edit"))
    events += [ev("toolcall_delta", contentIndex=1, delta=raw[i:i + 7]) for i in range(0, len(raw), 7)]
    events += [ev("message_end", stopReason="stop"), ev("turn_end")]
    return events


def backtest_outcomes(paths: list[str], rules: list[Rule], skip: bool, monkeypatch: pytest.MonkeyPatch,
                      options: BacktestOptions | None = None) -> list:
    """Each session's backtest outcome with the prefilter's skip on or off (the differential tests' two sides)."""
    monkeypatch.setattr(prefilter, "_SKIP", skip)
    return [backtest_session(p, rules, options or BacktestOptions(time_bound=None)) for p in paths]


@pytest.mark.parametrize("seed", range(3))
def test_skip_gives_the_same_outcomes_on_generated_sessions(tmp_path: Path, seed: int,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    paths = []
    for i in range(60):
        path = tmp_path / f"s{i}.jsonl"
        path.write_text(_session(i, rng), encoding="utf-8")
        paths.append(str(path))
    for i, (role, field, value) in enumerate([("assistant", "timestamp", True), ("toolResult", "content", [1]),
                                              ("user", "content", [{"text": "no type"}]),
                                              ("assistant", "timestamp", {"a": 1})]):
        # Sessions derive_stream rejects: the quiet-session shortcut must not hide their error.
        lines = _session(100 + i, rng).splitlines()
        records = [json.loads(line) for line in lines]
        target = next((r for r in records if r.get("message", {}).get("role") == role), None)
        if target is None:
            continue
        target["message"][field] = value
        path = tmp_path / f"bad{i}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
        paths.append(str(path))
    for i in range(10):
        path = tmp_path / f"odd{i}.stream.jsonl"
        write_stream(stream_of(_odd_stream(rng), _odd_stream(rng)), path)
        paths.append(str(path))
    hits = []
    fired: set[str] = set()
    for rules in (RULES, RULES[:3], [r for r in RULES if r.name in ("deprecated", "shortcut", "quote")],
                  RULES[-5:]):
        with_skip = backtest_outcomes(paths, rules, True, monkeypatch)
        without = backtest_outcomes(paths, rules, False, monkeypatch)
        assert with_skip == without
        hits.append(sum(len(o.hits) for o in with_skip))
        fired |= {h.rule for o in with_skip for h in o.hits}
    # Small fixed chunks: literals often end exactly where a delta does.
    for policy, size in (("fixed", 3), ("tokens", 1)):
        options = BacktestOptions(time_bound=None, policy=policy, size=size)
        assert backtest_outcomes(paths, RULES, True, monkeypatch, options) == backtest_outcomes(paths, RULES, False, monkeypatch, options)
    assert hits[0] > 20 and all(hits), hits  # the corpus does fire, so equality says something
    assert {"compact", "globbed-prose", "dup", "as-any", "secrets"} <= fired, fired
    assert any(o.error for o in with_skip)  # and the broken sessions are reported as broken


def test_skip_actually_mutes_turns(tmp_path: Path) -> None:
    rng = random.Random(9)
    path = tmp_path / "s.jsonl"
    path.write_text(_session(1, rng), encoding="utf-8")
    stream = derive_stream(str(path))
    mute = prefilter.muted_events(stream, prefilter.turn_filter(RULES[:1]))
    assert mute is not None and any(mute)
    assert all(not m or e.type.endswith("_delta") for m, e in zip(mute, stream.events))
    assert prefilter.turn_filter([_rule("any", condition=("a*",))]) is None  # no literal: no skipping
    assert prefilter.turn_filter([_rule("nl", condition=("a\\nb",))]) is None  # a newline literal


def test_derived_events_are_what_parse_event_builds(tmp_path: Path) -> None:
    rng = random.Random(3)
    path = tmp_path / "s.jsonl"
    path.write_text(_session(2, rng), encoding="utf-8")
    for e in derive_stream(str(path)).events:
        again = parse_event(e.to_json())
        assert again == e and type(again.arguments) is type(e.arguments) and again.extra == e.extra
