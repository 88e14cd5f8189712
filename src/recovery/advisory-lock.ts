import { sql } from 'kysely';
import type { Db } from '../storage/database.ts';

/**
 * Runs `work` only if no other session (any instance) holds the lock, holding it meanwhile on
 * one pooled connection: a session-level advisory lock, so it is released when the work ends,
 * or by Postgres when the connection dies with the process. Never waits for the lock.
 */
export const RECOVERY_LOCK_KEY = 7_347_301_926_001n; // arbitrary, fixed: "recovery" for this service

export async function withTryLock<T>(
  db: Db,
  key: bigint,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`SELECT pg_try_advisory_lock(${key.toString()}::bigint) AS locked`.execute(connection);
    if (!rows[0]?.locked) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await sql`SELECT pg_advisory_unlock(${key.toString()}::bigint)`.execute(connection);
    }
  });
}
