"""Seeded generators of coordinator cases: rules, settings, an edit mode and a recorded stream, as JSON.

One case is one agent session of a few turns: prose and reasoning deltas, tool calls of every edit
mode (``hashline``, ``apply_patch``, ``patch``, ``replace``, ``sloppy``), ``write`` and tools without
matcher hooks, their results, stop reasons (a few aborted or failed messages), user messages between
turns; rules with conditions the stream can hit, scopes, globs, ``interruptMode`` overrides, ``agents:``
patterns, a few ast-grep conditions and judged questions (a judge answering yes or no, or none),
descriptions and bodies of one or several lines, files inside the project, under the home
folder and elsewhere; settings with every interrupt, context and repeat mode.

The same JSON goes to the reference (``harness/coordinator_oracle.ts``) and to the workbench
(``workbench_coordinator.py``). Two things the reference's coordinator does not compute itself are
given with each event, computed by the workbench: the arguments parsed so far (pi-ai's streaming JSON
parse, not installed) and the edit tool's inspection of them (pi-natives' ``editInspect``, not
published); README "Coordinator differential" says so.
"""

from __future__ import annotations

import json
import random
from typing import Any

from workbench.edits.view import inspect
from workbench.replay.engine import parse_partial

CWD = "/w/proj"
HOME = "/home/dev"
EDIT_MODES = ("hashline", "apply_patch", "patch", "replace", "sloppy")

HITS = ["console.log(", "TODO", "foo", "print(", "HACK", "hack", "eval("]
PLAIN = ["the", "value", "ok", "let", "x", "=", "1;", "done", "bar", "return", "fix"]
CONDITIONS = [r"console\.log\(", "TODO", r"\bfoo\b", r"print\(", "(?i)hack", r"eval\(", "*.ts", "*.py",
              r"TODO|HACK", r"^\s*print\("]
SCOPES: list[Any] = [None, None, ["text"], ["thinking"], ["tool"], ["tool:edit(*.ts)"], ["tool:write(*.py)"],
                     ["tool:edit"], ["tool:bash"], ["text", "tool:edit(src/**)"], ["tool:apply_patch(*.ts)"],
                     ["thinking", "text"], "text, tool:write", ["tool:edit(*.py)", "tool:write(*.ts)"]]
GLOBS: list[Any] = [None, None, None, ["*.ts"], ["src/**"], "*.py"]
INTERRUPTS: list[Any] = [None, None, None, "never", "prose-only", "tool-only", "always"]
AGENTS: list[Any] = [None, None, None, "main", "sub", ["scout"], "main, sub", "s*", ["task-*"]]
DESCRIPTIONS: list[Any] = [None, None, "Keep logs out of shipped code.", "One line.\nTwo lines.\nThree lines.",
                           "  padded  ", ""]
FILES = ["src/a.ts", "src/b.py", "lib/c.ts", "README.md", "./src/d.ts", "/w/proj/src/e.py", "../other/f.ts"]


class _Rng(random.Random):
    """A seeded generator with the case's share of words that rules can hit."""

    density = 0.25


def _line(rng: random.Random) -> str:
    density = getattr(rng, "density", 0.25)
    words = [rng.choice(HITS) if rng.random() < density else rng.choice(PLAIN) for _ in range(rng.randint(1, 5))]
    return " ".join(words)


def _lines(rng: random.Random, lo: int = 1, hi: int = 3) -> list[str]:
    return [_line(rng) for _ in range(rng.randint(lo, hi))]


def _plus(rows: list[str]) -> str:
    return "".join(f"+{r}\n" for r in rows)


