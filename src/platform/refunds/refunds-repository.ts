import { sql, type Insertable, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../../lib/database/database.ts';
import { namedLock } from '../../lib/database/named-locks.ts';
import type { ProviderDb, ProviderTables, RefundState, RefundsTable } from '../storage/tables.ts';

/**
 * Refunds beside the payments they return. `reserve` runs in one transaction holding the
 * payment's row lock, so two refunds of one payment started at once are checked one after the
 * other against what is left.
 */
export interface StoredPayment {
  event: 'NPPReceivePayment' | 'PayToReceivePayment';
  transactionId: string;
  amount: string;
  receivedAt: Date;
  sourceBsb: string | null;
  sourceAccountNumber: string | null;
}

export type RefundRow = Selectable<RefundsTable>;

type Tx = Transaction<Database & ProviderTables>;

/**
 * Locks and reads the stored payment (NPP first, then PayTo). The lock is the row
 * `payment:<transaction id>` of `named_locks` for the rest of the transaction, not `FOR UPDATE`
 * on the payment: the typed rows are never updated, and a row lock there would need UPDATE on
 * them, which the runtime role should not have. Nor an advisory lock: any role that connects
 * could hold that one, the read-only feed role included (issue 24, item 8).
 */
export async function lockPayment(
  tx: Tx,
  transactionId: string,
): Promise<StoredPayment | undefined> {
  await namedLock(tx, `payment:${transactionId}`);
  for (const [table, event] of [
    ['npp_payments', 'NPPReceivePayment'],
    ['payto_payments', 'PayToReceivePayment'],
  ] as const) {
    const row = await tx
      .selectFrom(table)
      .select(['transaction_id', 'amount', 'received_at', 'source_bsb', 'source_account_number'])
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
    if (row) {
      return {
        event,
        transactionId: row.transaction_id,
        amount: row.amount,
        receivedAt: row.received_at,
        sourceBsb: row.source_bsb,
        sourceAccountNumber: row.source_account_number,
      };
    }
  }
  return undefined;
}

/** Refunds of a payment that are done or may yet be done (failed ones release their amount). */
export async function activeRefunds(tx: Tx, transactionId: string): Promise<RefundRow[]> {
  return tx
    .selectFrom('refunds')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('state', 'in', ['pending', 'unknown', 'succeeded'])
    .orderBy('requested_at')
    .execute();
}

/** The refund asked for under this caller reference, whichever payment it was for. */
export async function refundByCallerReference(
  tx: Tx,
  callerReference: string,
): Promise<RefundRow | undefined> {
  return tx
    .selectFrom('refunds')
    .selectAll()
    .where('caller_reference', '=', callerReference)
    .forUpdate()
    .executeTakeFirst();
}

/** The dialect of the platform's last definite answer to a refund (where to start the next). */
export async function lastAnsweredDialect(
  db: ProviderDb,
): Promise<'interface' | 'public' | undefined> {
  const row = await db
    .selectFrom('refunds')
    .select('dialect')
    .where('state', 'in', ['succeeded', 'failed'])
    .where('dialect', 'is not', null)
    .orderBy('completed_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.dialect ?? undefined;
}

/**
 * A reservation whose request never left this process (no credentials, say): nothing to keep.
 * Through `drop_unsent_refund()` (migrations/2026-11-28T02-…), which deletes only a `pending`
 * refund never attempted: the runtime role has no DELETE on refunds (issue 24, item 9).
 */
export async function dropUnsentRefund(db: ProviderDb, callerReference: string): Promise<void> {
  await sql`SELECT drop_unsent_refund(${callerReference})`.execute(db);
}

export async function insertPendingRefund(
  tx: Tx,
  row: Omit<Insertable<RefundsTable>, 'state'>,
): Promise<RefundRow> {
  return tx
    .insertInto('refunds')
    .values({ ...row, state: 'pending' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface RefundOutcome {
  state: Exclude<RefundState, 'pending'>;
  completedAt: Date | null;
  /** HTTP attempts this run made: added to the row's count, never replacing it. */
  attempts: number;
  refundTransactionId?: string | undefined;
  fees?: {
    excludingGst?: string | undefined;
    includingGst?: string | undefined;
    gst?: string | undefined;
  };
  httpStatus?: number | undefined;
  providerStatus?: string | undefined;
  statusDescription?: string | undefined;
  dialect?: 'interface' | 'public' | undefined;
}

/** The row as this run read it before sending: what its outcome write expects to find. */
export interface ReadVersion {
  state: RefundState;
  attempts: number;
}

function outcomeColumns(o: RefundOutcome) {
  return {
    state: o.state,
    completed_at: o.completedAt,
    attempts: sql<number>`attempts + ${o.attempts}`,
    refund_transaction_id: o.refundTransactionId ?? null,
    fee_amount_excluding_gst: o.fees?.excludingGst ?? null,
    fee_amount_including_gst: o.fees?.includingGst ?? null,
    fee_amount_gst_component: o.fees?.gst ?? null,
    http_status: o.httpStatus ?? null,
    provider_status: o.providerStatus ?? null,
    status_description: o.statusDescription?.slice(0, 1000) ?? null,
    ...(o.dialect !== undefined && { dialect: o.dialect }),
  };
}

/**
 * The platform said the refund was made (an Ok answer to its nonce, or its own record). That is
 * the truth whatever the row says, so it is written over any state but `succeeded` (which keeps
 * the first answer's transaction id and fees): two runs racing after a lost lock both end here
 * or in `recordGuarded`, and the success stands in either order. Undefined when the row was
 * already `succeeded` (the caller reads it again).
 */
export async function recordSuccess(
  db: ProviderDb,
  uniqueReference: string,
  o: RefundOutcome & { state: 'succeeded' },
): Promise<RefundRow | undefined> {
  return db
    .updateTable('refunds')
    .set(outcomeColumns(o))
    .where('unique_reference', '=', uniqueReference)
    .where('state', '<>', 'succeeded')
    .returningAll()
    .executeTakeFirst();
}

/**
 * Any outcome other than a success (`unknown`, `failed`), written only over the row this run
 * read: the same state and the same attempt count. Another run that recorded anything since
 * (a success, a later answer) has changed one of them, and its newer outcome stands; this run's
 * attempts are still counted (`countAttempts`). Undefined when the row had moved on.
 */
export async function recordGuarded(
  db: ProviderDb,
  uniqueReference: string,
  expected: ReadVersion,
  o: RefundOutcome & { state: 'unknown' | 'failed' },
): Promise<RefundRow | undefined> {
  return db
    .updateTable('refunds')
    .set(outcomeColumns(o))
    .where('unique_reference', '=', uniqueReference)
    .where('state', '=', expected.state)
    .where('attempts', '=', expected.attempts)
    .returningAll()
    .executeTakeFirst();
}

/** Adds attempts whose outcome another run's record overtook: every HTTP request is counted. */
export async function countAttempts(
  db: ProviderDb,
  uniqueReference: string,
  attempts: number,
): Promise<RefundRow> {
  return db
    .updateTable('refunds')
    .set({ attempts: sql<number>`attempts + ${attempts}` })
    .where('unique_reference', '=', uniqueReference)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** States in which the platform may have paid a refund that is not recorded as paid. */
export const IN_DOUBT: readonly RefundState[] = ['pending', 'unknown'];
