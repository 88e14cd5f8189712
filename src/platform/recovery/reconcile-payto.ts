import type { Logger } from '../../lib/logger.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import { paytoReportPages, type NumberedReceipt, type ReportPage } from '../client/report-pages.ts';
import type { ReportRowProblem } from '../client/responses/payto-report.ts';
import type { PaytoRepository } from './payto-repository.ts';
import { readReportInPages, type ReportReading, type RunContext } from './report-reading.ts';
import { storableText, type RowProblem } from './row-problems.ts';

/**
 * One Sydney day of the PayTo receivables report against what the webhooks stored, page by
 * page: every receipt without a stored PayToReceivePayment is recorded in
 * `payto_unmatched_receipts` for an operator (the report carries no Webhookid, so it cannot be
 * resent); a finding whose notification has since arrived is marked resolved. Rows that cannot
 * be read (cell count, no Transaction ID, one repeating an earlier row's, a control character
 * Postgres or an operator cannot take) are recorded in `recovery_row_problems` and skipped.
 */
export interface PaytoTally {
  receipts: number;
  matched: number;
  unmatched: number;
  /** Rows that could not be read: recorded in recovery_row_problems, skipped. */
  unreadable: number;
}

export const emptyPaytoTally = (): PaytoTally => ({
  receipts: 0,
  matched: 0,
  unmatched: 0,
  unreadable: 0,
});

export interface ReconcileDeps {
  client: ProviderClient;
  payto: PaytoRepository;
  logger: Logger;
  now: () => Date;
  run: RunContext;
}

export async function reconcilePayto(
  deps: ReconcileDeps,
  day: string,
  tally: PaytoTally,
  reading: ReportReading,
): Promise<void> {
  await readReportInPages(
    deps.run,
    reading,
    (range) => paytoReportPages(deps.client, day, range),
    async (page) => {
      await reconcilePage(deps, day, page, tally);
      return `${tally.unmatched} unmatched, ${tally.unreadable} unreadable so far`;
    },
  );
}

async function reconcilePage(
  deps: ReconcileDeps,
  day: string,
  page: ReportPage<{ receipts: NumberedReceipt[]; problems: ReportRowProblem[] }>,
  tally: PaytoTally,
): Promise<void> {
  const problems: RowProblem[] = [...page.content.problems];
  const readable: NumberedReceipt[] = [];
  for (const receipt of page.content.receipts) {
    const column = Object.entries(receipt.columns).find(
      ([name, value]) => unstorable(name) || unstorable(value),
    )?.[0];
    if (column === undefined) readable.push(receipt);
    else {
      problems.push({
        row: receipt.row,
        reason: `a control character in ${storableText(column, 100)}`,
        raw: Object.values(receipt.columns).join(','),
      });
    }
  }
  const now = deps.now();
  await deps.run.problems.record(deps.run.runId, 'payto', day, problems, now);
  const stored = await deps.payto.storedTransactionIds(readable.map((r) => r.transactionId));
  const unmatched = readable.filter((r) => !stored.has(r.transactionId));
  await deps.payto.recordUnmatched(day, unmatched, now);
  await deps.payto.resolve([...stored], now);
  tally.receipts += readable.length + problems.length;
  tally.unreadable += problems.length;
  tally.matched += readable.length - unmatched.length;
  tally.unmatched += unmatched.length;
  for (const problem of problems.slice(0, 20)) {
    deps.logger.error(
      { day, ...problem, raw: storableText(problem.raw) },
      'PayTo report row not read; recorded and skipped',
    );
  }
  for (const receipt of unmatched.slice(0, 100)) {
    deps.logger.warn(
      { day, transactionId: receipt.transactionId, amount: receipt.amount },
      'PayTo receipt with no stored PayToReceivePayment',
    );
  }
}

/**
 * A control character other than tab, CR and LF (which a quoted CSV field may carry): NUL cannot
 * be stored at all (text, jsonb), and the others mean the row is not what it claims to be.
 */
function unstorable(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code === 0x09 || code === 0x0a || code === 0x0d) continue;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
