"""The sample project ``tally`` (TypeScript service, Rust hashing crate, Python scripts) and its rules.

``RULE_FILES`` covers every rule provider location of spec ttsr-and-rules §9.2 plus the seeds'
``.xcsh/rules``; the comments next to each file say what it demonstrates. ``SOURCE_FILES`` is a small
snapshot of the project (after the fix of ``fix-auth.jsonl``) so that ``workbench rules scan`` has
something to find.
"""

from __future__ import annotations

import os

CWD = "/home/dev/tally"

RULE_FILES: dict[str, str] = {}
SOURCE_FILES: dict[str, str] = {}

# -- native (".xcsh/rules", the directory the seeds name) ------------------------------------------
# A prose + tool regex rule; fires mid-delta in streams/prose-unwrap.stream.jsonl. Shadows the
# Cursor rule of the same name. Carries `examples` (workbench extension, see README).
RULE_FILES[".xcsh/rules/no-unwrap.md"] = """\
---
description: Rust error handling - no unwrap() in service or library code
condition: '\\.unwrap\\(\\)'
scope: text, tool:edit(*.rs), tool:write(*.rs)
examples:
  - text: "let cfg = load_config(path).unwrap();"
    triggers: true
  - text: "let cfg = load_config(path)?;"
    triggers: false
  - text: "let retries = env_u32(\\"RETRIES\\").unwrap_or_default();"
    triggers: false
  - thinking: "The quick version would call .unwrap() on every lookup."
    triggers: false
    note: thinking is not in this rule's scope
---
Do not call `.unwrap()` in library or service code. Propagate the error with `?` and add context
with `map_err(...)`; in tests, use `expect("why this cannot fail")` so a failure explains itself.
"""

# -- native (".omp/rules" and ".omp/RULES.md") ----------------------------------------------------
# Tool-scoped regex rule with interruptMode never: the reminder is folded into the edit's result
# (streams/tool-console-log.stream.jsonl, and the second half of ttsr-fired.jsonl).
RULE_FILES[".omp/rules/no-console-log.md"] = """\
---
description: No console.log in server code; use the structured logger
condition: 'console\\.(log|debug)\\('
scope: tool:edit(src/**/*.ts), tool:write(src/**/*.ts)
interruptMode: never
examples:
  - text: 'console.log("refreshing", token);'
    triggers: true
  - text: 'logger.debug({ userId }, "token refreshed");'
    triggers: false
---
Server code logs through `logger` from `src/log.ts`: it is structured and redacts secrets.
Replace any `console.log` / `console.debug` you added with `logger.debug({ ... }, "message")`,
and never log tokens, password hashes or reset codes.
"""

# Rulebook rule: description only, no condition -> offered to the model through rule://.
RULE_FILES[".omp/rules/commit-messages.md"] = """\
---
description: How to write commit messages in this repository
---
- Subject in the imperative, at most 72 characters, prefixed with the area:
  `auth:`, `pwhash:`, `scripts:`, `ci:`.
- Body explains why, not what; wrap at 80 columns.
- Reference the issue as `Refs #123` on the last line.
"""

# Forced always-apply (RULES@project).
RULE_FILES[".omp/RULES.md"] = """\
# tally - project rules

- TypeScript service in `src/`, Rust password hashing crate in `crates/pwhash`, Python maintenance
  scripts in `scripts/`.
- Run `npm test` and `cargo test -p pwhash` before calling a change done.
- Never commit secrets; `.env` is git-ignored for a reason.
"""

# -- agents (".agent/rules") ----------------------------------------------------------------------
# AST rule: fires on an edit of a .ts file whose new text contains `<expr> as any`
# (streams/ast-as-any.stream.jsonl). Shadows the older regex rule of the same name in .cursor.
RULE_FILES[".agent/rules/ts-no-as-any.md"] = """\
---
description: No `as any` casts in TypeScript
astCondition: $EXPR as any
scope: tool:edit(*.ts), tool:write(*.ts)
examples:
  - text: "const user = (req as any).user;"
    triggers: true
  - text: "const user = isAuthedRequest(req) ? req.user : undefined;"
    triggers: false
  - tool: edit
    path: src/session.ts
    old_string: "return undefined;"
    new_string: "return (req as any).user?.id;"
    triggers: true
  - tool: edit
    path: scripts/report.py
    old_string: "x = 1"
    new_string: "x = y as any"
    triggers: false
    note: the scope only covers .ts files
---
Do not silence the type checker with `as any`. Narrow the value with a type guard (see
`isAuthedRequest` in `src/session.ts`) or declare the missing property on the type.
"""

