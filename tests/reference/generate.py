"""Seeded generators of engine cases: rules, settings and op sequences, as plain JSON.

The same JSON goes to the reference (``harness/oracle.ts``) and to the workbench
(``workbench_side.py``). Values are drawn from pools built to reach the engine's edges: JavaScript
regex syntax Python's ``re`` reads differently (Annex B braces, ``\\u{..}`` without the u flag,
``[^]``, ``\\Z``, named back-references, lookbehind), the leading-flag translation, invalid
patterns, scope tokens of every shape, Bun globs, Windows paths, repeat modes, gaps, stream keys.
AST conditions run in their own cases (``ast_case``) on the languages the oracle's ast-grep binding has built in.
"""

from __future__ import annotations

import random
from typing import Any

PATTERNS = [
    r"foo", r"\bfoo\b", r"(?i)foo", r"(?im)^bar$", r"(?s)foo.bar", r"(?m)^TODO", r"(?x)foo",
    r"(?i)(?m)foo", r"(?ii)foo", r"(?-i)foo", r"(?q)foo", r"console\.log\(", r"\d{3,}", r"a{2,}",
    r"a{", r"x{1,2", r"}", r"]", r"[^]", r"[^]x", r"\u{2}", r"u{2}", r"\u0041B", r"\p{L}", r"p{L}",
    r"\Z", r"\A", r"\z", r"(?<n>ab)\k<n>", r"\k<n>", r"(?<=foo)bar", r"(?<!foo)bar", r"\bbar(?=!)",
    r"[\s\S]{0,20}?baz", r"^(?=[\s\S]*foo)(?=[\s\S]*bar)", r"foo|bar", r"(foo|bar)+!", r"\cJ",
    r"\x41", r"\101", r"\1(a)", r"(a)\1", r"\/", r"[a-", r"(", r"*a", r"(?P<n>x)", r"(?<n>x)(?<n>y)",
    r"\w+!\.\w+", r"(?i)straße", r"ß", r"😀", r".😀", r"^$", r"\n\n", r"\t", r"[\b]", r"\B",
    r"(?i)[a-z]{4}\d", r"TODO\(\w+\)", r"$", r"(?s)<x>.{0,30}?</x>", r"\$\{", r"\.{3}", r"[😀-😂]",
    r"(?i)k", r"(?i)\u212a", r"(?i)\w{3}", r"a.b", r"foo.bar", r"\s\S", r"[\W]", r"(?i)[^a-z]z",
    r"(?i)é", r"\u00e9", r"(?i)ss", r"^\s*$", r"(?m)\s$", r"(?<=\s)\d+",
]

WORDS = [
    "foo", "bar", "FOO", "Bar", "baz", "TODO(me)", "TODO", "console.log(", "x", "a", "aa", "aaa",
    "ab", "abab", "!", " ", "  ", "\n", "\t", "\r\n", "123", "4567", "A", "AB", "Z", "z", "u", "uu",
    "{", "}", "]", "[", "p{L}", "L", "ß", "STRASSE", "straße", "😀", "😁", "\u00e9", "e\u0301", "<x>",
    "</x>", "${", "...", "/", "\\", "foo!", "bar!", "obj!.prop", "\u2028", "\u00a0", "J", "\x0a",
    "\u212a", "K", "k", "\ufeff", "\u2029", "a\u2028b", "É", "ſ", "fooXbar", "foo\nbar",
]

SCOPE_TOKENS = [
    "text", "thinking", "tool", "toolcall", "TEXT", " text ", "Thinking", "tool:edit", "tool:bash",
    "edit", "bash", "write", "tool:Edit", "tool:edit(*.ts)", "tool:write(src/**)", "edit(src/*.py)",
    "bash(*.sh)", "tool(*.py)", "tool:", "tool:edit()", "bad token!", "", "  ", "tool:edit(**/*.{ts,tsx})",
    "tool:edit(src\\a.ts)", "tool:read(*.md)", "toolcall:edit", "tool:edit (*.ts)",
]

GLOBS = [
    "*.ts", "src/**", "**/*.py", "{a,b}.md", "src/*.{ts,tsx}", "!*.ts", "", "  ", "[ab].js", "*",
    "**", "lib/**/*.rs", "?.md", "src/a.ts", "*.TS", " *.py ", "src\\a.ts", "**/b.*",
]

PATHS = [
    "src/a.ts", "src/b.tsx", "src\\win\\c.py", "a.md", "b.md", "lib/x/y.rs", "d.js", "e.sh",
    "README.md", "src/deep/er/f.py", "/abs/src/g.ts", "./src/h.ts", "c.TS", "",
]

TOOL_NAMES = ["edit", "write", "bash", "Edit", " edit ", "read", None]


