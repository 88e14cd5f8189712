import type { Logger } from '../logger.ts';
import type { ProviderClient } from '../provider/provider-client.ts';
import { readPaytoReceipts } from '../provider/report-pages.ts';
import type { PaytoRepository } from './payto-repository.ts';

/**
 * One Sydney day of the PayTo receivables report against what the webhooks stored: every
 * receipt without a stored PayToReceivePayment is recorded in `payto_unmatched_receipts` for an
 * operator (the report carries no Webhookid, so it cannot be resent); a finding whose
 * notification has since arrived is marked resolved.
 */
export interface PaytoTally {
  receipts: number;
  matched: number;
  unmatched: number;
  /** Rows that could not be read (cell count, no or repeated transaction id): logged, skipped. */
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
  progress?: (line: string) => void;
}

export async function reconcilePayto(
  deps: ReconcileDeps,
  day: string,
  tally: PaytoTally,
): Promise<void> {
  const { receipts: readable, problems } = await readPaytoReceipts(deps.client, day, {
    onPage: (page, rows) => deps.progress?.(`${day}: PayTo report page ${page}, ${rows} rows`),
  });
  const stored = await deps.payto.storedTransactionIds(readable.map((r) => r.transactionId));
  const unmatched = readable.filter((r) => !stored.has(r.transactionId));
  const now = deps.now();
  await deps.payto.recordUnmatched(day, unmatched, now);
  await deps.payto.resolve([...stored], now);
  tally.receipts += readable.length + problems.length;
  tally.unreadable += problems.length;
  tally.matched += readable.length - unmatched.length;
  tally.unmatched += unmatched.length;
  for (const problem of problems.slice(0, 20)) {
    deps.logger.error({ day, ...problem }, 'PayTo report row not read');
  }
  for (const receipt of unmatched) {
    deps.logger.warn(
      { day, transactionId: receipt.transactionId, amount: receipt.amount },
      'PayTo receipt with no stored PayToReceivePayment',
    );
  }
}
