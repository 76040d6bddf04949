"""The scripted model turns behind the recorded streams and ``ttsr-fired.jsonl``.

Each scenario is a user prompt plus the assistant turns a model produced, in order. The first turn
of an interrupting scenario is what the model streamed before TTSR cut it off (the recording keeps
going past the match, as a recording made with TTSR off would); the next turn is the model's retry,
which replay uses as the recorded continuation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .chunking import SPLIT


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any]
    result: str
    is_error: bool = False


@dataclass(frozen=True)
class Turn:
    thinking: str | None = None
    text: str | None = None
    calls: tuple[Call, ...] = ()

    @property
    def stop(self) -> str:
        return "toolUse" if self.calls else "stop"


@dataclass(frozen=True)
class Scenario:
    key: str
    prompt: str
    note: str
    turns: tuple[Turn, ...] = field(default_factory=tuple)


LIB_RS_PARAMS_OLD = "    let params = Params::new(65536, 3, 4, None).map_err(Error::Params)?;"

# -- 1. prose regex rule (no-unwrap) fires mid-delta --------------------------------------------------
PROSE_UNWRAP = Scenario(
    key="prose-unwrap",
    prompt=(
        "Make the Argon2 cost parameters in crates/pwhash configurable through PWHASH_M_COST, "
        "PWHASH_T_COST and PWHASH_P_COST, keeping today's values (65536, 3, 4) as defaults."
    ),
    note=(
        "Rule no-unwrap (.xcsh/rules, prose + tool regex, interrupt) fires in turn 1 in the middle of a "
        "text delta ('.unw' + 'rap().parse()'); turn 2 is the model's retry. The thinking also says "
        "`.unwrap()` but thinking is not in the rule's scope."
    ),
    turns=(
        Turn(
            thinking=(
                "Three env vars, each optional, each a u32. The lazy way is to call `.unwrap()` on every "
                "lookup, but a missing variable must fall back to the default, and a malformed one should be "
                "an error rather than a panic. Params::new validates the combination."
            ),
            text=(
                "Plan: read the three variables once when the hasher is built and fall back to the current "
                "defaults. The simplest version looks like this:\n\n"
                "```rust\n"
                'let m_cost: u32 = env::var("PWHASH_M_COST").unw' + SPLIT + "rap().parse()" + SPLIT + ".unwrap();\n"
                "```\n\n"
                "and the same for `t_cost` and `p_cost`. Then I'll pass them to `Params::new`."
            ),
            calls=(
                Call(
                    "edit",
                    {
                        "path": "crates/pwhash/src/lib.rs",
                        "old_string": LIB_RS_PARAMS_OLD,
                        "new_string": (
                            '    let m_cost: u32 = env::var("PWHASH_M_COST").unwrap().parse().unwrap();\n'
                            '    let t_cost: u32 = env::var("PWHASH_T_COST").unwrap().parse().unwrap();\n'
                            '    let p_cost: u32 = env::var("PWHASH_P_COST").unwrap().parse().unwrap();\n'
                            "    let params = Params::new(m_cost, t_cost, p_cost, None).map_err(Error::Params)?;"
                        ),
                    },
                    "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.",
                ),
            ),
        ),
        Turn(
            text=(
                "Understood, no `unwrap()`. Unset variables fall back to the defaults and a value that does "
                "not parse becomes `Error::BadEnv`, so a typo in the deployment fails loudly instead of "
                "panicking."
            ),
            calls=(
                Call(
                    "edit",
                    {
                        "path": "crates/pwhash/src/lib.rs",
                        "old_string": LIB_RS_PARAMS_OLD,
                        "new_string": (
                            '    let m_cost = env_u32("PWHASH_M_COST", 65536)?;\n'
                            '    let t_cost = env_u32("PWHASH_T_COST", 3)?;\n'
                            '    let p_cost = env_u32("PWHASH_P_COST", 4)?;\n'
                            "    let params = Params::new(m_cost, t_cost, p_cost, None).map_err(Error::Params)?;"
                        ),
                    },
                    "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.",
                ),
                Call(
                    "edit",
                    {
                        "path": "crates/pwhash/src/lib.rs",
                        "old_string": "pub fn hash_password(",
                        "new_string": (
                            "fn env_u32(name: &str, default: u32) -> Result<u32, Error> {\n"
                            "    match env::var(name) {\n"
                            "        Ok(raw) => raw.trim().parse().map_err(|_| Error::BadEnv(name.to_owned())),\n"
                            "        Err(_) => Ok(default),\n"
                            "    }\n"
                            "}\n\n"
                            "pub fn hash_password("
                        ),
                    },
                    "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.",
                ),
            ),
        ),
        Turn(
            calls=(
                Call(
                    "bash",
                    {"command": "cargo test -p pwhash"},
                    "running 4 tests\ntest tests::hash_has_phc_prefix ... ok\ntest tests::round_trip ... ok\n"
                    "test tests::round_trip_with_old_params ... ok\ntest tests::verify_rejects_wrong_password ... ok\n\n"
                    "test result: ok. 4 passed; 0 failed\n\nexit code: 0",
                ),
            ),
        ),
        Turn(
            text=(
                "Done: `PWHASH_M_COST`, `PWHASH_T_COST` and `PWHASH_P_COST` override the defaults "
                "(65536, 3, 4); an unparsable value is reported as `Error::BadEnv` with the variable name. "
                "Tests pass."
            ),
        ),
    ),
)

# -- 2. tool-scoped regex rule with interruptMode never (reminder folded into the result) -------------
TOOL_CONSOLE_LOG = Scenario(
    key="tool-console-log",
    prompt="Token refresh sometimes returns a stale token. Add some debug logging around refreshToken in src/auth.ts.",
    note=(
        "Rule no-console-log (.omp/rules, scope tool:edit(src/**/*.ts), interruptMode never) matches the "
        "edit's new_string in turn 1: no abort; the reminder is folded into that edit's tool result. "
        "Turn 2 follows the reminder."
    ),
    turns=(
        Turn(
            thinking="Log the user id and whether the cached token was expired, before and after the refresh call.",
            text="Adding logging before and after the refresh call.",
            calls=(
                Call(
                    "edit",
                    {
                        "path": "src/auth.ts",
                        "old_string": "  const fresh = await issueToken(userId);",
                        "new_string": (
                            '  console.log("refreshing token for", userId, "expired:", isExpired(cached));\n'
                            "  const fresh = await issueToken(userId);\n"
                            '  console.log("refreshed", fresh.slice(0, 8));'
                        ),
                    },
                    "Successfully replaced 1 occurrence in src/auth.ts.",
                ),
            ),
        ),
        Turn(
            text=(
                "The project rule asks for the structured logger and no token material in logs; switching to "
                "`logger.debug` and logging only the expiry."
            ),
            calls=(
                Call(
                    "edit",
                    {
                        "path": "src/auth.ts",
                        "old_string": (
                            '  console.log("refreshing token for", userId, "expired:", isExpired(cached));\n'
                            "  const fresh = await issueToken(userId);\n"
                            '  console.log("refreshed", fresh.slice(0, 8));'
                        ),
                        "new_string": (
                            '  logger.debug({ userId, expired: isExpired(cached) }, "refreshing token");\n'
                            "  const fresh = await issueToken(userId);\n"
                            '  logger.debug({ userId, expiresAt: expiryOf(fresh) }, "token refreshed");'
                        ),
                    },
                    "Successfully replaced 1 occurrence in src/auth.ts.",
                ),
            ),
        ),
        Turn(
            text=(
                "Logging is in place via `logger.debug` (user id, whether the cached token had expired, and the "
                "new expiry). Run with `LOG_LEVEL=debug` to see it."
            ),
        ),
    ),
)

# -- 3. AST rule (astCondition `$EXPR as any`) on an edit of a .ts file ----------------------------------
AST_AS_ANY = Scenario(
    key="ast-as-any",
    prompt="Add a currentUserId(req) helper to src/session.ts that returns undefined for anonymous requests.",
    note=(
        "Rule ts-no-as-any (.agent/rules, astCondition '$EXPR as any', scope tool:edit(*.ts)) fires when the "
        "edit call is complete (toolcall_end: the agent checks ast-grep rules on the finished call only), "
        "although the partial new_string holds `(req as any)` earlier; the older regex rule of the same name "
        "in .cursor is shadowed. Turn 2 is the retry with a type guard."
    ),
    turns=(
        Turn(
            thinking="Express's Request has no user property; the auth middleware attaches it.",
            text="Adding the helper below `isAuthedRequest`.",
            calls=(
                Call(
                    "edit",
                    {
                        "path": "src/session.ts",
                        "old_string": "export function isAuthedRequest(",
                        "new_string": (
                            "export function currentUserId(req: Request): string | undefined {\n"
                            "  const user = (req as any).user;\n"
                            "  return user ? user.id : undefined;\n"
                            "}\n\n"
                            "export function isAuthedRequest("
                        ),
                    },
                    "Successfully replaced 1 occurrence in src/session.ts.",
                ),
            ),
        ),
        Turn(
            text="Using the existing type guard instead of a cast.",
            calls=(
                Call(
                    "edit",
                    {
                        "path": "src/session.ts",
                        "old_string": "export function isAuthedRequest(",
                        "new_string": (
                            "export function currentUserId(req: Request): string | undefined {\n"
                            "  return isAuthedRequest(req) ? req.user.id : undefined;\n"
                            "}\n\n"
                            "export function isAuthedRequest("
                        ),
                    },
                    "Successfully replaced 1 occurrence in src/session.ts.",
                ),
            ),
        ),
        Turn(
            calls=(Call("bash", {"command": "npx tsc --noEmit -p ."}, "exit code: 0"),),
        ),
        Turn(text="`currentUserId` is in `src/session.ts`; it narrows with `isAuthedRequest`, and the type check passes."),
    ),
)

SCENARIOS = (PROSE_UNWRAP, TOOL_CONSOLE_LOG, AST_AS_ANY)
