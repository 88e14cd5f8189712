import type { NextFunction, Request, Response } from 'express';
import { setAfterAction, type AfterActionAnswer, type HeldAnswers } from './after-action.ts';
import { sendError } from './envelope.ts';

/**
 * Faults armed through `POST /sandbox/faults`, each for the next `count` occasions:
 * - `webhook-fail`: a delivery attempt fails without reaching the subscriber (as if the network
 *   dropped it), so it is retried;
 * - `webhook-timeout`: the delivery is sent in full but the sandbox stops waiting for the answer
 *   at once, so it is retried although the subscriber may have stored it;
 * - `token-fail`: the token endpoint answers `status` (default 500);
 * - `endpoint-error`: a platform endpoint (any, or those whose path starts with `path`) answers
 *   `status` (default 500) without acting;
 * - `after-action`: a platform endpoint acts, then answers as `answer` says (after-action.ts);
 * - `not-ok`: a platform endpoint answers HTTP 200 with a non-`Ok` status without acting (the
 *   platform's way of refusing some requests).
 */
export const FAULT_KINDS = [
  'webhook-fail',
  'webhook-timeout',
  'token-fail',
  'endpoint-error',
  'after-action',
  'not-ok',
] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

interface Fault {
  kind: FaultKind;
  remaining: number;
  status: number;
  path?: string;
  /** after-action only: what replaces the real answer. */
  answer?: AfterActionAnswer;
}

/** At most this many faults are armed at once. */
const MAX_ARMED = 100;

export interface Faults {
  arm(fault: Fault): boolean;
  /**
   * Uses up one occasion of the first armed fault (in the order armed) whose kind is `kind` or
   * one of `kind`, and whose path, if any, starts `path`.
   */
  take(kind: FaultKind | readonly FaultKind[], path?: string): Fault | undefined;
  /** Gives back one occasion of a fault taken but not used (it stays first in order). */
  giveBack(fault: Fault): void;
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
      const kinds: readonly FaultKind[] = typeof kind === 'string' ? [kind] : kind;
      const fault = armed.find(
        (f) =>
          kinds.includes(f.kind) &&
          (f.path === undefined || (path ?? '').toLowerCase().startsWith(f.path.toLowerCase())),
      );
      if (!fault) return undefined;
      fault.remaining -= 1;
      if (fault.remaining <= 0) armed = armed.filter((f) => f !== fault);
      return { ...fault };
    },
    giveBack(fault) {
      const same = armed.find(
        (f) => f.kind === fault.kind && f.path === fault.path && f.answer === fault.answer,
      );
      if (same && armed.indexOf(same) === 0) same.remaining += 1;
      else armed.unshift({ ...fault, remaining: 1 });
    },
    list: () => armed.map((f) => ({ ...f })),
    clear: () => void (armed = []),
  };
}

/** What a platform request may meet: the token path has its own kind besides the others. */
const ON_TOKEN_PATH: readonly FaultKind[] = [
  'token-fail',
  'endpoint-error',
  'after-action',
  'not-ok',
];
const ON_OTHER_PATHS: readonly FaultKind[] = ['endpoint-error', 'after-action', 'not-ok'];

/**
 * Takes the first armed fault that matches the request, before-action or after-action alike, so
 * a sequence armed as [after-action, endpoint-error ×3] plays in that order. A before-action
 * fault answers here, instead of the route; an after-action one is left for the route's answer.
 */
export function faultMiddleware(faults: Faults, tokenPath: string, held: HeldAnswers) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const fault = faults.take(req.path === tokenPath ? ON_TOKEN_PATH : ON_OTHER_PATHS, req.path);
    if (!fault) return next();
    if (fault.kind === 'after-action') {
      setAfterAction(res, {
        answer: fault.answer ?? 'status',
        status: fault.status,
        hold: held.hold,
        unused: () => faults.giveBack(fault),
      });
      return next();
    }
    if (fault.kind === 'not-ok') {
      sendError(res, 200, 'Sandbox fault: not-ok (nothing was done)', { status: 'Error' });
      return;
    }
    sendError(res, fault.status, `Sandbox fault: ${fault.kind} (armed through /sandbox/faults)`);
  };
}
