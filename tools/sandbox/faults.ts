import type { NextFunction, Request, Response } from 'express';
import { sendError } from './envelope.ts';

/**
 * Faults armed through `POST /sandbox/faults`, each for the next `count` occasions:
 * - `webhook-fail`: a delivery attempt fails without reaching the subscriber (as if the network
 *   dropped it), so it is retried;
 * - `webhook-timeout`: the delivery is sent in full but the sandbox stops waiting for the answer
 *   at once, so it is retried although the subscriber may have stored it;
 * - `token-fail`: the token endpoint answers `status` (default 500);
 * - `endpoint-error`: a platform endpoint (any, or those whose path starts with `path`) answers
 *   `status` (default 500).
 */
export const FAULT_KINDS = [
  'webhook-fail',
  'webhook-timeout',
  'token-fail',
  'endpoint-error',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  kind: FaultKind;
  remaining: number;
  status: number;
  path?: string;
}

/** At most this many faults are armed at once. */
const MAX_ARMED = 100;

export interface Faults {
  arm(fault: Fault): boolean;
  /** Uses up one occasion of the first matching fault, if any. */
  take(kind: FaultKind, path?: string): Fault | undefined;
  list(): readonly Fault[];
  clear(): void;
}

export function createFaults(): Faults {
  let armed: Fault[] = [];
  return {
    arm(fault) {
      if (armed.length >= MAX_ARMED) return false;
      armed.push({ ...fault });
      return true;
    },
    take(kind, path) {
      const fault = armed.find(
        (f) =>
          f.kind === kind &&
          (f.path === undefined || (path ?? '').toLowerCase().startsWith(f.path.toLowerCase())),
      );
      if (!fault) return undefined;
      fault.remaining -= 1;
      if (fault.remaining <= 0) armed = armed.filter((f) => f !== fault);
      return fault;
    },
    list: () => armed.map((f) => ({ ...f })),
    clear: () => void (armed = []),
  };
}

/** Answers an armed `endpoint-error` (or, on the token path, `token-fail`) instead of the route. */
export function faultMiddleware(faults: Faults, tokenPath: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const kind = req.path === tokenPath ? 'token-fail' : 'endpoint-error';
    const fault =
      faults.take(kind, req.path) ??
      (kind === 'token-fail' ? faults.take('endpoint-error', req.path) : undefined);
    if (!fault) return next();
    sendError(res, fault.status, `Sandbox fault: ${kind} (armed through /sandbox/faults)`);
  };
}
