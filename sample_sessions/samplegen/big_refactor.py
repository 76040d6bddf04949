"""``big-refactor.jsonl``: a ~1,000-entry oh-my-pi session for UI performance demos.

A long, realistic-shaped refactor (callback-style database calls → async/await, module by module),
generated from templates with ``random.Random(SEED)``: reads, edits, test runs (some failing and
then fixed), thinking blocks, a handful of abandoned attempts (branches, some with a branch summary),
milestone labels, model switches, compactions and a few TTSR tool reminders.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone

from .project import CWD, rule_body
from .session import Session
from .templates import render_reminder

SEED = 20260917
TARGET_ENTRIES = 1000

MODULES = [
    "users", "billing", "invoices", "sessions", "tokens", "reset", "audit", "webhooks", "plans", "coupons",
    "teams", "invites", "exports", "imports", "reports", "search", "settings", "quotas", "health", "admin",
    "notifications", "api-keys", "devices", "emails", "metrics", "payouts", "refunds", "taxes",
]
VERBS = ["find", "list", "create", "update", "remove", "count"]
NOUN = {m: m.rstrip("s").replace("-", "_") for m in MODULES}

THOUGHTS = [
    "The callback signature threads errors manually; with async the try/catch moves to the route layer.",
    "Keep the exported names stable so callers only need `await` added.",
    "Check callers before changing the return type; a Promise leaking into a sync caller would break silently.",
    "The test double for db still uses callbacks, so the tests need the async fake from tests/fakes.ts.",
    "This module has its own retry loop around the callback; `withRetry` from src/db/retry.ts replaces it.",
    "Transactions: the callback version nests three levels; with async it becomes a straight sequence.",
]


def _callback_fn(module: str, verb: str) -> str:
    noun = NOUN[module]
    cap = noun[:1].upper() + noun[1:].replace("_", "")
    return (
        f"export function {verb}{cap}(query: {cap}Query, cb: (err: Error | null, result?: {cap}[]) => void): void {{\n"
        f"  db.{noun}s.{verb}(query, (err, rows) => {{\n"
        "    if (err) return cb(err);\n"
        "    cb(null, rows.map(fromRow));\n"
        "  });\n"
        "}\n"
    )


def _async_fn(module: str, verb: str) -> str:
    noun = NOUN[module]
    cap = noun[:1].upper() + noun[1:].replace("_", "")
    return (
        f"export async function {verb}{cap}(query: {cap}Query): Promise<{cap}[]> {{\n"
        f"  const rows = await db.{noun}s.{verb}(query);\n"
        "  return rows.map(fromRow);\n"
        "}\n"
    )


class _Refactor:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.s = Session(
            key="big-refactor",
            session_id="0199b7a2-55e0-7c1d-a4f3-81e9d2b60c47",
            cwd=CWD,
            start=datetime(2026, 9, 17, 7, 45, 0, tzinfo=timezone.utc),
            flavour="omp",
            header_extra={"title": "Migrate db layer to async/await", "titleSource": "auto"},
        )
        self.tokens = 6000
        self.reminded = 0

    def think(self) -> str | None:
        return self.rng.choice(THOUGHTS) if self.rng.random() < 0.45 else None

    def tool(self, name: str, args: dict, result: str, *, text: str | None = None, is_error: bool = False) -> str:
        self.tokens += self.rng.randint(300, 1400)
        _, (cid,) = self.s.assistant(
            thinking=self.think(), text=text, calls=[(name, args)], usage_in=self.tokens, after=self.rng.uniform(3, 14)
        )
        return self.s.tool_result(cid, name, result, is_error=is_error, after=self.rng.uniform(0.3, 9))

    def module(self, folder: str, module: str, prompt: str | None = None) -> str:
        """Migrate one module; returns the id of its last entry."""
        rng, s = self.rng, self.s
        path = f"src/{folder}/{module}.ts"
        verbs = rng.sample(VERBS, rng.randint(2, 4))
        body = 'import { db } from "../db";\nimport { fromRow } from "../db/rows";\n\n' + "\n".join(
            _callback_fn(module, v) for v in verbs
        )
        choices = [f"Next: {path}.", f"Now do {folder}/{module}.", f"Continue with {path}.", f"{folder}/{module} next, same pattern."]
        s.user(prompt or rng.choice(choices), after=rng.uniform(10, 90))
        self.tool("read", {"path": path}, body, text=rng.choice([None, f"Reading `{path}`."]))
        for verb in verbs:
            args = {"path": path, "old_string": _callback_fn(module, verb), "new_string": _async_fn(module, verb)}
            if rng.random() < 0.03 and self.reminded < 5:
                # The model slipped a console.log into an edit: rule no-console-log (never) folded a reminder.
                args["new_string"] = args["new_string"].replace("  return rows", '  console.log("rows", rows.length);\n  return rows')
                self.tokens += 900
                _, (cid,) = s.assistant(calls=[("edit", args)], usage_in=self.tokens, after=rng.uniform(4, 12))
                s.ttsr_injection(["no-console-log"])
                reminder = render_reminder("no-console-log", ".omp/rules/no-console-log.md", rule_body(".omp/rules/no-console-log.md"))
                s.tool_result(cid, "edit", [{"type": "text", "text": reminder}, {"type": "text", "text": f"Successfully replaced 1 occurrence in {path}."}])
                self.reminded += 1
            else:
                self.tool("edit", args, f"Successfully replaced 1 occurrence in {path}.")
        callers = rng.randint(1, 4)
        listing = "\n".join(f"src/{rng.choice(['jobs', 'api', 'cli', 'routes'])}/{rng.choice(MODULES)}.ts:{rng.randint(5, 240)}" for _ in range(callers))
        self.tool("bash", {"command": f"rg -n '{verbs[0]}{NOUN[module][:1].upper()}' src"}, listing)
        failing = rng.random() < 0.3
        if failing:
            self.tool(
                "bash",
                {"command": f"npm test -- --run {folder}/{module}"},
                f" ✗ tests/{folder}/{module}.test.ts > {verbs[0]} returns rows\n   TypeError: cb is not a function\n\n Tests  1 failed | {rng.randint(4, 20)} passed\n\nexit code: 1",
                is_error=True,
            )
            self.tool(
                "edit",
                {"path": f"tests/{folder}/{module}.test.ts", "old_string": f"{verbs[0]}(q, (err, rows) => {{", "new_string": f"const rows = await {verbs[0]}(q);\n{{"},
                f"Successfully replaced 1 occurrence in tests/{folder}/{module}.test.ts.",
                text="The test still calls the callback form; updating it.",
            )
        self.tool("bash", {"command": f"npm test -- --run {folder}/{module}"}, f" ✓ tests/{folder}/{module}.test.ts ({rng.randint(5, 24)} tests)\n\nexit code: 0")
        last, _ = s.assistant(
            text=rng.choice(
                [f"`{module}` is migrated; its tests pass.", f"Done with `{path}`.", f"`{path}` now uses async/await throughout."]
            ),
            usage_in=self.tokens,
        )
        return last

    def build(self) -> Session:
        rng, s = self.rng, self.s
        s.model_change("anthropic", "claude-sonnet-4-5", role="default")
        s.thinking_level("medium")
        s.user(
            "The db client now supports promises. Migrate src/routes/* and then src/jobs/* from callbacks to "
            "async/await, one module at a time, keeping exported names. Run each module's tests as you go.",
            after=3,
        )
        self.tool("bash", {"command": "ls src/routes src/jobs"}, "\n".join(f"{m}.ts" for m in MODULES))
        compactions = 0
        work = [("routes", m) for m in MODULES] + [("jobs", m) for m in MODULES]
        for i, (folder, module) in enumerate(work):
            if len(s.entries) >= TARGET_ENTRIES - 30:
                break
            if i == len(MODULES):
                s.user("Routes are done. Same for src/jobs now.", after=120)
            before = s.leaf
            last = self.module(folder, module)
            if i % 5 == 2:
                s.label(last, f"{folder}/{module}-done")
            if rng.random() < 0.15 and before:
                # The user did not like the result: back to before the module, maybe with a summary.
                if rng.random() < 0.5:
                    s.branch_with_summary(
                        before,
                        f"Migrated {folder}/{module} but changed its exported signatures; callers in src/api broke. "
                        "Redo keeping the names and parameter order.",
                        details={"readFiles": [f"src/{folder}/{module}.ts"], "modifiedFiles": [f"src/{folder}/{module}.ts"]},
                    )
                else:
                    s.branch(before)
                last = self.module(folder, module, f"Redo {folder}/{module}, but keep the exported names and parameter order exactly.")
            if i == 9:
                s.model_change("anthropic", "claude-haiku-4-5", role="default")
            elif i == 21:
                s.model_change("anthropic", "claude-sonnet-4-5", role="default")
                s.thinking_level("high")
            if len(s.entries) > 330 * (compactions + 1):
                keep = s.user("Carry on.", after=30)
                done = [f"src/{f}/{m}.ts" for f, m in work[: i + 1]]
                s.compaction(
                    keep,
                    f"## Progress\nMigrated {i + 1} of {len(work)} modules (routes first, then jobs) to async/await; "
                    "tests pass for each.\n\n## Conventions\n- Keep exported names and parameter order.\n"
                    "- Use `withRetry` from src/db/retry.ts.\n",
                    self.tokens + 60000,
                    {"readFiles": done, "modifiedFiles": done},
                )
                compactions += 1
                self.tokens = 9000
        self.tool("bash", {"command": "npm test -- --run"}, f" Test Files  {2 * len(MODULES)} passed\n      Tests  {rng.randint(600, 800)} passed\n\nexit code: 0")
        complete = i == len(work) - 1
        final, _ = s.assistant(
            text="All routes and jobs use async/await; the full suite passes." if complete
            else "The migrated modules use async/await; the full suite passes.",
            usage_in=self.tokens,
        )
        s.label(final, "migration-complete" if complete else "migration-checkpoint")
        return s


def build() -> Session:
    return _Refactor().build()
