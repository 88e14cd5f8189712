import { sql } from 'kysely';
import type { ProviderDb } from '../storage/tables.ts';

/**
 * "Someone is sending this refund right now", as a Postgres session advisory lock on its own
 * connection, held from before the reservation until the outcome is recorded. A run that dies
 * (kill -9, a lost machine) loses its connection and so its lock at once: the next run of the
 * same command finds the row `pending` with no live sender and resumes it with the same nonce,
 * instead of waiting out a timer. Should the lock vanish under a live sender (its connection
 * cut), the worst case is two requests with the same nonce, which the platform answers once.
 */
export interface HeldLock {
  release(): Promise<void>;
}

export async function tryLockRefund(
  db: ProviderDb,
  callerReference: string,
): Promise<HeldLock | undefined> {
  const key = `refund:${callerReference}`;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answer!: (held: boolean) => void;
  const acquired = new Promise<boolean>((resolve) => (answer = resolve));
  // The connection is held by this callback until `release()`; the lock lives on it. Never
  // rejects: a failure is handed back as a value (before the lock: thrown to the caller; after
  // it: the connection and so the lock are gone, nothing left to undo).
  const holding: Promise<unknown> = db
    .connection()
    .execute(async (connection) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`SELECT pg_try_advisory_lock(hashtextextended(${key}, 0)) AS locked`.execute(connection);
      const locked = rows[0]?.locked === true;
      answer(locked);
      if (!locked) return undefined;
      await released;
      await sql`SELECT pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(connection);
      return undefined;
    })
    .catch((error: unknown) => {
      answer(false);
      return error;
    });
  if (!(await acquired)) {
    const failure = await holding;
    if (failure !== undefined) throw failure;
    return undefined;
  }
  return {
    release: async () => {
      release();
      await holding;
    },
  };
}