# -- cursor (".cursor/rules/*.mdc") ---------------------------------------------------------------
# Shadowed by .xcsh/rules/no-unwrap.md (native has priority 100, Cursor 50).
RULE_FILES[".cursor/rules/no-unwrap.mdc"] = """\
---
description: Avoid unwrap in Rust
globs: "crates/**/*.rs"
alwaysApply: false
---
Avoid `unwrap()`; return a `Result` and use `?`.
"""

# Shadowed by .agent/rules/ts-no-as-any.md (agents 70 > cursor 50): the old regex version.
RULE_FILES[".cursor/rules/ts-no-as-any.mdc"] = """\
---
description: Old regex version of the as-any rule
condition: '\\bas any\\b'
globs: "*.ts"
---
No `as any`.
"""

# Rulebook rule scoped by globs (informational for the prompt).
RULE_FILES[".cursor/rules/http-errors.mdc"] = """\
---
description: How HTTP errors are raised and rendered in src/routes
globs: "src/routes/**/*.ts"
alwaysApply: false
---
Throw `HttpError(status, code)` from route handlers; the error middleware renders it. Never put
request values into HTML without `escapeHtml`.
"""

# -- windsurf (".windsurf/rules/*.md") ------------------------------------------------------------
# Always-apply rule.
RULE_FILES[".windsurf/rules/python-scripts.md"] = """\
---
alwaysApply: true
description: Conventions for scripts/*.py
---
Scripts in `scripts/` target Python 3.11, use `argparse`, exit non-zero on failure and never touch
the production database unless `--i-mean-it` is given.
"""

# Invalid regex: a Python named group `(?P<...>)` is a syntax error in JavaScript. The condition is
# skipped with a warning; with no condition left the rule falls back to the rulebook bucket.
RULE_FILES[".windsurf/rules/no-print-debug.md"] = """\
---
description: No leftover print() debugging in scripts
condition: 'print\\((?P<what>.+)\\)'
scope: tool:edit(scripts/*.py)
---
Use the `log` helper in `scripts/_common.py` instead of bare `print()` calls left over from
debugging.
"""

# -- cline (".clinerules/ directory") --------------------------------------------------------------
RULE_FILES[".clinerules/rust-no-panic.md"] = """\
---
description: No panics in the pwhash crate
condition: 'panic!\\(|todo!\\(|unimplemented!\\('
scope: tool:edit(*.rs), tool:write(*.rs)
interruptMode: tool-only
---
The hashing crate is called from the login path; a panic takes the worker down. Return
`Err(Error::...)` instead.
"""

# Invalid YAML frontmatter: `globs: *.py` is read as a YAML alias and fails to parse. The reference
# logs "Failed to parse YAML frontmatter" and recovers every key with its line fallback.
RULE_FILES[".clinerules/pathlib.md"] = """\
---
description: Prefer pathlib in Python scripts
globs: *.py
condition: 'os\\.path\\.(join|exists|dirname)\\('
scope: tool:edit, tool:write
---
New Python code uses `pathlib.Path` (`Path(a) / b`, `.exists()`, `.parent`) instead of `os.path`.
"""

# -- github (".github/instructions/**/*.instructions.md") ------------------------------------------
# applyTo -> globs; description defaults to "GitHub Copilot instructions for src/**/*.ts".
RULE_FILES[".github/instructions/typescript.instructions.md"] = """\
---
applyTo: "src/**/*.ts"
---
Use `strict` TypeScript. Prefer `unknown` plus a type guard over `any`; export types next to the
functions that use them.
"""

