"""Required literals are sound: every match holds one at or after its start (seeded random tests)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
import regress

from workbench.ttsr import literals as literals_module
from workbench.ttsr import window as window_module
from workbench.ttsr.code_units import engine_text
from workbench.ttsr.conditions import CompiledCondition, compile_rule_condition
from workbench.ttsr.literals import LiteralIndex, required_literal_sets, required_literals
from workbench.ttsr.window import StreamBuffer, condition_matches

ATOMS = ["a", "b", "c", "ab", "abc", "x", "A", "I", "s", r"\.", ".", "[ab]", "[^a]", r"\d", r"\s", r"\w", r"\b",
         r"\B", "^", "$", "1", " ", r"\n", r"\x61", r"\u0062", "\u00e9", "\U0001F600", "]", "}", "{", r"\k", r"\8"]
QUANTS = ["", "", "", "?", "*", "+", "{2}", "{1,2}", "{0,1}", "??", "+?"]


def random_pattern(rng: random.Random, depth: int = 0) -> str:
    out = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if depth < 2 and r < 0.25:
            inner = random_pattern(rng, depth + 1)
            if rng.random() < 0.4:
                inner += "|" + random_pattern(rng, depth + 1)
            opener = rng.choice(["(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?i:", "(?<n>"])
            if opener == "(?<n>" and "(?<n>" in "".join(out):
                opener = "("
            atom = opener + inner + ")"
        elif r < 0.3 and "(" in "".join(out):
            atom = "\\1"
        else:
            atom = rng.choice(ATOMS)
        # Groups take only `?`: regress can exhaust memory on nested counted repetitions
        # (`(?:c?(?:a*|b{2,}){2}){2}` asks for 5 GB).
        quant = rng.choice(QUANTS if not atom.startswith("(") else ["", "?"])
        if atom in ("^", "$", r"\b", r"\B") or atom.startswith(("(?<=", "(?<!")):
            quant = ""
        out.append(atom + quant)
    body = "".join(out)
    if depth == 0 and rng.random() < 0.3:
        body += "|" + random_pattern(rng, 1)
    if depth == 0 and rng.random() < 0.4:
        body = "(?" + "".join(sorted(rng.sample("ims", rng.randint(1, 2)))) + ")" + body
    return body


TEXT_PIECES = ["a", "b", "c", "ab", "abc", "x", "A", "B", "I", "i", "S", "s", "\u01e2", "\u027e", "\u017f", ".",
               "1", " ", "\n", "\u00e9", "\u00c9", "\U0001F600", "]", "}", "{", "k", "8", "\u212a"]


def random_text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(TEXT_PIECES) for _ in range(size))


def test_regress_folds_table() -> None:
    """Every unit regress folds onto an ASCII char is covered by Python's IGNORECASE or the table."""
    everything = "".join(chr(c) for c in range(0, 0xD800)) + "".join(chr(c) for c in range(0xE000, 0x10000))
    for code in range(0x00, 0x80):
        ch = chr(code)
        source = ch if ch.isalnum() else f"\\x{code:02x}"
        found = {everything[m.range().start] for m in regress.Regex(source, "i").find_iter(everything) or []}
        scanned = set(re.findall(literals_module._icase_source(ch.lower()), everything, re.I))
        assert found <= scanned, (ch, found - scanned)


def test_examples() -> None:
    assert required_literals(r"\bconsole\.log\(", "") == {("console.log(", False)}
    assert required_literals(r"(?<=\bimport )lodash\b", "") == {("lodash", False)}
    assert required_literals("https?://x", "") == {("http://x", False), ("https://x", False)}
    assert required_literals(r"\bI (?:cannot|can't) help", "i") == {("i cannot help", True), ("i can't help", True)}
    assert required_literals(r"a*", "") is None
    assert required_literals(r"(a)\1|b", "") == {("a", False), ("b", False)}
    assert required_literals(r"a|.", "") is None
    assert required_literals(r"(?!abc)x", "") == {("x", False)}
    assert required_literals("\u00e9t\u00e9", "i") == {("t", True)}
    assert required_literals(r"(?=[\s\S]*rm -rf /)", "") == {("rm -rf /", False)}


def test_index_reports_overlapping_and_prefix_occurrences() -> None:
    keys = frozenset({("as", False), ("as any", False), ("any", False), ("ANY", True), ("s", True)})
    got = sorted(LiteralIndex(keys).scan("xas anyS", 10))
    assert got == sorted([(("as", False), 11), (("as any", False), 11), (("any", False), 14), (("ANY", True), 14),
                          (("s", True), 12), (("s", True), 17)])


def _conditions_with_literals(rng: random.Random) -> Iterator[tuple[str, CompiledCondition]]:
    """Generated patterns that compile and have required literals, with their conditions."""
    for _ in range(400):
        pattern = random_pattern(rng)
        try:
            cond = compile_rule_condition(pattern)
        except Exception:  # noqa: BLE001 - invalid generated pattern
            continue
        if cond.literals is not None:
            yield pattern, cond


