import { Router, type Request, type Response } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk, sendText } from '../core/envelope.ts';
import { csvDocument, csvRow } from '../report/csv.ts';
import { REPORT_HEADER, reportRecord, selectPayToReceipts } from '../report/payto-report.ts';
import { validate } from '../validation/patterns.ts';
import { reportSchema } from '../validation/report-schema.ts';

/** The public reference's filters, which the interface does not have: ignored there. */
const PUBLIC_ONLY_FILTERS = ['transactionType', 'transactionCode'];

/**
 * PayTo receivables report. The interface answers JSON with `ndeFileDetails` (one CSV row per
 * receipt), the public reference `text/plain` CSV with a header row; each strict dialect
 * answers only its own, and 406 to a caller whose `Accept` rules it out. `any` answers JSON,
 * or CSV when the caller accepts `text/csv` or `application/octet-stream` and not JSON.
 */
export function reportRoutes(deps: SandboxDeps): Router {
  const router = Router();
  const { dialect } = deps;
  router.get('/paytoreceivables/v1/report/:date', (req, res) => {
    const given: Record<string, unknown> = { ...req.query };
    if (dialect === 'interface') for (const name of PUBLIC_ONLY_FILTERS) delete given[name];
    const query = validate(reportSchema, { ...given, date: req.params.date });
    if (!query.ok) return sendError(res, 400, 'Validation failed', { problems: query.problems });
    const records = selectPayToReceipts(deps.store.state.payments, query.value).map(reportRecord);
    const rows = records.map(csvRow);
    const csv = () => csvDocument([REPORT_HEADER, ...records]);
    if (dialect === 'interface') {
      if (!req.accepts('application/json')) return notAcceptable(req, res, 'application/json');
      return sendOk(res, { ndeFileDetails: rows });
    }
    if (dialect === 'public') {
      if (!req.accepts('text/plain')) return notAcceptable(req, res, 'text/plain');
      return sendText(res, 'text/plain; charset=utf-8', csv());
    }
    const wanted = req.accepts(['application/json', 'text/csv', 'application/octet-stream']);
    if (wanted === 'text/csv' || wanted === 'application/octet-stream')
      return sendText(res, wanted, csv());
    sendOk(res, { ndeFileDetails: rows });
  });
  return router;
}

function notAcceptable(req: Request, res: Response, offered: string): void {
  const accept = req.get('accept') ?? '';
  sendError(res, 406, `This report is answered only as ${offered}, not ${accept}`.slice(0, 500));
}
