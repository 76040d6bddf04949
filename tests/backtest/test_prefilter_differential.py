"""The backtest's prefilter (tool names and paths, then literals, then simulation) against a full
simulation of every turn: identical outcomes on generated sessions and on real ones, with the
bundled rules.

Generated sessions here aim at the tool/path gate (``workbench.backtest.probe_plan._ToolGate``):
calls to many tools, paths given in different argument keys, backslashes, ``./`` and absolute
paths, extensions that only share a prefix with a glob's (``.tsx`` against ``*.ts``), paths inside
patch text, and code that holds a pattern's literal under a path no rule's glob accepts.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.backtest.generated import ChainedSession
from tests.backtest.test_prefilter import backtest_outcomes
from workbench.backtest import probe_plan
from workbench.rules import Rule, resolve_rules
from workbench.sessions import load_session

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted((ROOT / "tests" / "fixtures" / "real").glob("*.jsonl"))
SAMPLES = sorted((ROOT / "sample_sessions").glob("*.jsonl"))


def _rule(name: str, **kw) -> Rule:
    return Rule(name=name, path=f"/r/{name}.md", content=f"Rule {name}.", **kw)


RULES = [
    _rule("ts-any", condition=(r":\s*any\b",), scope=("tool:edit(*.ts)", "tool:write(*.ts)")),
    _rule("ts-braces", condition=("console\\.log",), scope=("tool:edit(*.{ts,tsx,mts})",)),
    _rule("as-any", ast_condition=("$EXPR as any",), scope=("tool:edit(*.ts)", "tool:write(*.ts)")),
    _rule("rs-unwrap", condition=(r"\.unwrap\(\)",), scope=("tool:edit(*.rs)", "tool:write(*.rs)")),
    _rule("py-print", condition=(r"print\(",), globs=("scripts/*.py",)),
    _rule("go-test", condition=("t\\.Parallel",), scope=("tool:write(*_test.go)",)),
    _rule("src-any", condition=("TODO",), scope=("tool(src/**)",)),  # no literal ending: never gated by path
    _rule("negated", condition=("FIXME",), scope=("tool:edit(!*.md)",)),
    _rule("bash-rm", condition=("rm -rf",), scope=("tool:bash",)),
    _rule("exact", condition=("secret",), scope=("tool:write(config/app.json)",)),
    _rule("prose", condition=("falls back",), scope=("text",)),
    _rule("mixed", condition=("never-there",), ast_condition=("foo($A)",), scope=("tool:edit(*.ts)",)),
]
CODE = ["const x: any = 1;", "console.log(a as any)", "let v = r.unwrap();", "print('x')", "t.Parallel()",
        "// TODO later", "# FIXME", "rm -rf build", '"secret": 1', "foo(bar)", "plain words only"]
PATHS = ["src/a.ts", "src/a.tsx", "./src/b.ts", "/proj/src/c.ts", "src\\win\\d.ts", "lib/e.mts", "crates/x.rs",
         "scripts/s.py", "scripts/deep/s.py", "pkg/a_test.go", "pkg/a.go", "config/app.json", "README.md",
         "src/a.ts.bak", "notes.txt"]


def _call(rng: random.Random, cid: str) -> dict:
    code = "\n".join(rng.choice(CODE) for _ in range(rng.randint(1, 3)))
    path = rng.choice(PATHS)
    pick = rng.random()
    if pick < 0.35:
        return {"type": "toolCall", "id": cid, "name": rng.choice(["edit", "Edit", " edit "]),
                "arguments": {"path": path, "old_string": "x", "new_string": code}}
    if pick < 0.6:
        key = rng.choice(["path", "file_path", "filePath"])
        return {"type": "toolCall", "id": cid, "name": "write", "arguments": {key: path, "content": code}}
    if pick < 0.7:
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n+{code}\n*** End Patch"
        return {"type": "toolCall", "id": cid, "name": rng.choice(["apply_patch", "edit"]),
                "arguments": {"input": patch}}
    if pick < 0.85:
        return {"type": "toolCall", "id": cid, "name": "bash", "arguments": {"command": code + " " + path}}
    return {"type": "toolCall", "id": cid, "name": rng.choice(["read", "grep", "custom"]),
            "arguments": {"path": path, "pattern": code}}


def _session(index: int, rng: random.Random) -> str:
    session = ChainedSession(f"g{index}", index, cwd=rng.choice(["/proj", "/home/u/app.ts", "C:\\work\\proj"]))
    add = session.add

    add({"role": "user", "content": [{"type": "text", "text": "go"}]})
    for turn in range(rng.randint(1, 5)):
        blocks: list[dict] = [{"type": "text", "text": rng.choice(["it falls back", "ok", "done"])}]
        blocks += [_call(rng, f"c{index}_{turn}_{k}") for k in range(rng.choice([0, 1, 2, 3]))]
        calls = [b for b in blocks if b["type"] == "toolCall"]
        add({"role": "assistant", "content": blocks, "stopReason": "toolUse" if calls else "stop"})
        session.answer(calls)
    return session.text()


@pytest.mark.parametrize("seed", range(3))
def test_prefiltered_equals_full_simulation_on_generated_sessions(tmp_path: Path, seed: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    paths = []
    for i in range(80):
        path = tmp_path / f"g{i}.jsonl"
        path.write_text(_session(i, rng), encoding="utf-8")
        paths.append(str(path))
    with_skip = backtest_outcomes(paths, RULES, True, monkeypatch)
    full = backtest_outcomes(paths, RULES, False, monkeypatch)
    assert with_skip == full
    fired = {h.rule for o in full for h in o.hits}
    assert {"ts-any", "ts-braces", "as-any", "rs-unwrap", "py-print", "bash-rm", "src-any", "negated"} <= fired, fired
    # The gate does leave out calls holding a literal that a full replay never fires on.
    gated = 0
    lits = probe_plan._rule_literals(RULES)
    assert lits is not None and not lits.open_gates
    for p in paths:
        session = load_session(p)
        for entry in session.entries:
            message = getattr(entry, "message", None) or {}
            for block in message.get("content") or ():
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    admitted = probe_plan._admitted(lits, block["name"], block["arguments"], session.cwd or "")[0]
                    gated += admitted is not None and len(admitted) < len(lits.tool_rules)
    assert gated > 50


def test_glob_endings() -> None:
    endings = probe_plan._glob_endings
    assert endings("*.ts") == (".ts",)
    assert endings("**/*.{ts,tsx}") == (".ts", ".tsx")
    assert endings("*.{ts,}") == (".ts", ".")  # the dot before the brace is in every ending
    assert endings("src/**") is None and endings("!*.md") is None and endings("") is None
    assert endings("*_test.go") == ("_test.go",)
    assert endings("config/app.json") == ("config/app.json",)
    assert endings("*.[jt]s") == ("s",)
    assert endings("*.{a,{b,c}}") is None  # nested: the characters after it (none)
    assert endings("*.\\{a,b}") is None  # an escaped brace is literal: only what follows the last special
    assert endings("src/*.{a,b}x") == (".ax", ".bx")


def _truncated(path: Path, out: Path, lines: int) -> str:
    # The first entries of a real session (a whole one takes minutes to simulate without the skip).
    with path.open(encoding="utf-8") as fh:
        head = [next(fh, "") for _ in range(lines)]
    out.write_text("".join(head), encoding="utf-8")
    return str(out)


def test_prefiltered_equals_full_simulation_on_real_sessions_with_the_bundled_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert REAL, "tests/fixtures/real holds the real sessions"
    rules = resolve_rules([str(ROOT / "sample_sessions" / "project")])
    assert sum(1 for r in rules if r.source is not None and r.source.provider == "builtin-defaults") >= 20
    paths = [str(p) for p in SAMPLES]
    paths += [_truncated(p, tmp_path / f"head-{p.name}", 260) for p in REAL]
    with_skip = backtest_outcomes(paths, rules, True, monkeypatch)
    full = backtest_outcomes(paths, rules, False, monkeypatch)
    assert with_skip == full
    assert sum(len(o.hits) for o in full) > 5
