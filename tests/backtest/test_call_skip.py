"""The probe's tool-call join (``workbench.backtest.call_skip``) against the delta-by-delta feed.

Differential: the same backtest outcomes (hits with turn, step, offsets, snippet; status) with the
join and without it (and without any probe skip at all), on the sample sessions, the real-session
fixtures with the bundled rules, and generated sessions with random rules, many of them not
monotone (``$``, ``\\b``, lookaheads), matches that appear and disappear as a call streams, and
several chunkings. Properties: what the join relies on (monotone patterns stay matched when text is
appended; the partial parse of a prefix of a call's arguments only grows its string members).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.backtest.generated import ChainedSession
from tests.backtest.test_prefilter import backtest_outcomes
from tests.backtest.test_prefilter_differential import REAL, ROOT, SAMPLES, _truncated
from workbench.backtest import BacktestOptions, call_skip, probe
from workbench.replay import SimulatedSession
from workbench.replay.probe_kit import tool_surface
from workbench.rules import Rule, resolve_rules
from workbench.ttsr import PartialJsonParser, compile_rule_condition, engine_text


def _outcomes(paths: list[str], rules: list[Rule], join: bool, monkeypatch: pytest.MonkeyPatch,
              options: BacktestOptions | None = None, skip: bool = True) -> list:
    monkeypatch.setattr(probe, "_CALL_SKIP", join)
    return backtest_outcomes(paths, rules, skip, monkeypatch, options)


def _rule(name: str, **kw) -> Rule:
    return Rule(name=name, path=f"/r/{name}.md", content=f"Rule {name}.", **kw)


# Patterns whose answer can flip as text is appended (``foo$``, ``\bbar\b``, lookaheads), monotone
# ones, patterns that span lines or match the empty text, with and without flags.
PATTERNS = [r"foo$", r"(?m)foo$", r"\bbar\b", r"x(?!y)", r"(?=.*q)z", r"\bnew\s+(Set|Map)\b", r"ba\B", r"foo",
            r"new Promise\(", r"a\s*=\s*1", r"(?m)^\s*print\(", r"\{\s*return [^;{}\n]+;?\s*\}", r"(?i)TODO(?!\()",
            r"end\n\s*$", r"q*", r"[\s\S]{40}", r"(a)\1b", r"(?<=x)y", r"(?<!x)y\b", r"\d{3}(?=\D)", r"$",
            # top-level alternations (split by the join), one half not monotone
            r"foo$|\{\s*return", r"(?m)\bbar\b|x\s*=>\s*[^{\n]+$", r"[|$]|\bSet\b", r"(a|b)\b|q(?!y)"]
WORDS = ["foo", "bar", "barn", "x", "xy", "z", "q", "new", "Set", "Settings", "Map", "Mapping", "Promise(",
         "a", "=", "1", "print(", "{", "return", "v;", "}", "TODO", "TODO(", "end\n", "\n", " ", "ba", "bad",
         "123", "12a", "y", "aab", "const", "=>", "|", "$", "x =>"]
SCOPES = [None, ("tool",), ("tool:write",), ("tool:edit",), ("tool:write(*.ts)",), ("tool:edit(src/**)",),
          ("text", "tool:bash"), ("thinking",)]


def _random_rules(rng: random.Random, n: int) -> list[Rule]:
    rules = []
    for k in range(n):
        conds = tuple(rng.sample(PATTERNS, rng.choice([1, 1, 2])))
        kw: dict = {"condition": conds}
        scope = rng.choice(SCOPES)
        if scope is not None:
            kw["scope"] = scope
        if rng.random() < 0.15:
            kw["globs"] = (rng.choice(["*.ts", "src/**/*.py", "**/*.md"]),)
        rules.append(_rule(f"r{k}", **kw))
    if rng.random() < 0.5:
        rules.append(_rule(rules[0].name, condition=("foo",)))  # a duplicate name: the first registration wins
    return rules


def _code(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 30)):
        out.append(rng.choice(WORDS))
        out.append(rng.choice(["", " ", " ", "\n", "  "]))
    return "".join(out)


def _call(rng: random.Random, cid: str) -> dict:
    path = rng.choice(["src/a.ts", "src/b.py", "lib/c.ts", "README.md", "src/deep/d.ts"])
    pick = rng.random()
    if pick < 0.3:
        args = {"path": path, "content": _code(rng)} if rng.random() < 0.8 else {"content": _code(rng), "path": path}
        return {"type": "toolCall", "id": cid, "name": "write", "arguments": args}
    if pick < 0.5:
        return {"type": "toolCall", "id": cid, "name": "edit",
                "arguments": {"path": path, "old_string": _code(rng), "new_string": _code(rng)}}
    if pick < 0.62:
        return {"type": "toolCall", "id": cid, "name": "edit",
                "arguments": {"path": path, "oldText": _code(rng), "newText": _code(rng)}}
    if pick < 0.7:
        return {"type": "toolCall", "id": cid, "name": "edit",
                "arguments": {"new_string": _code(rng), "old_string": "x", "path": path}}
    if pick < 0.78:
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n+{_code(rng)}\n*** End Patch"
        return {"type": "toolCall", "id": cid, "name": rng.choice(["apply_patch", "edit"]), "arguments": {"input": patch}}
    if pick < 0.84:
        return {"type": "toolCall", "id": cid, "name": "edit",
                "arguments": {"path": path, "edits": [{"old_string": "a", "new_string": _code(rng)},
                                                      {"old_string": "b", "new_string": _code(rng)}]}}
    if pick < 0.94:
        return {"type": "toolCall", "id": cid, "name": "bash", "arguments": {"command": _code(rng), "timeout": 5}}
    return {"type": "toolCall", "id": cid, "name": "custom", "arguments": {"q": _code(rng), "n": [1, {"k": _code(rng)}]}}


def _session(index: int, rng: random.Random) -> str:
    session = ChainedSession(f"g{index}", index, cwd="/proj")
    add = session.add

    add({"role": "user", "content": [{"type": "text", "text": "go"}]})
    for turn in range(rng.randint(1, 4)):
        blocks: list[dict] = [{"type": "text", "text": _code(rng)}] if rng.random() < 0.5 else []
        if rng.random() < 0.3:
            blocks.append({"type": "thinking", "thinking": _code(rng)})
        blocks += [_call(rng, f"c{index}_{turn}_{k}") for k in range(rng.choice([1, 1, 2, 3]))]
        add({"role": "assistant", "content": blocks, "stopReason": "toolUse"})
        session.answer([b for b in blocks if b["type"] == "toolCall"])
    return session.text()


def _feeds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the tool-call deltas fed to simulated sessions (one list entry per delta)."""
    fed: list[int] = []
    original = SimulatedSession._on_toolcall_delta

    def counting(self, ev):  # type: ignore[no-untyped-def]
        fed.append(1)
        return original(self, ev)

    monkeypatch.setattr(SimulatedSession, "_on_toolcall_delta", counting)
    return fed


