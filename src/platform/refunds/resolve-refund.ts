import type { Logger } from '../../lib/logger.ts';
import { moneyText } from '../../lib/money.ts';
import { sqlState } from '../../lib/database/database-errors.ts';
import type { ProviderDb } from '../storage/tables.ts';
import { IN_DOUBT, type RefundRow } from './refunds-repository.ts';
import { tryLockRefund } from './refund-sender-lock.ts';

/**
 * An operator settles a refund in doubt: `paid` (the platform made it: the amount stays
 * refunded) or `not-paid` (it did not: the amount is released for another refund). Only a row
 * in doubt (`unknown`, or `pending` with no live sender) can be settled, and only with a name
 * and evidence, which are kept on the row (the migration's CHECK refuses a resolution without
 * them or on a row that is not settled). The refund's sender lock is held meanwhile, so a run
 * resuming the same reference cannot race the decision; the write still expects the row as
 * read (in doubt, the same attempts), so a run after a lost lock cannot be overwritten either.
 */
export interface Resolution {
  callerReference: string;
  outcome: 'paid' | 'not-paid';
  by: string;
  evidence: string;
}

export type ResolveResult =
  { resolved: true; refund: RefundRow } | { resolved: false; reason: string; refund?: RefundRow };

export async function resolveRefund(
  deps: { db: ProviderDb; logger: Logger; now: () => Date },
  resolution: Resolution,
): Promise<ResolveResult> {
  const lock = await tryLockRefund(deps.db, resolution.callerReference);
  if (!lock) {
    return {
      resolved: false,
      reason: 'a run is sending this refund right now: wait for it, then read its result',
    };
  }
  try {
    const row = await deps.db
      .selectFrom('refunds')
      .selectAll()
      .where('caller_reference', '=', resolution.callerReference)
      .executeTakeFirst();
    if (!row) return { resolved: false, reason: 'no refund was asked for under this reference' };
    if (!IN_DOUBT.includes(row.state)) {
      return {
        resolved: false,
        reason: `the refund is ${row.state}, not in doubt: nothing to resolve`,
        refund: row,
      };
    }
    const paid = resolution.outcome === 'paid';
    const now = deps.now();
    const updated = await recordResolution(deps.db, row, {
      state: paid ? 'succeeded' : 'failed',
      completed_at: now,
      resolved_by: resolution.by,
      resolved_at: now,
      resolution_evidence: resolution.evidence,
    });
    if (updated === 'not-allowed') return { resolved: false, reason: SERVICE_ROLE, refund: row };
    if (!updated) {
      return { resolved: false, reason: 'the refund changed while this ran: read it again' };
    }
    deps.logger.warn(
      {
        callerReference: row.caller_reference,
        uniqueReference: row.unique_reference,
        outcome: resolution.outcome,
        by: resolution.by,
      },
      `refund in doubt resolved by an operator: ${paid ? 'paid' : `not paid, ${moneyText(row.amount)} released`}`,
    );
    return { resolved: true, refund: updated };
  } finally {
    await lock.release();
  }
}

/**
 * The service's own database role may update only the columns the service sets (roles.sql), so
 * it cannot put a name and evidence on a refund: a decision about money is a person's, made
 * under the owner's or their own role. Said plainly rather than as a bare 42501.
 */
const SERVICE_ROLE =
  'this database role may not record a resolution (resolved_by, resolved_at, resolution_evidence): ' +
  'run refund-resolve with DATABASE_URL set to the owner role or your own (docs/runbooks/refund-unknown.md)';

async function recordResolution(
  db: ProviderDb,
  row: RefundRow,
  outcome: {
    state: 'succeeded' | 'failed';
    completed_at: Date;
    resolved_by: string;
    resolved_at: Date;
    resolution_evidence: string;
  },
): Promise<RefundRow | undefined | 'not-allowed'> {
  try {
    return await db
      .updateTable('refunds')
      .set(outcome)
      .where('unique_reference', '=', row.unique_reference)
      .where('state', '=', row.state)
      .where('attempts', '=', row.attempts)
      .returningAll()
      .executeTakeFirst();
  } catch (error) {
    if (sqlState(error) === '42501') return 'not-allowed';
    throw error;
  }
}