def _rule(rng: random.Random, name: str, *, question: bool = False) -> dict[str, Any]:
    rule: dict[str, Any] = {"name": name, "path": f"/rules/{name}.md", "content": f"body of {name}"}
    if question:
        rule["question"] = rng.choice(["Is this output wrong?", "  Does it leak a secret?  ", "", "  "])
        if rng.random() < 0.5:
            rule["condition"] = [rng.choice(PATTERNS) for _ in range(rng.randint(1, 2))]
    else:
        rule["condition"] = [rng.choice(PATTERNS) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.6:
        rule["scope"] = [rng.choice(SCOPE_TOKENS) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.25:
        rule["globs"] = [rng.choice(GLOBS) for _ in range(rng.randint(0, 2))]
    return rule


def _ctx(rng: random.Random) -> dict[str, Any]:
    source = rng.choices(["text", "thinking", "tool"], weights=(5, 2, 3))[0]
    ctx: dict[str, Any] = {"source": source}
    if source == "tool" or rng.random() < 0.1:
        tool = rng.choice(TOOL_NAMES)
        if tool is not None:
            ctx["toolName"] = tool
    if rng.random() < 0.5:
        ctx["filePaths"] = rng.sample(PATHS, rng.randint(0, 2))
    if rng.random() < 0.15:
        ctx["streamKey"] = rng.choice(["call-1", "call-2", "  ", ""])
    return ctx


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(WORDS) for _ in range(n))


def _settings(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.3:
        return None
    settings: dict[str, Any] = {"repeatMode": rng.choice(["once", "after-gap"])}
    if rng.random() < 0.7:
        settings["repeatGap"] = rng.choice([0, 1, 2, 3])
    if rng.random() < 0.04:
        settings["enabled"] = False
    return settings


def engine_case(seed: int) -> dict[str, Any]:
    """One manager session: rules registered, then a stream of deltas with the agent's calls."""
    rng = random.Random(seed)
    names = [f"r{i}" for i in range(rng.randint(1, 6))]
    if rng.random() < 0.15:
        names.append(names[0])  # a duplicate name: first registration kept
    ops: list[dict[str, Any]] = [{"op": "addRule", "rule": _rule(rng, n)} for n in names]
    ops.append({"op": "getRules"})
    ctxs = [_ctx(rng) for _ in range(rng.randint(1, 4))]
    # Restores only in one case in ten: a listed deviation claims every case that has one.
    restores = rng.random() < 0.1
    for _ in range(rng.randint(5, 40)):
        roll = rng.random()
        if roll < 0.70:
            ops.append({"op": "checkDelta", "delta": _text(rng, rng.randint(0, 4)), "ctx": rng.choice(ctxs)})
        elif roll < 0.76:
            ops.append({"op": "checkSnapshot", "snapshot": _text(rng, rng.randint(0, 12)), "ctx": rng.choice(ctxs)})
        elif roll < 0.84:
            # What the agent does after a match: mark the matched rules injected (names as given).
            ops.append({"op": "markInjectedByNames", "names": rng.sample(names + [" r0 ", ""], rng.randint(1, 2))})
        elif roll < 0.90:
            ops.append({"op": "incrementMessageCount"})
        elif roll < 0.94:
            ops.append({"op": "resetBuffer"})
        elif roll < 0.96 and restores:
            ops.append({"op": "restoreInjected", "names": rng.sample(names, rng.randint(0, len(names)))})
        else:
            ops.append({"op": rng.choice(["getInjectedRuleNames", "getMessageCount", "hasRules"])})
    ops.append({"op": "getInjectedRuleNames"})
    return {"kind": "engine", "settings": _settings(rng), "ops": ops}


def judged_case(seed: int) -> dict[str, Any]:
    """Judged rules among stream rules: candidates per completed output, claims, hot reload."""
    rng = random.Random(seed)
    names = [f"j{i}" for i in range(rng.randint(1, 5))]
    rules = [_rule(rng, n, question=rng.random() < 0.7) for n in names]
    ops: list[dict[str, Any]] = [{"op": "addRule", "rule": r} for r in rules]
    ops += [{"op": "hasJudgedRules"}, {"op": "getRules"}]
    for _ in range(rng.randint(3, 20)):
        roll = rng.random()
        if roll < 0.45:
            ops.append({"op": "judgedCandidates", "content": _text(rng, rng.randint(0, 12)), "ctx": _ctx(rng)})
        elif roll < 0.55:
            ops.append({"op": "checkDelta", "delta": _text(rng, rng.randint(0, 4)), "ctx": _ctx(rng)})
        elif roll < 0.70:
            ops.append({"op": "claim", "names": rng.sample(names, rng.randint(0, len(names)))})
        elif roll < 0.82:
            ops.append({"op": "incrementMessageCount"})
        elif roll < 0.90:
            keep = rng.sample(rules, rng.randint(0, len(rules)))
            fresh = [_rule(rng, f"k{rng.randint(0, 3)}", question=rng.random() < 0.6) for _ in range(rng.randint(0, 2))]
            ops.append({"op": "replaceRules", "rules": keep + fresh})
        else:
            ops.append({"op": rng.choice(["getInjectedRuleNames", "hasJudgedRules", "hasRules"])})
    ops.append({"op": "getInjectedRuleNames"})
    return {"kind": "engine", "settings": _settings(rng), "ops": ops}


AST_PATTERNS = [
    "console.log($A)", "$X as any", "debugger", "eval($$$)", "var $A = $B", "let $A = $B", "(((", "",
    "  ", "$A.unwrap()", "<div>$$$</div>", "color: red", "function $F($$$) { $$$ }", "$A == null",
]
# Per language family, whole statements (joined by newlines, so every snapshot parses cleanly) and
# paths. Malformed sources are left out on purpose: ast-grep-py 0.51.0 and @ast-grep/napi 0.51.0
# bundle JavaScript grammars that recover differently (`<div>hi</div>debugger;` is one expression
# statement in one, an expression then a debugger statement in the other), which says nothing
# about the manager and nothing about the agent's own native binding.
AST_FAMILIES: dict[str, tuple[list[str], list[str]]] = {
    "js": (["console.log(x);", "eval(code);", "var a = 1;", "let b = 2;", "debugger;", "if (v == null) {}",
            "function f(a, b) { return a; }", "x.unwrap();", "/* c */"],
           ["lib/c.js", "d.mjs", "src/a.ts", "g.foo", "notes.txt", "Makefile", ""]),
    "ts": (["const y = z as any;", "console.log(x);", "debugger;", "let b = 2;", "function f(a, b) { return a; }",
            "x.unwrap();"],
           ["src/a.ts", "src/b.tsx", "x.mts", "g.foo", ""]),
    "tsx": (["const el = <div>hi</div>;", "console.log(x);", "debugger;", "const y = z as any;"],
            ["src/b.tsx", "g.foo", ""]),
    "css": ([".a { color: red; }", "b { margin: 0; }", "/* c */"], ["e.css", "g.foo", ""]),
    "html": (["<div>hi</div>", "<p>text</p>", "<!-- c -->"], ["f.html", "page.htm", "g.foo", ""]),
}


def ast_case(seed: int, *, judged: bool = False) -> dict[str, Any]:
    """AST conditions on edit/write snapshots: language from the path, throttle, gates; with
    ``judged``, judged rules whose AST condition pre-filters the candidates as well."""
    rng = random.Random(seed)
    names = [f"a{i}" for i in range(rng.randint(1, 4))]
    ops: list[dict[str, Any]] = []
    for name in names:
        rule = {"name": name, "path": f"/rules/{name}.md", "content": "",
                "astCondition": [rng.choice(AST_PATTERNS) for _ in range(rng.randint(1, 2))]}
        if rng.random() < 0.3:
            rule["condition"] = [rng.choice(PATTERNS)]
        if judged and rng.random() < 0.5:
            rule["question"] = "Is this edit wrong?"
        if rng.random() < 0.5:
            rule["scope"] = [rng.choice(["tool:edit(*.ts)", "tool:write", "tool", "edit(*.{js,tsx})", "text"])]
        if rng.random() < 0.2:
            rule["globs"] = [rng.choice(["src/**", "*.css", "**/*.ts"])]
        ops.append({"op": "addRule", "rule": rule})
    ops.append({"op": "hasAstRules"})
    snippets, paths = AST_FAMILIES[rng.choice(sorted(AST_FAMILIES))]
    snapshot = ""
    for _ in range(rng.randint(3, 25)):
        ctx = {"source": rng.choices(["tool", "text"], weights=(9, 1))[0], "toolName": rng.choice(["edit", "write", "bash"]),
               "filePaths": rng.sample(paths, rng.randint(0, 2))}
        roll = rng.random()
        if roll < 0.55:
            if rng.random() < 0.7:  # the snapshot grows, or stays the same (the throttle's case)
                snapshot += "".join(rng.choice(snippets) + "\n" for _ in range(rng.randint(0, 2)))
            ops.append({"op": "checkAstSnapshot", "snapshot": snapshot, "ctx": ctx})
        elif roll < 0.7:
            if judged:
                ops.append({"op": "judgedCandidates", "content": snapshot, "ctx": ctx})
            else:
                ops.append({"op": "checkSnapshot", "snapshot": snapshot, "ctx": ctx})
        elif roll < 0.8:
            ops.append({"op": "markInjectedByNames", "names": rng.sample(names, 1)})
        elif roll < 0.9:
            ops.append({"op": "resetBuffer"})
        else:
            ops.append({"op": "incrementMessageCount"})
    return {"kind": "engine", "settings": _settings(rng), "ops": ops}
