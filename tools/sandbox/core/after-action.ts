import type { Response } from 'express';

/**
 * Faults after the platform has acted: the endpoint does its work (a refund is really made and
 * counted), then its answer is replaced. This is where money goes wrong for a client: it cannot
 * tell "refused" from "done, but the answer was lost", and must find out before trying again.
 * The fault middleware puts the armed fault in `res.locals`; the senders in envelope.ts take it
 * when they are about to answer.
 */
export const AFTER_ACTION_ANSWERS = [
  'status',
  'hang',
  'drop',
  'oversized',
  'unreadable',
  'not-ok',
] as const;
export type AfterActionAnswer = (typeof AFTER_ACTION_ANSWERS)[number];

export interface AfterAction {
  answer: AfterActionAnswer;
  /** The HTTP status of the `status` answer. */
  status: number;
  /** Keeps a `hang` answer's socket open, and closes it in the end (see createHeldAnswers). */
  hold(res: Response): void;
  /**
   * The endpoint refused the request, so nothing was carried out and the fault did not happen:
   * it goes back to the front of the armed list for the next request.
   */
  unused(): void;
}

/** The size of the `oversized` answer: above what a careful client reads into memory. */
export const OVERSIZED_BYTES = 2 * 1024 * 1024;
/** What a proxy in front of the platform answers when the platform is down: not JSON. */
export const UNREADABLE_HTML = '<html><body>Service temporarily unavailable</body></html>';

const LOCALS_KEY = 'sandboxAfterAction';

export function setAfterAction(res: Response, fault: AfterAction): void {
  res.locals[LOCALS_KEY] = fault;
}

/** The armed after-action fault of this request, once: the replacement must not be replaced. */
export function takeAfterAction(res: Response): AfterAction | undefined {
  const fault = res.locals[LOCALS_KEY] as AfterAction | undefined;
  delete res.locals[LOCALS_KEY];
  return fault;
}

/** `json` with a padding field, so the whole text is exactly OVERSIZED_BYTES and still JSON. */
export function paddedJson(json: Record<string, unknown>): string {
  const base = JSON.stringify({ ...json, sandboxPadding: '' });
  const missing = Math.max(0, OVERSIZED_BYTES - Buffer.byteLength(base, 'utf8'));
  return JSON.stringify({ ...json, sandboxPadding: ' '.repeat(missing) });
}

/**
 * Answers held open by a `hang` fault. Each socket is destroyed after `limitMs` at most, or by
 * `closeAll()` when the sandbox closes, so a hung answer never outlives the sandbox.
 */
export interface HeldAnswers {
  hold(res: Response): void;
  closeAll(): void;
}

export function createHeldAnswers(limitMs = 60_000): HeldAnswers {
  const held = new Map<Response, NodeJS.Timeout>();
  const release = (res: Response) => {
    clearTimeout(held.get(res));
    held.delete(res);
    res.socket?.destroy();
  };
  return {
    hold(res) {
      // unref: a hung answer alone must not keep the process alive.
      held.set(res, setTimeout(() => release(res), limitMs).unref());
      res.once('close', () => {
        clearTimeout(held.get(res));
        held.delete(res);
      });
    },
    closeAll() {
      for (const res of [...held.keys()]) release(res);
    },
  };
}
