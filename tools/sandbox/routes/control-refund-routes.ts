import { Router } from 'express';
import { z } from 'zod';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { fromCents } from '../core/money.ts';
import { validate } from '../validation/patterns.ts';

const refundsQuery = z.object({
  transactionId: z
    .string({ error: 'must be given once, as text' })
    .min(1, { error: 'must be 1-100 characters' })
    .max(100, { error: 'must be 1-100 characters' })
    .optional(),
});

/**
 * `GET /sandbox/refunds?transactionId=`: what the platform really paid out, whatever the client
 * was answered. After an after-action fault (a lost answer, a hang) this is how a test sees
 * whether the client's retry refunded a second time.
 */
export function controlRefundRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.get('/sandbox/refunds', (req, res) => {
    const query = validate(refundsQuery, req.query);
    if (!query.ok) return sendError(res, 400, 'Validation failed', { problems: query.problems });
    const { transactionId } = query.value;
    const refunds = deps.store.state.refunds.filter(
      (r) => transactionId === undefined || r.originalTransactionId === transactionId,
    );
    sendOk(res, {
      refunds: refunds.map((r) => ({
        // '' is how older state files wrote "no nonce".
        uniqueReference: r.uniqueReference || null,
        originalTransactionId: r.originalTransactionId,
        amount: fromCents(r.amountCents),
        at: new Date(r.atMs).toISOString(),
      })),
      refundedTotal: fromCents(refunds.reduce((sum, r) => sum + r.amountCents, 0)),
    });
  });
  return router;
}
