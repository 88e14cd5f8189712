import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Locks that only the receiver role can hold: a row of `named_locks` locked FOR UPDATE (issue
 * 24, item 8). They replace Postgres advisory locks, which any role that may connect can take,
 * the read-only feed role included: a merchant's SQL consumer held the assigner's advisory lock
 * and no event was numbered for anyone. `SELECT … FOR UPDATE` needs UPDATE privilege on the
 * table, and deploy/sql/roles.sql gives that to the receiver role alone.
 *
 * A row lock lives as long as its transaction, and like an advisory lock it goes the moment
 * its session does (a killed process, a lost connection): nothing to expire, nothing to clean.
 * Names are inserted the first time they are locked and kept (`migrations/2026-11-28T01-…`).
 */

/** Anything a raw statement runs on: the pool, a transaction, one connection. */
type Executor = Parameters<RawBuilder<unknown>['execute']>[0];

/** The assigner's lock (its row is made by the migration). */
export const FEED_ASSIGNER_LOCK = 'feed-assigner';

/** Makes the lock's row if it is new (no lock taken, nothing written when it exists). */
async function ensureNamedLock(executor: Executor, name: string): Promise<void> {
  await sql`INSERT INTO named_locks (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`.execute(
    executor,
  );
}

/**
 * Takes the lock for the rest of the current transaction if nobody holds it; false at once
 * otherwise (SKIP LOCKED: never waits). The row must exist (`ensureNamedLock`).
 */
export async function tryNamedLock(executor: Executor, name: string): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`
    SELECT name FROM named_locks WHERE name = ${name} FOR UPDATE SKIP LOCKED
  `.execute(executor);
  return rows.length === 1;
}

/** Takes the lock for the rest of the current transaction, waiting while another holds it. */
export async function namedLock(executor: Executor, name: string): Promise<void> {
  await ensureNamedLock(executor, name);
  await sql`SELECT name FROM named_locks WHERE name = ${name} FOR UPDATE`.execute(executor);
}

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Holds the lock across the caller's own transactions: on a connection of its own, in a
 * transaction left open (and idle) until `release()`, which commits it. Undefined when another
 * session holds it. Never rejects after the lock is taken: if the connection is lost, so is
 * the lock, and there is nothing left to undo.
 */
export async function holdNamedLock<DB>(
  db: Kysely<DB>,
  name: string,
): Promise<HeldLock | undefined> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answer!: (held: boolean) => void;
  const acquired = new Promise<boolean>((resolve) => (answer = resolve));
  const holding: Promise<unknown> = db
    .connection()
    .execute(async (connection) => {
      // Its own commit first: a new name's row is visible to the next run at once.
      await ensureNamedLock(connection, name);
      await connection.transaction().execute(async (trx) => {
        const locked = await tryNamedLock(trx, name);
        answer(locked);
        if (locked) await released;
      });
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