def _edit_args(rng: random.Random, mode: str) -> dict[str, Any]:
    files = rng.sample(FILES, rng.randint(1, 2))
    if mode == "hashline":
        parts = ["*** Begin Patch\n"]
        for f in files:
            parts.append(f"[{f}#{rng.randrange(16**4):04X}]\n")
            op = rng.choice(["range", "append", "before", "cut", "rem"])
            if op == "range":
                n = rng.randint(1, 9)
                parts.append(f"PUT {n}.={n + rng.randint(0, 2)}:\n" + _plus(_lines(rng)))
            elif op == "append":
                parts.append("PUT >$:\n" + _plus(_lines(rng)))
            elif op == "before":
                parts.append(f"PUT <{rng.randint(1, 9)}:\n" + _plus(_lines(rng)))
            elif op == "cut":
                parts.append(f"CUT {rng.randint(1, 5)}.={rng.randint(6, 9)}\n")
            else:
                parts.append("REM\n")
        parts.append("*** End Patch\n")
        return {"input": "".join(parts)}
    if mode == "apply_patch":
        parts = ["*** Begin Patch\n"]
        for f in files:
            op = rng.choice(["add", "update", "delete"])
            if op == "add":
                parts.append(f"*** Add File: {f}\n" + _plus(_lines(rng)))
            elif op == "update":
                parts.append(f"*** Update File: {f}\n@@\n-{_line(rng)}\n" + _plus(_lines(rng)))
            else:
                parts.append(f"*** Delete File: {f}\n")
        parts.append("*** End Patch\n")
        return {"input": "".join(parts)}
    if mode == "patch":
        op = rng.choice(["update", "update", "create", "delete"])
        edit: dict[str, Any] = {"op": op}
        if op == "update":
            edit["diff"] = f"@@\n-{_line(rng)}\n" + _plus(_lines(rng))
        elif op == "create":
            edit["diff"] = "\n".join(_lines(rng)) + "\n"
        return {"path": files[0], "edits": [edit]}
    if mode == "replace":
        if rng.random() < 0.5:
            return {"path": files[0], "old_string": _line(rng), "new_string": "\n".join(_lines(rng))}
        return {"path": files[0], "edits": [{"old_string": _line(rng), "new_string": "\n".join(_lines(rng))}
                                            for _ in range(rng.randint(1, 2))]}
    parts = []
    for f in files:
        parts.append(f"*** Edit File: {f}\n*** Find\n{_line(rng)}\n")
        parts.append(rng.choice(["*** Replace\n", "*** Insert After\n", "*** Insert Before\n"]))
        parts.append("".join(f"{r}\n" for r in _lines(rng)))
    return {"input": "".join(parts)}


def _surface(mode: str, args: Any, *, final: bool) -> dict[str, Any]:
    found = inspect(mode, args, final=final)
    return {"paths": list(found.paths), "entries": [{"path": e.path, "digest": e.digest} for e in found.entries]}


def _cut(rng: random.Random, text: str) -> list[str]:
    out, i = [], 0
    while i < len(text):
        n = rng.choice([1, 2, 3, 5, 8, 13, 21, 40])
        out.append(text[i:i + n])
        i += n
    return out or [""]


def _tool_call(rng: random.Random, mode: str, turn: int, k: int, index: int) -> tuple[list[dict[str, Any]], str, str]:
    kind = rng.choice(["edit", "edit", "edit", "write", "bash", "read"])
    if kind == "edit":
        name = "apply_patch" if mode == "apply_patch" and rng.random() < 0.5 else "edit"
        args = _edit_args(rng, mode)
    elif kind == "write":
        name, args = "write", {"path": rng.choice(FILES), "content": "\n".join(_lines(rng, 1, 4))}
    elif kind == "bash":
        name, args = "bash", {"command": _line(rng)}
    else:
        name, args = "read", {"path": rng.choice(FILES)}
    call_id = "" if rng.random() < 0.05 else f"call_{turn}_{k}"
    events: list[dict[str, Any]] = [{"type": "toolcall_start", "contentIndex": index, "id": call_id, "name": name}]
    text = json.dumps(args, ensure_ascii=False)
    acc = ""
    hooks = name == "edit" or (name == "apply_patch" and mode == "apply_patch")
    for piece in _cut(rng, text):
        acc += piece
        partial = parse_partial(acc)
        ev: dict[str, Any] = {"type": "toolcall_delta", "contentIndex": index, "delta": piece, "args": partial}
        if hooks:
            ev["surface"] = _surface(mode, partial, final=False)
        events.append(ev)
    end: dict[str, Any] = {"type": "toolcall_end", "contentIndex": index, "arguments": args}
    if hooks:
        end["surface"] = _surface(mode, args, final=True)
    events.append(end)
    return events, call_id, name


def _prose(rng: random.Random, kind: str, index: int) -> list[dict[str, Any]]:
    text = " ".join(_line(rng) for _ in range(rng.randint(1, 4)))
    return [{"type": f"{kind}_delta", "contentIndex": index, "delta": piece} for piece in _cut(rng, text)]


