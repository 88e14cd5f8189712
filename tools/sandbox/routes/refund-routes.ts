import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { refund } from '../services/refunds.ts';
import { validate } from '../validation/patterns.ts';
import { REFUND_SCHEMAS } from '../validation/refund-dialects.ts';

/**
 * Receivables refund (v2), its body read in the sandbox's dialect. Its error answers are not
 * shown in the interface: 400 envelopes.
 */
export function refundRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.post('/receivables/v2/refund', (req, res) => {
    const body = validate(REFUND_SCHEMAS[deps.dialect], req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const outcome = refund(deps, body.value);
    if (!outcome.ok) return sendError(res, outcome.httpStatus, outcome.description);
    sendOk(res, outcome.result);
  });
  return router;
}
