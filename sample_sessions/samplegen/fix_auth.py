"""``fix-auth.jsonl``: a pi-mono v3 session with three branches, labels, a branch summary and a compaction.

Story: users get 401 after a password reset. Branch A (normalise the email in TypeScript) does not
fix it; branch B (verify with the stored Argon2 parameters in Rust) does; the user returns to the
analysis with a summary of B and, on branch C, combines both with a regression test. One assistant
text quotes HTML (``<script>alert(1)</script>``, ``<b>``) that the app must show as text.
"""

from __future__ import annotations

from datetime import datetime, timezone

from .project import CWD
from .session import Session

AUTH_TS_BEFORE = """\
import { db } from "./db";
import { AuthError } from "./errors";
import { verifyPassword } from "./pwhash";
import { issueToken } from "./token";

export interface LoginRequest {
  email: string;
  password: string;
}

export async function login(req: LoginRequest): Promise<string> {
  const user = await db.users.findOne({ email: req.email });
  if (!user) {
    throw new AuthError(401, "invalid credentials");
  }
  const ok = await verifyPassword(user.passwordHash, req.password);
  if (!ok) {
    throw new AuthError(401, "invalid credentials");
  }
  return issueToken(user.id);
}
"""

RESET_TS = """\
import { db } from "../db";
import { hashPassword } from "../pwhash";
import { HttpError } from "./errors";

export async function resetPassword(email: string, code: string, newPassword: string): Promise<void> {
  const normalized = email.trim().toLowerCase();
  const ok = await db.resetCodes.consume(normalized, code);
  if (!ok) {
    throw new HttpError(400, "invalid_code");
  }
  await db.users.update({ email: normalized }, { passwordHash: await hashPassword(newPassword) });
}
"""

LOGIN_PAGE_TS = """\
import type { Request, Response } from "express";

export function loginFailedPage(req: Request, res: Response): void {
  const email = String(req.query.email ?? "");
  res.status(401).send(`<b>Login failed</b> for ${email}. <a href="/login">Try again</a>`);
}
"""

LIB_RS_BEFORE = """\
use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

pub fn hash_password(password: &str, salt: &SaltString) -> Result<String, Error> {
    let params = Params::new(65536, 3, 4, None).map_err(Error::Params)?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
    let hash = argon.hash_password(password.as_bytes(), salt).map_err(Error::Hash)?;
    Ok(hash.to_string())
}

pub fn verify_password(stored: &str, password: &str) -> Result<bool, Error> {
    let parsed = PasswordHash::new(stored).map_err(Error::Hash)?;
    let salt = parsed.salt.ok_or(Error::MissingSalt)?;
    let recomputed = Argon2::default()
        .hash_password(password.as_bytes(), salt)
        .map_err(Error::Hash)?;
    Ok(recomputed.hash == parsed.hash)
}
"""

GIT_LOG = """\
4f1c2ab pwhash: raise argon2 cost to m=64MiB,t=3,p=4 (#212)
9d03e71 auth: lower-case emails in password reset (#208)
1b7a9c0 ci: cache cargo registry
e2c55d4 auth: rate-limit /login per IP
"""


