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
  /** Rows without a transaction id: cannot be matched; logged. */
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
  const receipts = await readPaytoReceipts(deps.client, day, {
    onPage: (page, rows) => deps.progress?.(`${day}: PayTo report page ${page}, ${rows} rows`),
  });
  const readable = receipts.filter((r) => r.transactionId !== undefined);
  const stored = await deps.payto.storedTransactionIds(readable.map((r) => r.transactionId!));
  const unmatched = readable.filter((r) => !stored.has(r.transactionId!));
  const now = deps.now();
  await deps.payto.recordUnmatched(day, unmatched, now);
  await deps.payto.resolve([...stored], now);
  tally.receipts += receipts.length;
  tally.unreadable += receipts.length - readable.length;
  tally.matched += readable.length - unmatched.length;
  tally.unmatched += unmatched.length;
  if (receipts.length > readable.length) {
    deps.logger.error(
      { day, rows: receipts.length - readable.length },
      'PayTo report rows without a transaction id',
    );
  }
  for (const receipt of unmatched) {
    deps.logger.warn(
      { day, transactionId: receipt.transactionId, amount: receipt.amount },
      'PayTo receipt with no stored PayToReceivePayment',
    );
  }
}