def _rules(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(rng.randint(1, 5)):
        name = f"rule-{i}"
        fm: dict[str, Any] = {"condition": rng.sample(CONDITIONS, rng.randint(1, 2))}
        roll = rng.random()
        if roll < 0.12:  # an ast-grep rule (edit/write snapshots of .ts files)
            fm = {"astCondition": rng.choice(["console.log($A)", "eval($$$)", "print($A)"])}
        elif roll < 0.24:  # a judged rule, sometimes with a condition that gates the question
            fm = {"question": rng.choice(["Does this log to the console?", "Is a TODO left behind?"])}
            if rng.random() < 0.4:
                fm["condition"] = rng.sample(CONDITIONS, 1)
        for key, pool in (("scope", SCOPES), ("globs", GLOBS), ("interruptMode", INTERRUPTS), ("agents", AGENTS),
                          ("description", DESCRIPTIONS)):
            value = rng.choice(pool)
            if value is not None:
                fm[key] = value
        where = rng.choice([f"{CWD}/.omp/rules", f"{HOME}/.omp/agent/rules", "/opt/rules", f"{CWD}/../shared",
                            f"{CWD}2/rules", f"{HOME}x/rules", f"{CWD}/./a/../rules"])
        body = "\n".join(_lines(rng, 1, 4))
        if rng.random() < 0.2:
            body = f"\n  {body}\n\n"
        out.append({"name": name, "path": f"{where}/{name}.md", "body": body, "frontmatter": fm,
                    "provider": "builtin-defaults" if rng.random() < 0.1 else "native"})
    return out


def _settings(rng: random.Random, names: list[str]) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "interruptMode": rng.choice(["always", "always", "never", "prose-only", "tool-only"]),
        "contextMode": rng.choice(["discard", "keep"]),
        "repeatMode": rng.choice(["once", "after-gap"]),
        "repeatGap": rng.randint(0, 3),
    }
    if rng.random() < 0.15:
        settings["disabledRules"] = [rng.choice(names)]
    if rng.random() < 0.1:
        settings["builtinRules"] = False
    return settings


def _stream(rng: random.Random, mode: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "user_message", "content": "please " + _line(rng)}]
    for turn in range(rng.randint(1, 4)):
        if turn and rng.random() < 0.2:
            events.append({"type": "user_message", "content": _line(rng)})
        events.append({"type": "turn_start"})
        events.append({"type": "message_start", "role": "assistant", "timestamp": 1000 * (turn + 1)})
        index = 0
        if rng.random() < 0.4:
            events += _prose(rng, "thinking", index)
            index += 1
        if rng.random() < 0.7:
            events += _prose(rng, "text", index)
            index += 1
        calls = []
        for k in range(rng.choice([0, 1, 1, 2])):
            evs, call_id, name = _tool_call(rng, mode, turn, k, index)
            events += evs
            calls.append((call_id, name))
            index += 1
        roll = rng.random()
        stop = "error" if roll < 0.04 else "aborted" if roll < 0.08 else "toolUse" if calls else "stop"
        end: dict[str, Any] = {"type": "message_end", "stopReason": stop}
        if stop in ("error", "aborted"):
            end["errorMessage"] = "provider went away"
        events.append(end)
        if stop == "toolUse":
            for call_id, name in calls:
                events.append({"type": "tool_result", "toolCallId": call_id, "toolName": name,
                               "content": [{"type": "text", "text": f"{name} ok"}], "isError": False})
        events.append({"type": "turn_end"})
    return events


def coordinator_case(seed: int) -> dict[str, Any]:
    rng = _Rng(seed)
    rng.density = rng.choice([0.1, 0.25, 0.25, 0.5])
    mode = EDIT_MODES[seed % len(EDIT_MODES)]
    rules = _rules(rng)
    return {
        "seed": seed,
        "cwd": CWD,
        "home": HOME,
        "editMode": mode,
        # The workbench reads the calls in the agent's mode, or detects it from each call (auto).
        "workbenchEditMode": "auto" if rng.random() < 0.5 else mode,
        "agentName": rng.choice(["main", "main", "sub", "scout"]),
        # The judge of judged rules: answers every question yes, or no, or there is none.
        "judge": rng.choice(["yes", "yes", "no", None]),
        "settings": _settings(rng, [r["name"] for r in rules]),
        "rules": rules,
        "events": _stream(rng, mode),
    }