def build() -> Session:
    s = Session(
        key="fix-auth",
        session_id="7f3e9c1a-4b2d-4e8f-9a61-2c5d8b0e4f17",
        cwd=CWD,
        start=datetime(2026, 9, 14, 9, 2, 11, 412000, tzinfo=timezone.utc),
        flavour="pi",
    )
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    s.user(
        "Users report `401 Unauthorized` when they log in right after a password reset. Older accounts "
        "that never reset are fine. Can you find out why? `npm test` is green.",
        after=4.0,
    )
    _, (c1,) = s.assistant(
        thinking="A 401 only after a reset: either the reset stores something login cannot find, or the "
        "stored hash is not verifiable. Start with the login handler, then the reset route.",
        text="I'll start with the login handler and then look at the reset route.",
        calls=[("read", {"path": "src/auth.ts"})],
    )
    s.tool_result(c1, "read", AUTH_TS_BEFORE)
    s.session_info("401 after password reset")
    _, (c2,) = s.assistant(calls=[("read", {"path": "src/routes/reset.ts"})], usage_in=5200)
    s.tool_result(c2, "read", RESET_TS)
    _, (c3,) = s.assistant(
        thinking="Reset lower-cases the email, login does not. A user who signed up as `Ada@Example.com` "
        "would have the row under the mixed-case email; update({email: normalized}) would then miss the row "
        "entirely and the reset would silently do nothing. Check recent history before guessing.",
        calls=[("bash", {"command": "git log --oneline -4 -- src crates"})],
        usage_in=6100,
    )
    s.tool_result(c3, "bash", GIT_LOG)
    _, (c4,) = s.assistant(
        text="Two changes landed in the same release: #208 lower-cases emails on reset and #212 raised the "
        "Argon2 cost. Let me look at the page users land on after the failed login before going further.",
        calls=[("read", {"path": "src/routes/login-page.ts"})],
        usage_in=6900,
    )
    s.tool_result(c4, "read", LOGIN_PAGE_TS)
    analysis, _ = s.assistant(
        thinking="The failure page interpolates the query string into HTML. Not the 401 cause, but worth "
        "flagging: the user asked about login failures and this page is part of that flow.",
        text=(
            "Findings so far:\n\n"
            "1. `login()` looks users up by the raw email, while `resetPassword()` stores and matches the "
            "lower-cased one (#208). For mixed-case sign-ups the two disagree.\n"
            "2. #212 changed the hashing parameters; I still need to check that `verify_password` copes with "
            "hashes made with the old ones.\n\n"
            "Unrelated but serious: `loginFailedPage` builds HTML with the raw `email` query value. A link like "
            "`/login/failed?email=<script>alert(1)</script>` runs script in our origin, and the page already "
            "mixes markup like <b>Login failed</b> with user input. It should go through `escapeHtml`. "
            "Raw example of what the browser would get: <b>Login failed</b> for <script>alert(1)</script>."
        ),
        usage_in=7800,
    )
    s.label(analysis, "root-cause")
    s.user("Before fixing anything, check the Rust hasher too; #212 touched it.")
    _, (c5,) = s.assistant(calls=[("read", {"path": "crates/pwhash/src/lib.rs"})], usage_in=8600)
    s.tool_result(c5, "read", LIB_RS_BEFORE)
    rust_analysis, _ = s.assistant(
        thinking="verify_password takes the salt from the PHC string but recomputes with Argon2::default() "
        "(m=19456,t=2,p=1). Hashes written after #212 use m=65536,t=3,p=4, so recomputing with defaults can "
        "never reproduce them. Old hashes were made with the defaults, which is why old accounts work. That "
        "is the 401 after reset: the reset writes a new-params hash.",
        text=(
            "That is the real cause. `verify_password` re-hashes with `Argon2::default()` (m=19456, t=2, p=1) "
            "instead of the parameters stored in the hash. Every hash written after #212 uses m=65536, t=3, p=4, "
            "so any password set or reset since then can never verify. Accounts that never reset still have "
            "default-parameter hashes and keep working.\n\n"
            "The email case mismatch is real too, but it would make the reset fail, not the login."
        ),
        usage_in=9400,
    )

    # ---- branch A: the minimal TypeScript fix -----------------------------------------------------
    a_user = s.user("Try the minimal fix first: normalise the email at login the same way reset does.")
    s.label(a_user, "approach-a")
    _, (c6,) = s.assistant(
        text="Adding a shared `normalizeEmail` and using it in `login()`.",
        calls=[
            (
                "edit",
                {
                    "path": "src/auth.ts",
                    "old_string": "  const user = await db.users.findOne({ email: req.email });",
                    "new_string": "  const email = normalizeEmail(req.email);\n  const user = await db.users.findOne({ email });",
                },
            )
        ],
        usage_in=10100,
    )
    s.tool_result(c6, "edit", "Successfully replaced 1 occurrence in src/auth.ts.")
    _, (c7,) = s.assistant(
        calls=[
            (
                "edit",
                {
                    "path": "src/auth.ts",
                    "old_string": "export async function login(",
                    "new_string": "export function normalizeEmail(email: string): string {\n  return email.trim().toLowerCase();\n}\n\nexport async function login(",
                },
            )
        ],
        usage_in=10600,
    )
    s.tool_result(c7, "edit", "Successfully replaced 1 occurrence in src/auth.ts.")
    _, (c8,) = s.assistant(calls=[("bash", {"command": "npm test -- --run auth reset-flow", "timeout": 120})], usage_in=11000)
    s.tool_result(
        c8,
        "bash",
        " ✓ tests/auth.test.ts (14 tests) 212ms\n"
        " ✗ tests/integration/reset-flow.test.ts > reset then login (1 failed)\n"
        "   AssertionError: expected 401 to be 200\n\n"
        " Test Files  1 failed | 1 passed (2)\n      Tests  1 failed | 14 passed (15)\n\nexit code: 1",
        is_error=True,
    )
    s.assistant(
        text="As expected from the Rust analysis: the unit tests pass, but `reset then login` still returns 401. "
        "Normalising the email is right, but it does not fix the reported bug; the hash verification does.",
        usage_in=11800,
    )

    # ---- branch B: fix verification in Rust (stronger model, more thinking) ------------------------
    s.branch(rust_analysis)
    b_user = s.user("Go back to the hasher. Make verify_password use the parameters stored in the hash.")
    s.model_change("anthropic", "claude-opus-4-1")
    s.thinking_level("high")
    s.label(b_user, "approach-b")
    _, (c9,) = s.assistant(
        thinking="PasswordVerifier::verify_password on an Argon2 instance parses the params from the PHC "
        "string (algorithm, version, m, t, p) and ignores the instance's own params for verification. So "
        "Argon2::default().verify_password(pw, &parsed) is correct for both old and new hashes.",
        text="`argon2` already knows how to verify with the stored parameters; I'll use `PasswordVerifier`.",
        calls=[
            (
                "edit",
                {
                    "path": "crates/pwhash/src/lib.rs",
                    "old_string": "    let salt = parsed.salt.ok_or(Error::MissingSalt)?;\n    let recomputed = Argon2::default()\n        .hash_password(password.as_bytes(), salt)\n        .map_err(Error::Hash)?;\n    Ok(recomputed.hash == parsed.hash)",
                    "new_string": "    Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())",
                },
            )
        ],
        usage_in=9900,
    )
    s.tool_result(c9, "edit", "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.")
    _, (c10,) = s.assistant(calls=[("bash", {"command": "cargo test -p pwhash"})], usage_in=10400)
    s.tool_result(
        c10,
        "bash",
        "error[E0599]: no method named `verify_password` found for struct `Argon2` in the current scope\n"
        "  --> crates/pwhash/src/lib.rs:14:26\n"
        "   |\n14 |     Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())\n"
        "   |                          ^^^^^^^^^^^^^^^ method not found in `Argon2<'_>`\n"
        "   = help: trait `PasswordVerifier` which provides `verify_password` is implemented but not in scope\n\n"
        "error: could not compile `pwhash` (lib) due to 1 previous error\n\nexit code: 101",
        is_error=True,
    )
    _, (c11,) = s.assistant(
        text="The trait needs importing.",
        calls=[
            (
                "edit",
                {
                    "path": "crates/pwhash/src/lib.rs",
                    "old_string": "use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};",
                    "new_string": "use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};",
                },
            )
        ],
        usage_in=11200,
    )
    s.tool_result(c11, "edit", "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.")
    _, (c12,) = s.assistant(calls=[("bash", {"command": "cargo test -p pwhash && npm test -- --run reset-flow"})], usage_in=11700)
    s.tool_result(
        c12,
        "bash",
        "running 3 tests\ntest tests::hash_has_phc_prefix ... ok\ntest tests::verify_rejects_wrong_password ... ok\n"
        "test tests::round_trip ... ok\n\ntest result: ok. 3 passed; 0 failed\n\n"
        " ✓ tests/integration/reset-flow.test.ts (3 tests) 388ms\n\n Test Files  1 passed (1)\n\nexit code: 0",
    )
    s.assistant(
        text="Both suites pass. `verify_password` now accepts hashes made with the old and the new "
        "parameters, so users who reset since #212 can log in again.",
        usage_in=12300,
    )

    # ---- back to the analysis with a summary of branch B; branch C combines both ---------------------
    s.branch_with_summary(
        rust_analysis,
        "Fixed `verify_password` in crates/pwhash to verify with the parameters stored in the PHC string "
        "(`PasswordVerifier`, needed an extra import). `cargo test -p pwhash` and the reset-flow integration "
        "test pass. No regression test yet for hashes made with the old parameters.",
        details={"readFiles": ["crates/pwhash/src/lib.rs"], "modifiedFiles": ["crates/pwhash/src/lib.rs"]},
    )
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    c_user = s.user(
        "Do both: keep the Rust verification fix from the summary, normalise the email at login, escape the "
        "failure page, and add a regression test for old-parameter hashes."
    )
    s.label(c_user, "approach-c")
    _, (c13, c14) = s.assistant(
        text="Re-applying the Rust fix and the email normalisation together.",
        calls=[
            (
                "edit",
                {
                    "path": "crates/pwhash/src/lib.rs",
                    "old_string": "    let salt = parsed.salt.ok_or(Error::MissingSalt)?;\n    let recomputed = Argon2::default()\n        .hash_password(password.as_bytes(), salt)\n        .map_err(Error::Hash)?;\n    Ok(recomputed.hash == parsed.hash)",
                    "new_string": "    Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())",
                },
            ),
            (
                "edit",
                {
                    "path": "crates/pwhash/src/lib.rs",
                    "old_string": "use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};",
                    "new_string": "use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};",
                },
            ),
        ],
        usage_in=13000,
    )
    s.tool_result(c13, "edit", "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.")
    s.tool_result(c14, "edit", "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.", after=0.3)
    _, (c15,) = s.assistant(
        calls=[
            (
                "edit",
                {
                    "path": "src/auth.ts",
                    "old_string": "  const user = await db.users.findOne({ email: req.email });",
                    "new_string": "  const email = normalizeEmail(req.email);\n  const user = await db.users.findOne({ email });",
                },
            )
        ],
        usage_in=13800,
    )
    s.tool_result(c15, "edit", "Successfully replaced 1 occurrence in src/auth.ts.")
    _, (c16,) = s.assistant(
        calls=[
            (
                "edit",
                {
                    "path": "src/auth.ts",
                    "old_string": "export async function login(",
                    "new_string": "export function normalizeEmail(email: string): string {\n  return email.trim().toLowerCase();\n}\n\nexport async function login(",
                },
            )
        ],
        usage_in=14300,
    )
    kept = s.tool_result(c16, "edit", "Successfully replaced 1 occurrence in src/auth.ts.")
    _, (c17,) = s.assistant(
        thinking="escapeHtml lives in src/html.ts according to the Cursor rule; use it rather than a new helper.",
        calls=[
            (
                "edit",
                {
                    "path": "src/routes/login-page.ts",
                    "old_string": "  res.status(401).send(`<b>Login failed</b> for ${email}. <a href=\"/login\">Try again</a>`);",
                    "new_string": "  res.status(401).send(`<b>Login failed</b> for ${escapeHtml(email)}. <a href=\"/login\">Try again</a>`);",
                },
            )
        ],
        usage_in=14900,
    )
    s.tool_result(c17, "edit", "Successfully replaced 1 occurrence in src/routes/login-page.ts.")
    _, (c18,) = s.assistant(
        calls=[
            (
                "edit",
                {
                    "path": "src/routes/login-page.ts",
                    "old_string": 'import type { Request, Response } from "express";',
                    "new_string": 'import type { Request, Response } from "express";\nimport { escapeHtml } from "../html";',
                },
            )
        ],
        usage_in=15400,
    )
    s.tool_result(c18, "edit", "Successfully replaced 1 occurrence in src/routes/login-page.ts.")
    # The context grew large: the agent compacts, keeping everything from the email edit on.
    s.compaction(
        kept,
        "## Goal\nFix 401 on login after a password reset.\n\n## Done\n- Root cause: `verify_password` "
        "(crates/pwhash) re-hashed with `Argon2::default()` instead of the stored parameters; fixed with "
        "`PasswordVerifier`.\n- `login()` now uses `normalizeEmail` like the reset route.\n- Failure page "
        "escapes the email with `escapeHtml`.\n\n## Next\n- Regression test for hashes made with the old "
        "parameters.\n- Run both test suites.",
        48211,
        {
            "readFiles": ["src/auth.ts", "src/routes/reset.ts", "src/routes/login-page.ts", "crates/pwhash/src/lib.rs"],
            "modifiedFiles": ["crates/pwhash/src/lib.rs", "src/auth.ts", "src/routes/login-page.ts"],
        },
    )
    compacted = s.leaf
    # A first attempt at the test, abandoned: the user edits the request instead (a sibling branch).
    s.user("Add the regression test now.")
    _, (c_first,) = s.assistant(
        calls=[
            (
                "edit",
                {
                    "path": "crates/pwhash/src/lib.rs",
                    "old_string": "mod tests {\n    use super::*;\n",
                    "new_string": "mod tests {\n    use super::*;\n\n    #[test]\n    fn round_trip_with_old_params() {\n"
                    '        let salt = SaltString::from_b64("c2FsdHNhbHRzYWx0").unwrap();\n'
                    '        let old = Argon2::default().hash_password(b"hunter2", &salt).unwrap().to_string();\n'
                    '        assert!(verify_password(&old, "hunter2").unwrap());\n    }\n',
                },
            )
        ],
        usage_in=5600,
    )
    s.tool_result(c_first, "edit", "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.")
    s.branch(compacted)
    s.user("Add the regression test now; in tests use expect() with a reason, not unwrap().", after=45.0)
    _, (c19,) = s.assistant(
        text="Adding the regression test: a hash made with the old default parameters must still verify.",
        calls=[
            (
                "edit",
                {
                    "path": "crates/pwhash/src/lib.rs",
                    "old_string": "mod tests {\n    use super::*;\n",
                    "new_string": "mod tests {\n    use super::*;\n\n    #[test]\n    fn round_trip_with_old_params() {\n"
                    '        let salt = SaltString::from_b64("c2FsdHNhbHRzYWx0").expect("valid salt");\n'
                    '        let old = Argon2::default().hash_password(b"hunter2", &salt).expect("hash").to_string();\n'
                    '        assert!(verify_password(&old, "hunter2").expect("verify"));\n    }\n',
                },
            )
        ],
        usage_in=6200,
    )
    s.tool_result(c19, "edit", "Successfully replaced 1 occurrence in crates/pwhash/src/lib.rs.")
    _, (c20,) = s.assistant(calls=[("bash", {"command": "cargo test -p pwhash && npm test -- --run"})], usage_in=6900)
    s.tool_result(
        c20,
        "bash",
        "running 4 tests\ntest tests::hash_has_phc_prefix ... ok\ntest tests::round_trip ... ok\n"
        "test tests::round_trip_with_old_params ... ok\ntest tests::verify_rejects_wrong_password ... ok\n\n"
        "test result: ok. 4 passed; 0 failed\n\n Test Files  9 passed (9)\n      Tests  61 passed (61)\n\nexit code: 0",
    )
    _, (c21,) = s.assistant(calls=[("bash", {"command": "git diff --stat"})], usage_in=7300)
    s.tool_result(
        c21,
        "bash",
        " crates/pwhash/src/lib.rs | 17 ++++++++++-------\n src/auth.ts              |  7 ++++++-\n"
        " src/routes/login-page.ts |  3 ++-\n 3 files changed, 18 insertions(+), 9 deletions(-)",
    )
    done, _ = s.assistant(
        text=(
            "Done. Summary of the change:\n\n"
            "- **pwhash**: `verify_password` verifies with the parameters stored in the hash, so hashes written "
            "before and after #212 both verify. New test `round_trip_with_old_params`.\n"
            "- **auth**: `login()` normalises the email exactly like the reset route.\n"
            "- **login page**: the email is escaped, so `<script>` in the query string is shown as text.\n\n"
            "All 61 TypeScript tests and 4 Rust tests pass."
        ),
        usage_in=7900,
    )
    s.user("Thanks. Drop the approach-b label, that branch is superseded; mark this as the fix.")
    s.label(b_user, "")  # cleared (an empty label deletes it)
    s.label(done, "fix")
    return s