@pytest.mark.parametrize("seed", range(6))
def test_join_equals_the_delta_by_delta_feed_on_generated_sessions(tmp_path: Path, seed: int,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1000 + seed)
    rules = _random_rules(rng, rng.randint(3, 9))
    paths = []
    for i in range(40):
        path = tmp_path / f"g{i}.jsonl"
        path.write_text(_session(i, rng), encoding="utf-8")
        paths.append(str(path))
    chunking = [BacktestOptions(time_bound=None), BacktestOptions(time_bound=None, size=1),
                BacktestOptions(time_bound=None, policy="fixed", size=rng.choice([3, 7])),
                BacktestOptions(time_bound=None, policy="tokens", size=2)][seed % 4]
    fed = _feeds(monkeypatch)
    joined = _outcomes(paths, rules, True, monkeypatch, chunking)
    with_join = len(fed)
    fed.clear()
    full = _outcomes(paths, rules, False, monkeypatch, chunking)
    assert joined == full
    assert with_join < len(fed)  # the join did leave deltas out
    assert _outcomes(paths, rules, True, monkeypatch, chunking, skip=False) == full  # and no probe skip at all
    assert sum(len(o.hits) for o in full) > 0


def test_join_equals_the_delta_by_delta_feed_on_sample_and_real_sessions(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert REAL, "tests/fixtures/real holds the real sessions"
    rules = resolve_rules([str(ROOT / "sample_sessions" / "project")])
    streams = sorted((ROOT / "sample_sessions" / "streams").glob("*.jsonl"))  # recorded stream files
    paths = [str(p) for p in SAMPLES + streams] + [_truncated(p, tmp_path / f"head-{p.name}", 400) for p in REAL]
    fed = _feeds(monkeypatch)
    joined = _outcomes(paths, rules, True, monkeypatch)
    with_join = len(fed)
    fed.clear()
    full = _outcomes(paths, rules, False, monkeypatch)
    assert joined == full
    assert sum(len(o.hits) for o in full) > 5
    assert with_join * 2 < len(fed)


def test_join_with_non_monotone_rules_that_flip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``foo$`` matches while ``foo`` ends the streamed content and not once more follows; ``\bbar\b``
    # matches ``bar`` until ``n`` arrives: a check of the final content alone would miss both.
    rules = [_rule("end", condition=("foo$",), scope=("tool:write",)),
             _rule("word", condition=(r"\bbar\b",), scope=("tool",)),
             _rule("ahead", condition=("x(?!y)",), scope=("tool:edit",))]
    content = "start foo then more and barn later"
    edit = {"path": "a.ts", "old_string": "o", "new_string": "some x" + "y" * 3}
    records = [{"type": "session", "version": 3, "id": "f", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/p"},
               {"type": "message", "id": "u", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "go"}], "timestamp": 1}},
               {"type": "message", "id": "a", "parentId": "u", "timestamp": "2026-01-01T00:00:02Z",
                "message": {"role": "assistant", "timestamp": 2, "stopReason": "toolUse", "content": [
                    {"type": "toolCall", "id": "w", "name": "write", "arguments": {"path": "a.ts", "content": content}},
                    {"type": "toolCall", "id": "e", "name": "edit", "arguments": edit}]}}]
    path = tmp_path / "flip.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    options = BacktestOptions(time_bound=None, policy="fixed", size=1)
    joined = _outcomes([str(path)], rules, True, monkeypatch, options)
    full = _outcomes([str(path)], rules, False, monkeypatch, options)
    assert joined == full
    assert {h.rule for h in full[0].hits} == {"end", "word", "ahead"}
    # None of them matches the call's final text: a check of the final surface alone would miss them.
    assert not compile_rule_condition("foo$").test(content) and not compile_rule_condition(r"\bbar\b").test(content)
    assert not compile_rule_condition("x(?!y)").test(edit["new_string"])