# applyTo "**" -> always-apply.
RULE_FILES[".github/instructions/repo.instructions.md"] = """\
---
applyTo: "**"
---
This repository is `tally`: a small login and billing service. Keep changes minimal and covered
by a test.
"""

# No applyTo -> warning "Missing applyTo in <path>; loaded without GitHub glob scoping."
RULE_FILES[".github/instructions/docs/changelog.instructions.md"] = """\
---
description: Changelog entries
---
Add one line per user-visible change under `## Unreleased` in `CHANGELOG.md`.
"""

# -- project sources (a snapshot for `workbench rules scan`) ---------------------------------------
SOURCE_FILES["src/auth.ts"] = """\
import { db } from "./db";
import { AuthError } from "./errors";
import { logger } from "./log";
import { verifyPassword } from "./pwhash";
import { issueToken } from "./token";

export interface LoginRequest {
  email: string;
  password: string;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function login(req: LoginRequest): Promise<string> {
  const email = normalizeEmail(req.email);
  const user = await db.users.findOne({ email });
  if (!user) {
    throw new AuthError(401, "invalid credentials");
  }
  const ok = await verifyPassword(user.passwordHash, req.password);
  if (!ok) {
    logger.debug({ userId: user.id }, "password mismatch");
    throw new AuthError(401, "invalid credentials");
  }
  return issueToken(user.id);
}
"""

SOURCE_FILES["src/session.ts"] = """\
import type { Request } from "express";

export interface AuthedRequest extends Request {
  user: { id: string; email: string };
}

export function isAuthedRequest(req: Request): req is AuthedRequest {
  return typeof (req as Partial<AuthedRequest>).user?.id === "string";
}

export function currentUserId(req: Request): string | undefined {
  return isAuthedRequest(req) ? req.user.id : undefined;
}
"""

# Deliberately old code: `rules scan` finds a console.log and an `as any` here.
SOURCE_FILES["src/legacy/debug-routes.ts"] = """\
import type { Request, Response } from "express";

export function dumpSession(req: Request, res: Response): void {
  console.log("session", (req as any).session);
  res.json({ ok: true });
}
"""

SOURCE_FILES["crates/pwhash/src/lib.rs"] = """\
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid argon2 parameters: {0}")]
    Params(argon2::Error),
    #[error("password hash: {0}")]
    Hash(argon2::password_hash::Error),
}

pub fn hash_password(password: &str, salt: &SaltString) -> Result<String, Error> {
    let params = Params::new(65536, 3, 4, None).map_err(Error::Params)?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
    let hash = argon.hash_password(password.as_bytes(), salt).map_err(Error::Hash)?;
    Ok(hash.to_string())
}

/// Verifies against the parameters stored in the PHC string, not the current defaults.
pub fn verify_password(stored: &str, password: &str) -> Result<bool, Error> {
    let parsed = PasswordHash::new(stored).map_err(Error::Hash)?;
    Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_old_params() {
        let salt = SaltString::from_b64("c2FsdHNhbHRzYWx0").unwrap();
        let old = Argon2::default().hash_password(b"hunter2", &salt).unwrap().to_string();
        assert!(verify_password(&old, "hunter2").unwrap());
    }
}
"""

SOURCE_FILES["scripts/seed_users.py"] = """\
\"\"\"Seed a development database with a few users.\"\"\"

import argparse
import json
import os.path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixtures", default="fixtures")
    args = parser.parse_args()
    path = os.path.join(args.fixtures, "users.json")
    users = json.load(open(path))
    print(f"seeding {len(users)} users")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
"""


def write_project(root: str) -> list[str]:
    """Write the project folder under ``root``; returns the relative paths written."""
    written = []
    for rel, text in {**RULE_FILES, **SOURCE_FILES}.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        written.append(rel)
    return written


def rule_body(rel: str) -> str:
    """The Markdown body of a rule file (frontmatter stripped, trimmed), as a rule's ``content``."""
    text = RULE_FILES[rel]
    if text.startswith("---"):
        end = text.index("\n---", 3)
        return text[end + 4 :].strip()
    return text
