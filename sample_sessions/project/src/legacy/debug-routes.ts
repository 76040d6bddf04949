import type { Request, Response } from "express";

export function dumpSession(req: Request, res: Response): void {
  console.log("session", (req as any).session);
  res.json({ ok: true });
}