def test_a_match_the_gate_rejects_does_not_end_the_join(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``console.log(`` is in the write from its first line on, but the rule's scope takes only
    # ``src/**/*.ts`` and the file is ``lib/a.ts``: the manager never fires it there. The join asks
    # the manager's gate for each match, so it does not stop at every delta from that line on; the
    # edit's ``x(?!y)`` (admitted) still ends its join where it matches.
    rules = [_rule("log", condition=(r"console\.log\(",), scope=("tool:write(src/**/*.ts)",)),
             _rule("end", condition=("foo$",), scope=("tool:write",)),
             _rule("ahead", condition=("x(?!y)",), scope=("tool:edit(lib/**)",))]
    content = "console.log(1);\n" + "let a = 1;\n" * 120 + "foo"
    edit = {"path": "lib/b.ts", "old_string": "o", "new_string": "some x"}
    records = [{"type": "session", "version": 3, "id": "g", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/p"},
               {"type": "message", "id": "u", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "go"}], "timestamp": 1}},
               {"type": "message", "id": "a", "parentId": "u", "timestamp": "2026-01-01T00:00:02Z",
                "message": {"role": "assistant", "timestamp": 2, "stopReason": "toolUse", "content": [
                    {"type": "toolCall", "id": "w", "name": "write", "arguments": {"path": "lib/a.ts", "content": content}},
                    {"type": "toolCall", "id": "e", "name": "edit", "arguments": edit}]}}]
    path = tmp_path / "gate.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    options = BacktestOptions(time_bound=None, policy="fixed", size=4)
    fed = _feeds(monkeypatch)
    joined = _outcomes([str(path)], rules, True, monkeypatch, options)
    with_join = len(fed)
    fed.clear()
    full = _outcomes([str(path)], rules, False, monkeypatch, options)
    assert joined == full
    assert {h.rule for h in full[0].hits} == {"end", "ahead"}
    assert with_join < 12 < 300 < len(fed)


