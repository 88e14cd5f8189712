import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { fromCents } from '../core/money.ts';

/**
 * `GET /financial/v2/status/{uniqueReference}`: the public reference's transaction status
 * look-up by the caller's nonce. The sandbox answers it with the refund's own record for the
 * refunds it made (the record a client may settle a refund in doubt with), and 404 for any other
 * reference. A 404 here proves nothing about a live platform (its look-up may not cover
 * refunds), so a client must not read it as "nothing was paid".
 */
export function statusRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.get('/financial/v2/status/:uniqueReference', (req, res) => {
    const reference = req.params.uniqueReference;
    const made = deps.store.state.refunds.find((r) => r.uniqueReference === reference);
    if (!made) return sendError(res, 404, 'No transaction with this uniqueReference');
    sendOk(res, {
      transaction: {
        uniqueReference: reference,
        transactionId: made.result.transactionId,
        transactionType: 'Refund',
        originalTransactionId: made.originalTransactionId,
        amount: fromCents(made.amountCents),
        transactionStatus: 'Made',
        dateTime: new Date(made.atMs).toISOString(),
      },
    });
  });
  return router;
}
