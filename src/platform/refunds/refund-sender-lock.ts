import { holdNamedLock, type HeldLock } from '../../lib/database/named-locks.ts';
import type { ProviderDb } from '../storage/tables.ts';

/**
 * "Someone is sending this refund right now": the row `refund:<caller reference>` of
 * `named_locks`, locked by a transaction left open on a connection of its own from before the
 * reservation until the outcome is recorded (src/lib/database/named-locks.ts). Only the receiver
 * role may lock it; an advisory lock, as before, could be taken by any role that connects, the
 * read-only feed role included (issue 24, item 8). A run that dies (kill -9, a lost machine)
 * loses its connection and so its lock at once: the next run of the same command finds the row
 * `pending` with no live sender and resumes it with the same nonce, instead of waiting out a
 * timer. Should the lock vanish under a live sender (its connection cut), the worst case is two
 * requests with the same nonce, which the platform answers once.
 */
export type { HeldLock };

export async function tryLockRefund(
  db: ProviderDb,
  callerReference: string,
): Promise<HeldLock | undefined> {
  return holdNamedLock(db, `refund:${callerReference}`);
}