def test_monotone_classification() -> None:
    monotone = call_skip.is_monotone
    for pattern in ["foo", r"a+b", r"(?m)^\s*print\(", r"^x", r"(a)\1", r"(?<=x)y", r"[\s\S]{3}", r"(?i)password"]:
        assert monotone(compile_rule_condition(pattern)), pattern
    for pattern in [r"foo$", r"\bbar\b", r"x(?!y)", r"(?=a)b", r"(?<!x)y", r"a\B", r"(?=(a*))\1b", r"[(]"]:
        assert not monotone(compile_rule_condition(pattern)) or pattern == r"[(]", pattern


@pytest.mark.parametrize("seed", range(3))
def test_monotone_patterns_stay_matched_when_text_is_appended(seed: int) -> None:
    rng = random.Random(seed)
    conds = [c for c in map(compile_rule_condition, PATTERNS) if call_skip.is_monotone(c)]
    assert len(conds) >= 8
    for _ in range(400):
        text, more = _code(rng), _code(rng)
        for cond in conds:
            if cond.test(text):
                assert cond.test(text + more), (cond.pattern, text, more)


# The bundled ts-no-tiny-functions condition, the case the split is for.
TINY_PATTERN = (r"(?m)\{\s*return [^;{}\n]+;?\s*\}|\b(?:const|let|var)\s+[\w$]+\s*=\s*(\([^)]*\)|"
                r"[a-zA-Z_$][\w$]*)\s*=>\s*[^{\n]+$")


def test_relaxed_and_split_patterns() -> None:
    relaxed, split = call_skip.relaxed_pattern, call_skip.split_alternatives
    assert relaxed(r"\bnew\s+(Set|Map)\b") == r"new\s+(Set|Map)"
    assert relaxed(r"(?m)foo$") == "(?m)foo"
    assert relaxed(r"[\b$]x\B") == r"[\b$]x"  # in a class: a backspace and a dollar, kept
    assert relaxed(r"[]\b") == "[]" and relaxed(r"[^]$") == "[^]"  # JS: ``]`` right after ``[`` closes it
    for unsafe in [r"(a)\1b", r"\k<n>", r"x(?!y)", r"(?=a)b", r"(?<=x)y", r"(?<!x)y", "a\\", "[a"]:
        assert relaxed(unsafe) is None, unsafe
    assert relaxed(r"(?:a)(?<n>b)$") == "(?:a)(?<n>b)"
    assert split(TINY_PATTERN) == [r"(?m)\{\s*return [^;{}\n]+;?\s*\}",
                                   r"(?m)\b(?:const|let|var)\s+[\w$]+\s*=\s*(\([^)]*\)|[a-zA-Z_$][\w$]*)\s*=>\s*[^{\n]+$"]
    assert split("(?i)a|b|") == ["(?i)a", "(?i)b", "(?i)"]
    assert split("[|]|x") == ["[|]", "x"] and split("[]|]") == ["[]", "]"] and split(r"\|x") == [r"\|x"]
    for whole in ["(a|b)", r"(a)|\1", "abc"]:
        assert split(whole) == [whole]
    # The bundled rule: its halves are told apart (one monotone), and the other half is relaxed.
    tests = call_skip.call_tests((_rule("tiny", condition=(TINY_PATTERN,), scope=("tool:write(*.ts)",)),))
    assert [t.monotone for t in tests] == [True, False] and tests[1].relaxed is not None


