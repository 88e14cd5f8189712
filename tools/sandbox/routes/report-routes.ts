import { Router } from 'express';
import type { SandboxDeps } from '../deps.ts';
import { sendError, sendOk } from '../envelope.ts';
import { csvDocument } from '../report/csv.ts';
import { reportHeader, reportRow, selectPayToReceipts } from '../report/payto-report.ts';
import { validate } from '../validation/patterns.ts';
import { reportSchema } from '../validation/report-schema.ts';

/**
 * PayTo receivables report: JSON with `ndeFileDetails` (one CSV row per receipt, the
 * interface), or, when the caller accepts `text/csv` or `application/octet-stream` and not
 * JSON, CSV text with a header row (the public reference).
 */
export function reportRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.get('/paytoreceivables/v1/report/:date', (req, res) => {
    const query = validate(reportSchema, { ...req.query, date: req.params.date });
    if (!query.ok) return sendError(res, 400, 'Validation failed', { problems: query.problems });
    const rows = selectPayToReceipts(deps.store.state.payments, query.value).map(reportRow);
    const wantsCsv = req.accepts(['application/json', 'text/csv', 'application/octet-stream']);
    if (wantsCsv === 'text/csv' || wantsCsv === 'application/octet-stream') {
      res
        .status(200)
        .type(wantsCsv)
        .send(csvDocument([reportHeader(), ...rows]));
      return;
    }
    sendOk(res, { ndeFileDetails: rows });
  });
  return router;
}
