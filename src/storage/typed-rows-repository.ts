import type { Transaction } from 'kysely';
import type { CreditRejectionRow, NppPaymentRow, TypedRows } from '../events/types.ts';
import type { Database } from './database.ts';

export interface TypedRowsResult {
  inserted: number;
  /** Rows whose business key (TransactionId, rejection id) was already stored by another delivery. */
  alreadyStored: number;
}

/** Postgres allows 65,535 bind parameters a statement; a large rejection batch is split. */
const ROWS_PER_STATEMENT = 1000;

export async function insertTypedRows(
  trx: Transaction<Database>,
  context: { eventName: string; webhookId: string; receivedAt: Date },
  typed: TypedRows,
): Promise<TypedRowsResult> {
  switch (typed.kind) {
    case 'npp-payment':
      return insertNppPayments(trx, context, typed.rows);
    case 'credit-rejections':
      return insertCreditRejections(trx, context, typed.rows);
    case 'unmodelled':
      return { inserted: 0, alreadyStored: 0 };
  }
}

async function insertNppPayments(
  trx: Transaction<Database>,
  { webhookId, receivedAt }: { webhookId: string; receivedAt: Date },
  rows: readonly NppPaymentRow[],
): Promise<TypedRowsResult> {
  const inserted = await trx
    .insertInto('npp_payments')
    .values(
      rows.map((row) => ({
        transaction_id: row.transactionId,
        webhook_id: webhookId,
        end_to_end_id: row.endToEndId,
        amount: row.amount,
        date_time_local: row.dateTimeLocal,
        date_time_text: row.dateTimeText,
        receipt_number: row.receiptNumber,
        pay_id: row.payId,
        remitter_name: row.remitterName,
        bsb: row.bsb,
        account_number: row.accountNumber,
        remittance_information: row.remittanceInformation,
        refund_inbound_amount: row.refundInboundAmount,
        refund_amount: row.refundAmount,
        refund_id: row.refundId,
        received_at: receivedAt,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .returning('transaction_id')
    .execute();
  return { inserted: inserted.length, alreadyStored: rows.length - inserted.length };
}

async function insertCreditRejections(
  trx: Transaction<Database>,
  { eventName, webhookId, receivedAt }: { eventName: string; webhookId: string; receivedAt: Date },
  rows: readonly CreditRejectionRow[],
): Promise<TypedRowsResult> {
  // A stable order means two batches sharing rejection ids lock them in the same order and
  // cannot deadlock each other.
  const ordered = [...rows].sort((a, b) => (a.rejectionId < b.rejectionId ? -1 : 1));
  let inserted = 0;
  for (let start = 0; start < ordered.length; start += ROWS_PER_STATEMENT) {
    const chunk = ordered.slice(start, start + ROWS_PER_STATEMENT);
    const result = await trx
      .insertInto('credit_rejections')
      .values(
        chunk.map((row) => ({
          event_name: eventName,
          rejection_id: row.rejectionId,
          webhook_id: webhookId,
          batch_id: row.batchId,
          date_time_local: row.dateTimeLocal,
          date_time_text: row.dateTimeText,
          transaction_type: row.transactionType,
          amount: row.amount,
          bsb: row.bsb,
          account_number: row.accountNumber,
          account_name: row.accountName,
          reference: row.reference,
          remitter_name: row.remitterName,
          rejection_reason: row.rejectionReason,
          received_at: receivedAt,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('rejection_id')
      .execute();
    inserted += result.length;
  }
  return { inserted, alreadyStored: rows.length - inserted };
}