@pytest.mark.parametrize("seed", range(3))
def test_relaxation_matches_whatever_the_pattern_matches_and_a_split_is_the_whole(seed: int) -> None:
    # What the join rests on: a text none of whose prefixes the pattern matches may be skipped when
    # the relaxation (monotone) does not match the text; and an alternation matches iff one of its
    # alternatives does.
    rng = random.Random(70 + seed)
    patterns = PATTERNS + [TINY_PATTERN, r"\b(?:const|let)\s+\w+\s*=>\s*[^{\n]+$", r"(?m)^x$|^y\b", r"a\b|\Bb|c$"]
    pairs = []
    for p in patterns:
        relaxed = call_skip.relaxed_pattern(p)
        pairs.append((compile_rule_condition(p), None if relaxed is None else compile_rule_condition(relaxed),
                      [compile_rule_condition(q) for q in call_skip.split_alternatives(p)]))
    assert sum(r is not None for _, r, _ in pairs) >= 12 and sum(len(s) > 1 for _, _, s in pairs) >= 5
    relaxed_only = 0
    for _ in range(300):
        text = _code(rng)
        cut = rng.randint(0, len(text))
        for cond, relaxed, parts in pairs:
            assert cond.test(text) == any(q.test(text) for q in parts), (cond.pattern, text)
            if relaxed is not None:
                assert call_skip.is_monotone(relaxed), relaxed.pattern
                if cond.test(text[:cut]):
                    assert relaxed.test(text), (cond.pattern, text, cut)
                elif relaxed.test(text) and not cond.test(text):
                    relaxed_only += 1
    assert relaxed_only > 0  # the relaxation is a superset, not the pattern again


def _value(rng: random.Random, depth: int = 0):  # type: ignore[no-untyped-def]
    pick = rng.random()
    if pick < 0.45 or depth > 2:
        return "".join(rng.choice(["a", " ", "\\", '"', "\n", "\u00e9", "\U0001f600", "\ud800", "x", "\t", "/"])
                       for _ in range(rng.randint(0, 12)))
    if pick < 0.6:
        return rng.choice([0, 12, -3.5, 1e21, True, False, None])
    if pick < 0.8:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randint(0, 3))}


@pytest.mark.parametrize("seed", range(4))
def test_partial_arguments_only_grow_their_string_members(seed: int) -> None:
    # What ``call_skip._stable_text`` relies on: for every prefix of a call's argument JSON, the parsed
    # members are members of the final arguments, and a string member is a prefix of the final one
    # that only grows (in engine units).
    rng = random.Random(seed)
    for _ in range(150):
        final = {rng.choice(["path", "content", "new_string", "old_string", "x"]) + str(i): _value(rng)
                 for i in range(rng.randint(1, 4))}
        final.update({k: _value(rng) for k in rng.sample(["path", "content", "new_string"], rng.randint(0, 3))})
        text = json.dumps(final, ensure_ascii=rng.random() < 0.3)
        parser = PartialJsonParser()
        seen: dict[str, str] = {}
        at = 0
        while at < len(text):
            step = rng.randint(1, 9)
            value = parser.feed(text[at:at + step])
            at += step
            args = value if isinstance(value, dict) else {}
            assert set(args) <= set(final)
            for key, member in args.items():
                if isinstance(member, str):
                    # In engine units (UTF-16): an escaped surrogate pair split after its first half
                    # reads as that half, a prefix of the pair.
                    units = engine_text(member)
                    assert isinstance(final[key], str) and engine_text(final[key]).startswith(units), (text, at, key)
                    assert units.startswith(seen.get(key, "")), (text, at, key)
                    seen[key] = units
                elif key in seen:
                    raise AssertionError(f"{key} stopped being a string at {at} of {text!r}")


