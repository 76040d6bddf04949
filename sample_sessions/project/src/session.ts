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
