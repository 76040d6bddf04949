"""TtsrManager behaviour beyond the conformance cases: introspection for the stepper, copies,
snapshots that extend the buffer, and robustness against odd input."""

from __future__ import annotations

from workbench.rules import Rule
from workbench.ttsr import MatchContext, TtsrManager

TEXT = MatchContext("text")


def _rule(name: str, *conditions: str, **kw) -> Rule:
    return Rule(name=name, path=f"{name}.md", content="", condition=conditions or None, **kw)


def test_explain_names_the_first_failing_gate() -> None:
    mgr = TtsrManager({"repeatMode": "after-gap", "repeatGap": 10})
    mgr.add_rule(_rule("plain", "foo"))
    mgr.add_rule(_rule("think", "foo", scope=("thinking",)))
    mgr.add_rule(_rule("globbed", "foo", globs=("*.ts",)))
    mgr.add_rule(_rule("spent", "foo"))
    mgr.add_rule(_rule("bad", "("))
    mgr.check_delta("foo", TEXT)
    mgr.mark_injected_by_names(["spent"])
    mgr.increment_message_count()
    mgr.increment_message_count()
    why = mgr.explain(TEXT)
    assert why["plain"] is None
    assert why["think"] == "scope: text not monitored"
    assert why["globbed"].startswith("path gate: no glob matched")
    assert why["spent"] == "repeat gap 2 < 10"
    assert why["bad"].startswith("not registered: no valid regex")
    assert mgr.rejections == {"bad": "no valid regex condition and no AST pattern"}


def test_explain_once_mode_and_no_match() -> None:
    mgr = TtsrManager()
    mgr.add_rule(_rule("a", "zzz"))
    mgr.add_rule(_rule("b", "x"))
    mgr.check_delta("abc", TEXT)
    mgr.mark_injected_by_names(["b"])
    why = mgr.explain(TEXT)
    assert why == {"a": "no condition matched", "b": "repeat: once, injected at turn 0"}


def test_buffers_spans_and_keys_are_readable() -> None:
    mgr = TtsrManager()
    mgr.add_rule(_rule("r", "b+"))
    ctx = MatchContext("tool", tool_name=" Edit ")
    assert mgr.buffer_key(ctx) == "tool:edit"
    mgr.check_delta("abba", ctx)
    mgr.check_delta(" b", ctx)
    assert mgr.buffers == {"tool:edit": "abba b"}
    assert mgr.get_buffer("tool:edit") == "abba b"
    assert mgr.match_spans("r", "tool:edit") == [(1, 3), (5, 6)]
    assert mgr.match_spans("missing", "tool:edit") == []


def test_copy_is_independent() -> None:
    mgr = TtsrManager()
    mgr.add_rule(_rule("r", "foobar"))
    mgr.check_delta("foo", TEXT)
    snap = mgr.copy()
    assert mgr.check_delta("bar", TEXT) != []
    assert snap.get_buffer("text") == "foo"
    assert snap.check_delta("baz", TEXT) == []
    mgr.mark_injected_by_names(["r"])
    assert snap.get_injected_rule_names() == []
    assert mgr.injection_records()["r"].journal_coords is True


def test_extending_snapshots_match_like_replacing_ones() -> None:
    fast, slow = TtsrManager(), TtsrManager()
    for m in (fast, slow):
        m.add_rule(_rule("r", r"\bas any\b"))
    ctx = MatchContext("tool", tool_name="edit", file_paths=("a.ts",))
    text = "const x = y as any;"
    for i in range(len(text) + 1):
        slow.reset_buffer()
        assert [r.name for r in fast.check_snapshot(text[:i], ctx)] == [r.name for r in slow.check_snapshot(text[:i], ctx)]
    assert fast.check_snapshot("as an", ctx) == []  # not an extension: replaced


def test_odd_input_never_raises() -> None:
    mgr = TtsrManager({"repeatGap": "abc", "repeatMode": "after-gap"})
    assert mgr.add_rule({"name": "m", "condition": ["x"], "scope": [3, "text"]}) is True
    mgr.mark_injected([None, {"name": "m"}, "m"])
    mgr.restore_injected(["m", "m"], {"m": 1.5})
    mgr.rewind_message_count("nope")
    assert mgr.check_delta("x", TEXT) == []  # NaN gap compares false, as in JS
    assert mgr.check_ast_snapshot("x", MatchContext("tool", file_paths=(".ts", "a.unknownlang"))) == []
    assert mgr.add_rule(_rule("lone", "\ud800")) is True
    assert mgr.check_delta("\ud800", MatchContext("tool")) != []


def test_optimised_manager_answers_like_the_naive_reference_on_random_sessions(monkeypatch) -> None:
    """Property (not timed): the windowed matcher returns exactly what a full re-test returns."""
    import random

    from workbench.ttsr import manager as manager_module
    from workbench.ttsr import window as window_module

    patterns = [r"\bas any\b", "foo$", "(?m)^bar", r"a\s*b", r"(?=[\s\S]*foo)(?=[\s\S]*bar)", "(?<=a)b", "ab(?!c)",
                r"(?i)password\s*=\s*['\"][^'\"]+['\"]", r"\b[A-Z]{3,}_SECRET\b", "x[^\n]*y", r"[\s\S]{0,4}?zz"]
    pieces = ["a", "b", "c", "x", "y", "z", " ", "\n", "foo", "bar", "as any", "'", "password=", "ABC_SECRET", "\U0001F600"]
    contexts = [MatchContext("text"), MatchContext("thinking"), MatchContext("tool", tool_name="edit", file_paths=("a.ts",)),
                MatchContext("tool", tool_name="bash", stream_key="k1")]
    rng = random.Random(1234)

    def build() -> TtsrManager:
        mgr = TtsrManager({"repeatMode": "after-gap", "repeatGap": 2})
        for i, p in enumerate(patterns):
            scope = rng.choice([None, ("text",), ("thinking", "tool"), ("tool:edit(*.ts)",)])
            mgr.add_rule(_rule(f"r{i}", p, scope=scope))
        return mgr

    for _ in range(40):
        state = rng.getstate()
        fast = build()
        rng.setstate(state)
        slow = build()
        naive = lambda cond, cid, buf: cond.regex.find(buf.etext) is not None  # noqa: E731
        for _ in range(60):
            ctx = rng.choice(contexts)
            op = rng.random()
            delta = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))
            if op < 0.75:
                got = [r.name for r in fast.check_delta(delta, ctx)]
                monkeypatch.setattr(manager_module, "condition_matches", naive)
                monkeypatch.setattr(window_module, "_PREFILTER", False)  # a full re-test: no literal prefilter
                want = [r.name for r in slow.check_delta(delta, ctx)]
            else:
                snap = (fast.get_buffer(fast.buffer_key(ctx)) or "") + delta if rng.random() < 0.7 else delta
                got = [r.name for r in fast.check_snapshot(snap, ctx)]
                monkeypatch.setattr(manager_module, "condition_matches", naive)
                monkeypatch.setattr(window_module, "_PREFILTER", False)  # a full re-test: no literal prefilter
                want = [r.name for r in slow.check_snapshot(snap, ctx)]
            monkeypatch.undo()
            assert got == want
            if got and rng.random() < 0.5:
                fast.mark_injected_by_names(got[:1])
                slow.mark_injected_by_names(got[:1])
            if rng.random() < 0.1:
                for m in (fast, slow):
                    m.increment_message_count()
                    m.reset_buffer()