def ast_early_case(seed: int) -> dict[str, Any]:
    """A session where an ast-grep rule's pattern is complete mid-call: a write to a ``.ts`` file whose
    content opens with ``console.log(...)`` and goes on. The agent checks ast-grep conditions only on the
    finished call, so the rule must fire at ``toolcall_end`` (the call then gets a placeholder result),
    not at the delta where the partial content first parses as the pattern."""
    rng = _Rng(seed)
    content = f"console.log({rng.choice(['1', 'x', 'a + b'])});\n" + "\n".join(_lines(rng, 2, 4))
    args = {"path": rng.choice(["src/a.ts", "lib/c.ts"]), "content": content}
    events: list[dict[str, Any]] = [{"type": "user_message", "content": "write it"}, {"type": "turn_start"},
                                    {"type": "message_start", "role": "assistant", "timestamp": 1000},
                                    {"type": "toolcall_start", "contentIndex": 0, "id": "call_0_0", "name": "write"}]
    acc = ""
    for piece in _cut(rng, json.dumps(args)):
        acc += piece
        events.append({"type": "toolcall_delta", "contentIndex": 0, "delta": piece, "args": parse_partial(acc)})
    events += [{"type": "toolcall_end", "contentIndex": 0, "arguments": args},
               {"type": "message_end", "stopReason": "toolUse"},
               {"type": "tool_result", "toolCallId": "call_0_0", "toolName": "write",
                "content": [{"type": "text", "text": "write ok"}], "isError": False},
               {"type": "turn_end"}]
    rule = {"name": "no-console", "path": f"{CWD}/.omp/rules/no-console.md", "body": "Use the logger.",
            "frontmatter": {"astCondition": "console.log($A)"}, "provider": "native"}
    return {"seed": seed, "cwd": CWD, "home": HOME, "editMode": "hashline", "workbenchEditMode": "auto",
            "agentName": "main", "judge": None, "settings": {"interruptMode": "always"}, "rules": [rule],
            "events": events}


def judged_order_case(seed: int) -> dict[str, Any]:
    """One finished message with an edit call, a tool call without hooks and a reply, and judged rules a
    yes-judge flags on all of them (the case ``replay.judged-verdict-order`` is about)."""
    rng = _Rng(seed)
    events: list[dict[str, Any]] = [{"type": "user_message", "content": "go"}, {"type": "turn_start"},
                                    {"type": "message_start", "role": "assistant", "timestamp": 1000}]
    calls = []
    for k, (name, args) in enumerate((("edit", _edit_args(rng, "hashline")), ("bash", {"command": _line(rng)}))):
        evs = [{"type": "toolcall_start", "contentIndex": k, "id": f"call_0_{k}", "name": name}]
        acc = ""
        for piece in _cut(rng, json.dumps(args)):
            acc += piece
            partial = parse_partial(acc)
            ev: dict[str, Any] = {"type": "toolcall_delta", "contentIndex": k, "delta": piece, "args": partial}
            if name == "edit":
                ev["surface"] = _surface("hashline", partial, final=False)
            evs.append(ev)
        end: dict[str, Any] = {"type": "toolcall_end", "contentIndex": k, "arguments": args}
        if name == "edit":
            end["surface"] = _surface("hashline", args, final=True)
        events += [*evs, end]
        calls.append((f"call_0_{k}", name))
    events += _prose(rng, "text", 2)
    events.append({"type": "message_end", "stopReason": "toolUse"})
    events += [{"type": "tool_result", "toolCallId": cid, "toolName": name, "content": [{"type": "text", "text": "ok"}],
                "isError": False} for cid, name in calls]
    events.append({"type": "turn_end"})
    rules = [{"name": f"judged-{i}", "path": f"{CWD}/.omp/rules/judged-{i}.md", "body": "Check it.",
              "frontmatter": {"question": "Is this wrong?", "scope": scope}, "provider": "native"}
             for i, scope in enumerate((["tool", "text"], ["tool:edit", "tool:bash"]))]
    return {"seed": seed, "cwd": CWD, "home": HOME, "editMode": "hashline", "workbenchEditMode": "auto",
            "agentName": "main", "judge": "yes", "settings": {}, "rules": rules, "events": events}