def _match_starts(rng: random.Random, cond: CompiledCondition) -> Iterator[tuple[str, int]]:
    """(engine text, a match's start as a string index) over 15 generated texts."""
    for _ in range(15):
        etext = engine_text(random_text(rng, rng.randint(0, 30)))
        for m in cond.regex.find_iter(etext) or []:
            yield etext, len(etext.encode("utf-8", "surrogatepass")[: m.range().start].decode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("seed", range(6))
def test_every_match_holds_a_required_literal_at_or_after_its_start(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for pattern, cond in _conditions_with_literals(rng):
        index = LiteralIndex(cond.literals)
        for etext, at in _match_starts(rng, cond):
            starts = [pos for _, pos in index.scan(etext, 0)]
            assert any(p >= at for p in starts), (pattern, etext, at)
            checked += 1
    assert checked > 200


def test_literal_sets_examples() -> None:
    assert required_literal_sets(r"\bnew\s+(Set|Map)\b", "") == (frozenset({("new", False)}),
                                                                 frozenset({("Set", False), ("Map", False)}))
    assert required_literal_sets(r"(?=.*q)z", "") == (frozenset({("z", False)}), frozenset({("q", False)}))
    assert required_literal_sets(r"a|b", "") == (frozenset({("a", False), ("b", False)}),)  # one set: either
    assert required_literal_sets(r"a*", "") is None


@pytest.mark.parametrize("seed", range(6))
def test_every_match_holds_a_literal_of_each_required_set(seed: int) -> None:
    # Each set, not only the one ``required_literals`` picks, is met by every match at or after its
    # start (a lookahead's literal may lie past the match's end: it is still in the searched text).
    rng = random.Random(50 + seed)
    checked = several = 0
    for pattern, cond in _conditions_with_literals(rng):
        sets = required_literal_sets(cond.source, cond.flags)
        assert sets is not None and sets[0] == cond.literals
        several += len(sets) > 1
        indexes = [LiteralIndex(keys) for keys in sets]
        for etext, at in _match_starts(rng, cond):
            for keys, index in zip(sets, indexes):
                assert any(p >= at for _, p in index.scan(etext, 0)), (pattern, keys, etext, at)
            checked += 1
    assert checked > 200 and several > 20


@pytest.mark.parametrize("seed", range(4))
def test_prefiltered_incremental_equals_full_retest_on_generated_patterns(seed: int) -> None:
    rng = random.Random(100 + seed)
    conds = []
    while len(conds) < 40:
        try:
            conds.append(compile_rule_condition(random_pattern(rng)))
        except Exception:  # noqa: BLE001
            continue
    assert sum(c.literals is not None for c in conds) >= 10
    for _ in range(60):
        buf, text = StreamBuffer(), ""
        for _ in range(rng.randint(1, 20)):
            delta = random_text(rng, rng.randint(0, 5))
            if rng.random() < 0.1:
                buf, text = StreamBuffer(delta), delta
            else:
                buf.append(delta)
                text += delta
            if rng.random() < 0.1:
                buf = buf.copy()
            for cid, cond in enumerate(conds):
                if rng.random() < 0.3:
                    continue
                assert condition_matches(cond, cid, buf) is cond.test(text), (cond.pattern, text)


def test_prefilter_switch_gives_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    conds = [compile_rule_condition(p) for p in (r"\bab\b", "a.?c$", "(?i)ABC", r"(?<=x)b\s*c", r"\d+x")]
    for _ in range(50):
        deltas = [random_text(rng, rng.randint(0, 4)) for _ in range(15)]
        answers = []
        for flag in (True, False):
            monkeypatch.setattr(window_module, "_PREFILTER", flag)
            buf = StreamBuffer()
            row = []
            for d in deltas:
                buf.append(d)
                row.append([condition_matches(c, i, buf) for i, c in enumerate(conds)])
            answers.append(row)
        assert answers[0] == answers[1]


def test_manager_with_prefilter_equals_naive_manager_without(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole managers: prefilter on vs the reference's full re-test with the prefilter off."""
    from workbench.rules import Rule
    from workbench.ttsr import MatchContext, TtsrManager
    from workbench.ttsr import manager as manager_module

    rng = random.Random(77)
    contexts = [MatchContext("text"), MatchContext("thinking"), MatchContext("tool", tool_name="bash"),
                MatchContext("tool", tool_name="edit", file_paths=("a.ts",), stream_key="k")]
    naive = lambda cond, cid, buf: cond.regex.find(buf.etext) is not None  # noqa: E731
    for _ in range(12):
        patterns = []
        while len(patterns) < 12:
            p = random_pattern(rng)
            try:
                compile_rule_condition(p)
            except Exception:  # noqa: BLE001
                continue
            patterns.append(p)
        scopes = [rng.choice([None, ("text",), ("tool",), ("thinking", "tool:bash")]) for _ in patterns]

        def build() -> TtsrManager:
            mgr = TtsrManager({"repeatMode": "after-gap", "repeatGap": 1})
            for i, (p, sc) in enumerate(zip(patterns, scopes)):  # noqa: B023 - build() runs inside this iteration
                mgr.add_rule(Rule(name=f"r{i}", path=f"r{i}.md", content="", condition=(p,), scope=sc))
            return mgr

        fast, slow = build(), build()
        for _ in range(40):
            ctx = rng.choice(contexts)
            delta = random_text(rng, rng.randint(0, 5))
            snapshot = rng.random() < 0.2
            if snapshot:
                delta = (fast.get_buffer(fast.buffer_key(ctx)) or "") + delta if rng.random() < 0.7 else delta
            got = [r.name for r in (fast.check_snapshot if snapshot else fast.check_delta)(delta, ctx)]
            monkeypatch.setattr(manager_module, "condition_matches", naive)
            monkeypatch.setattr(window_module, "_PREFILTER", False)
            want = [r.name for r in (slow.check_snapshot if snapshot else slow.check_delta)(delta, ctx)]
            monkeypatch.undo()
            assert got == want
            if got:
                fast.mark_injected_by_names(got[:1])
                slow.mark_injected_by_names(got[:1])
            if rng.random() < 0.1:
                fast = fast.copy()
            if rng.random() < 0.1:
                for m in (fast, slow):
                    m.increment_message_count()
                    m.reset_buffer()
