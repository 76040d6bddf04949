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