def _stream(rng: random.Random) -> str:
    """A recorded stream file: calls whose deltas interleave, ids used twice, an escaped surrogate
    pair cut in two, deltas of a call that never started, ends without arguments, and turns without
    ``message_start``."""
    lines = [{"type": "stream", "version": 1, "cwd": "/proj"},
             {"type": "user_message", "content": [{"type": "text", "text": "go"}]}]
    for _turn in range(rng.randint(1, 3)):
        lines.append({"type": "turn_start"})
        if rng.random() < 0.8:
            lines.append({"type": "message_start", "role": "assistant", "timestamp": 1})
        calls = []
        for index in range(rng.randint(1, 3)):
            call = _call(rng, rng.choice(["a", "b", f"c{index}"]))
            raw = json.dumps(call["arguments"], ensure_ascii=rng.random() < 0.3)
            if rng.random() < 0.2:
                raw = raw[:-1] + ', "z": "\\ud83d\\ude00 foo"}'
            cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(1, 12))))
            pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)])]
            start = {"type": "toolcall_start", "contentIndex": index, "id": call["id"], "name": call["name"]}
            if rng.random() < 0.5:  # streamed on its own
                lines.append(start)
                lines.extend({"type": "toolcall_delta", "contentIndex": index, "delta": p} for p in pieces)
                # an end without arguments: the session parses the streamed text (so it must be fed)
                end = {"type": "toolcall_end", "contentIndex": index}
                lines.append(end if rng.random() < 0.25 else {**end, "arguments": call["arguments"]})
                continue
            calls.append((index, call, pieces))
            lines.append(start)
        pending = [(index, list(pieces)) for index, _call_, pieces in calls]
        while any(p for _, p in pending):
            index, pieces = rng.choice([x for x in pending if x[1]])
            lines.append({"type": "toolcall_delta", "contentIndex": index, "delta": pieces.pop(0)})
            if rng.random() < 0.05:
                lines.append({"type": "toolcall_delta", "contentIndex": 9, "delta": "foo bar"})
        for index, call, _pieces in calls:
            lines.append({"type": "toolcall_end", "contentIndex": index, "arguments": call["arguments"]})
        lines.append({"type": "message_end", "stopReason": "toolUse"})
        lines.append({"type": "turn_end"})
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def test_a_call_whose_id_is_reused_later_in_the_message_is_not_joined(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The patch's first delta is checked raw on ``toolcall:b`` (no file yet), the later ones on its
    # file's key; the bash call that reuses the id appends its raw deltas to what ``toolcall:b``
    # holds. Joining the patch's deltas would leave that key empty and move the bash hit's offset.
    lines = [{"type": "stream", "version": 1, "cwd": "/proj"},
             {"type": "user_message", "content": [{"type": "text", "text": "go"}]},
             {"type": "turn_start"}, {"type": "message_start", "role": "assistant", "timestamp": 1},
             {"type": "toolcall_start", "contentIndex": 0, "id": "b", "name": "apply_patch"},
             {"type": "toolcall_delta", "contentIndex": 0, "delta": '{"input": "*** Begin Patch\\n*** U'},
             {"type": "toolcall_delta", "contentIndex": 0, "delta": 'pdate File: README.md\\n@@\\n+x\\n*** End Patch"}'},
             {"type": "toolcall_end", "contentIndex": 0,
              "arguments": {"input": "*** Begin Patch\n*** Update File: README.md\n@@\n+x\n*** End Patch"}},
             {"type": "toolcall_start", "contentIndex": 1, "id": "b", "name": "bash"},
             {"type": "toolcall_delta", "contentIndex": 1, "delta": '{"command": "ls'},
             {"type": "toolcall_delta", "contentIndex": 1, "delta": ' foo"}'},
             {"type": "toolcall_end", "contentIndex": 1, "arguments": {"command": "ls foo"}},
             {"type": "message_end", "stopReason": "toolUse"}, {"type": "turn_end"}]
    path = tmp_path / "reuse.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    rules = [_rule("foo", condition=("foo",), scope=("tool:bash",))]
    joined = _outcomes([str(path)], rules, True, monkeypatch)
    full = _outcomes([str(path)], rules, False, monkeypatch)
    assert [h.rule for h in full[0].hits] == ["foo"]
    assert joined == full


@pytest.mark.parametrize("with_arguments", [True, False])
def test_deltas_that_can_match_nothing_are_fed_only_when_the_end_needs_their_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_arguments: bool) -> None:
    # No regex can match the write, so the join need not feed its deltas when the end carries the
    # arguments; an end without them makes the session parse the streamed text, which the AST check
    # then reads: those deltas must be fed.
    args = {"path": "src/a.ts", "content": "const u = (req as any).user;\n" + "let a = 1;\n" * 30}
    raw = json.dumps(args)
    end: dict = {"type": "toolcall_end", "contentIndex": 0}
    if with_arguments:
        end["arguments"] = args
    lines = [{"type": "stream", "version": 1, "cwd": "/proj"},
             {"type": "user_message", "content": [{"type": "text", "text": "go"}]},
             {"type": "turn_start"}, {"type": "message_start", "role": "assistant", "timestamp": 1},
             {"type": "toolcall_start", "contentIndex": 0, "id": "w", "name": "write"},
             *({"type": "toolcall_delta", "contentIndex": 0, "delta": raw[i:i + 16]} for i in range(0, len(raw), 16)),
             end, {"type": "message_end", "stopReason": "toolUse"}, {"type": "turn_end"}]
    path = tmp_path / "end.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    rules = [_rule("as-any", ast_condition=("$EXPR as any",), scope=("tool:write(*.ts)",)),
             _rule("never", condition=("THIS_NEVER_APPEARS",), scope=("tool",))]
    fed = _feeds(monkeypatch)
    joined = _outcomes([str(path)], rules, True, monkeypatch)
    with_join = len(fed)
    full = _outcomes([str(path)], rules, False, monkeypatch)
    assert joined == full
    assert [h.rule for h in full[0].hits] == ["as-any"]
    assert with_join == (0 if with_arguments else 1)


