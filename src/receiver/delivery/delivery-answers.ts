import type { FieldProblem } from '../events/types.ts';
import type { StoredDeliveryRef } from '../storage/deliveries-repository.ts';

export type DeliveryOutcome =
  | 'stored'
  | 'duplicate'
  | 'quarantined'
  | 'unauthorised'
  | 'no-signing-key'
  | 'signature-unconfirmed'
  | 'error';

export interface DeliveryAnswer {
  httpStatus: 200 | 400 | 401 | 500 | 503;
  outcome: DeliveryOutcome;
  description: string;
  errors?: FieldProblem[];
  /** What the one log line for this delivery says beyond outcome and status. */
  log: Record<string, unknown>;
  /** Business keys this delivery re-sent with other content (recorded in `conflicts`). */
  conflicts?: number;
  /** Set when the line deserves an operator's eye though the delivery was stored. */
  notable?: boolean;
  /** Set when the answer is a 5xx caused by an error worth a stack trace in the log. */
  error?: unknown;
}

/** The answers the pipeline gives besides "stored", with what their log line says. */

export function unauthorised(reason: string): DeliveryAnswer {
  return {
    httpStatus: 401,
    outcome: 'unauthorised',
    // Which check failed is for our log, not for whoever is probing the endpoint.
    description: 'Authorisation or signature check failed',
    log: { reason },
  };
}

const MAX_LOGGED_REASONS = 10;

export function quarantined(
  problems: FieldProblem[],
  log: Record<string, unknown>,
): DeliveryAnswer {
  return {
    httpStatus: 400,
    outcome: 'quarantined',
    description: 'Delivery refused and kept for review',
    errors: problems,
    // Why, in the line itself (bounded): the operator starts from it (`npm run quarantine`).
    log: {
      ...log,
      problems: problems.length,
      reasons: problems.slice(0, MAX_LOGGED_REASONS).map((p) => `${p.path}: ${p.message}`),
    },
  };
}

export function duplicate(
  ids: { webhookId: string },
  bodySha256: string,
  existing: StoredDeliveryRef | undefined,
): DeliveryAnswer {
  // The signature does not cover Webhookid: the same body under a new id is a replay, and the
  // same id with another body is the sender reusing an id. Both are worth a look in the log.
  const log: Record<string, unknown> = { ...ids };
  if (existing && existing.webhookId !== ids.webhookId) log.replayOf = existing.webhookId;
  if (existing && existing.bodySha256 !== bodySha256) log.sameIdDifferentBody = true;
  return { httpStatus: 200, outcome: 'duplicate', description: 'Delivery already received', log };
}
