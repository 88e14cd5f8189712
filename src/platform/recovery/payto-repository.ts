import type { PaytoReceipt } from '../client/responses/payto-report.ts';
import type { ProviderDb } from '../storage/tables.ts';

/**
 * PayTo receipts: which the webhooks brought (a stored PayToReceivePayment), and the findings
 * table of those they did not.
 */
export function createPaytoRepository(db: ProviderDb) {
  return {
    /** Transaction ids among `ids` for which a PayToReceivePayment is stored. */
    async storedTransactionIds(ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('payto_payments')
        .select('transaction_id')
        .where('transaction_id', 'in', [...ids])
        .execute();
      return new Set(rows.map((row) => row.transaction_id));
    },

    /** Records (or refreshes) receipts with no stored notification; reopens a resolved one. */
    async recordUnmatched(
      day: string,
      receipts: readonly PaytoReceipt[],
      now: Date,
    ): Promise<void> {
      if (receipts.length === 0) return;
      await db
        .insertInto('payto_unmatched_receipts')
        .values(
          receipts.map((receipt) => ({
            transaction_id: receipt.transactionId ?? '',
            report_day: day,
            amount: receipt.amount ?? null,
            date_time_text: receipt.dateTime ?? null,
            report_row: JSON.stringify(receipt.columns),
            first_seen_at: now,
            last_seen_at: now,
            resolved_at: null,
          })),
        )
        .onConflict((oc) =>
          oc.column('transaction_id').doUpdateSet({
            last_seen_at: now,
            resolved_at: null,
            report_row: (eb) => eb.ref('excluded.report_row'),
          }),
        )
        .execute();
    },

    /** Marks findings resolved whose notification is now stored. */
    async resolve(transactionIds: readonly string[], now: Date): Promise<number> {
      if (transactionIds.length === 0) return 0;
      const result = await db
        .updateTable('payto_unmatched_receipts')
        .set({ resolved_at: now })
        .where('transaction_id', 'in', [...transactionIds])
        .where('resolved_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

export type PaytoRepository = ReturnType<typeof createPaytoRepository>;