def test_an_end_with_other_arguments_than_the_streamed_ones_is_checked(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # A recorded stream's end may carry arguments the deltas never streamed: its regex check reads
    # those, so nothing the join found about the deltas may spare it.
    streamed = {"path": "src/a.ts", "content": "harmless " * 20}
    ended = {"path": "src/a.ts", "content": "harmless foo"}
    raw = json.dumps(streamed)
    lines = [{"type": "stream", "version": 1, "cwd": "/proj"},
             {"type": "user_message", "content": [{"type": "text", "text": "go"}]},
             {"type": "turn_start"}, {"type": "message_start", "role": "assistant", "timestamp": 1},
             {"type": "toolcall_start", "contentIndex": 0, "id": "w", "name": "write"},
             *({"type": "toolcall_delta", "contentIndex": 0, "delta": raw[i:i + 16]} for i in range(0, len(raw), 16)),
             {"type": "toolcall_end", "contentIndex": 0, "arguments": ended},
             {"type": "message_end", "stopReason": "toolUse"}, {"type": "turn_end"}]
    path = tmp_path / "other.stream.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    rules = [_rule("foo", condition=("foo",), scope=("tool:write",))]
    joined = _outcomes([str(path)], rules, True, monkeypatch)
    full = _outcomes([str(path)], rules, False, monkeypatch)
    assert [h.rule for h in full[0].hits] == ["foo"]
    assert joined == full


@pytest.mark.parametrize("seed", range(4))
def test_join_equals_the_delta_by_delta_feed_on_recorded_streams(tmp_path: Path, seed: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2000 + seed)
    rules = _random_rules(rng, rng.randint(3, 8))
    paths = []
    for i in range(30):
        path = tmp_path / f"s{i}.stream.jsonl"
        path.write_text(_stream(rng), encoding="utf-8")
        paths.append(str(path))
    fed = _feeds(monkeypatch)
    joined = _outcomes(paths, rules, True, monkeypatch)
    with_join = len(fed)
    fed.clear()
    full = _outcomes(paths, rules, False, monkeypatch)
    assert joined == full
    # (``q*`` and ``$`` match every buffer, so no delta can be left out with them)
    assert with_join < len(fed) or any(p in ("q*", "$") for r in rules for p in r.condition)
    assert all(o.error is None for o in full) and sum(len(o.hits) for o in full) > 0


@pytest.mark.parametrize("seed", range(3))
def test_settled_checks_are_what_the_tool_surface_gives(seed: int) -> None:
    # Once ``_stable`` holds, ``CallShadow`` takes a write's or an edit's checks from the arguments
    # instead of ``tool_surface``; at every later prefix they must agree, and be prefixes (in engine
    # units) of the stable text.
    rng = random.Random(3000 + seed)
    settled = 0
    for n in range(300):
        call = _call(rng, f"c{n}")
        if rng.random() < 0.3 and call["name"] == "edit":
            call["arguments"] = {**call["arguments"], "new_string": "\U0001f600" + _code(rng) + "\ud800"}
        raw = json.dumps(call["arguments"], ensure_ascii=rng.random() < 0.5)
        final = PartialJsonParser().feed(raw)
        stable = call_skip._stable_text(call["name"], final, None)
        if stable is None:
            continue
        parser, on = PartialJsonParser(), False
        at = 0
        while at < len(raw):
            step = rng.randint(1, 6)
            value = parser.feed(raw[at:at + step])
            at += step
            args = value if isinstance(value, dict) else {}
            on = on or call_skip._stable(call["name"], args, final, stable)
            if not on:
                continue
            settled += 1
            surface = tool_surface(call["name"], args, "/proj", None)
            expected = ([(f"toolcall:x#{p}", d) for p, d in surface.entries] if surface.entries
                        else [("toolcall:x", surface.digest)])
            got = list(call_skip._settled_checks(call["name"], "toolcall:x", args))
            assert got == expected, (raw, at)
            assert all(engine_text(stable).startswith(engine_text(text)) for _, text in got), (raw, at)
    assert settled > 200


@pytest.mark.parametrize("seed", range(4))
def test_the_settled_leap_gives_the_answers_of_the_delta_by_delta_shadow(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``CallShadow._leap`` skips, by a binary search over whole re-parses, the deltas of a settled
    # write or ``replace`` edit at which no test may match; the answers (and ``quiet``) must be those
    # of the shadow that parses and checks every delta, with and without a gate, after firings too.
    from workbench.replay import StreamEvent

    rng = random.Random(4000 + seed)
    original = call_skip.CallShadow._leap
    skipped = compared = 0

    def counting(self, which, args):  # type: ignore[no-untyped-def]
        nonlocal skipped
        before = self.position
        done = original(self, which, args)
        skipped += done or self.position > before
        return done

    for n in range(150):
        rules = _random_rules(rng, rng.randint(2, 6))
        tests = call_skip._tests(tuple(rules))
        call = _call(rng, f"c{n}")
        if call["name"] not in ("write", "edit"):
            continue
        member = "content" if call["name"] == "write" else "new_string"
        if member in call["arguments"] and rng.random() < 0.5:
            call["arguments"][member] = " ".join(_code(rng) for _ in range(4))
        raw = json.dumps(call["arguments"], ensure_ascii=rng.random() < 0.3)
        cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(2, 60))))
        deltas = [StreamEvent("toolcall_delta", content_index=0, delta=raw[a:b])
                  for a, b in zip([0, *cuts], [*cuts, len(raw)])]
        names = sorted({r.name for r in rules})
        admitted = frozenset(x for x in names if rng.random() < 0.6)
        # the gate admits nothing while the call has no path yet (a write whose path comes last)
        gate = None if rng.random() < 0.3 else (lambda ctx, a=admitted: a if ctx.file_paths else frozenset())
        answers = []
        for leap in (True, False):
            monkeypatch.setattr(call_skip.CallShadow, "_leap", counting if leap else (lambda self, which, args: False))
            shadow = call_skip.CallShadow(tests, call["id"], call["name"], deltas, "/proj", None, gate)
            fired: set[str] = set()
            got = []
            while True:
                first = shadow.next_possible(frozenset(fired))
                got.append((first, shadow.quiet))
                if first is None or first >= len(deltas) - 1:
                    break
                fired.add(names[first % len(names)])  # as if that rule fired there
            answers.append(got)
        assert answers[0] == answers[1], (raw, cuts, [t.cond.pattern for t in tests])
        compared += 1
    assert compared > 40 and skipped > 10, (compared, skipped)
