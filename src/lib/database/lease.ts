import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { ColumnType, Kysely } from 'kysely';
import type { Db } from './database.ts';

/**
 * Who may run a piece of work now, across every instance and the operator commands (recovery,
 * `npm run recover`, the scheduled and commanded prune): a row in `leases` (migration
 * 2026-11-29T00; `recovery_leases` before it) with a name, a holder and an expiry. It is taken only when free or expired
 * (`INSERT ... ON CONFLICT DO UPDATE ... WHERE expires_at < clock_timestamp()`, atomic on the
 * row), renewed while the work goes on, and deleted when it ends. An instance that dies leaves
 * it to expire (`ttlMs`, one minute by default).
 *
 * It replaces a session advisory lock, which lived on one pooled connection: when that
 * connection died (a restart of a proxy, `pg_terminate_backend`), Postgres dropped the lock
 * while the holder's run went on, and a second instance started alongside it. A row does not
 * vanish with a connection. The holder still learns only when it asks that it lost the lease
 * (someone deleted it, or it expired and another took it), so every resend is recorded in the
 * same statement that checks and renews the lease (see attempts-repository.ts): a run that lost
 * its lease cannot ask for another resend, and stops.
 *
 * Time is the database's (`clock_timestamp()`), never an instance's clock.
 */
/** The `leases` table, typed here beside its one user rather than with the receiver's tables. */
interface LeasesTable {
  name: string;
  holder: string;
  acquired_at: ColumnType<Date, Date, Date>;
  expires_at: ColumnType<Date, Date, Date>;
}

type LeaseDb = Kysely<{ leases: LeasesTable }>;

export interface LeaseOptions {
  /** How long the lease lasts unrenewed (default 60 s). */
  ttlMs?: number;
  /** How often it is renewed while the work goes on (default a quarter of `ttlMs`). */
  renewEveryMs?: number;
  /** Who takes it, for the record (default `<host>:<pid>`); a random suffix is always added. */
  holderPrefix?: string;
  /** Told when a renewal could not be made (the database unreachable) or found the lease lost. */
  onProblem?: (message: string, error?: unknown) => void;
}

const DEFAULT_LEASE_TTL_MS = 60_000;

export interface Lease {
  readonly name: string;
  /** Unique per acquisition. */
  readonly holder: string;
  readonly ttlMs: number;
  /** Set once the lease was found taken by another or removed: the work must stop. */
  readonly lost: boolean;
  /** Records that the lease was found lost (by a guarded statement). */
  markLost(): void;
  /** Extends the lease by `ttlMs` from now; false (and lost) when it is no longer ours. */
  renew(): Promise<boolean>;
}

/** The work stopped because its lease was lost: another run may be going on. */
export class LeaseLostError extends Error {
  constructor(readonly lease: Pick<Lease, 'name' | 'holder'>) {
    super(`lease "${lease.name}" lost (holder ${lease.holder}): another run may have taken over`);
    this.name = 'LeaseLostError';
  }
}

export type LeaseOutcome<T> =
  | { ran: true; result: T }
  | { ran: false; holder: string | undefined; expiresAt: Date | undefined };

/** Why a run did not start: another holds its lease (until when, if known). */
export function leaseHeld(
  what: string,
  outcome: { holder: string | undefined; expiresAt: Date | undefined },
): string {
  const until = outcome.expiresAt ? ` until ${outcome.expiresAt.toISOString()}` : '';
  return `another ${what} is running (${outcome.holder ?? 'another instance'} holds the lease${until}); try again shortly`;
}

/** Runs `work` holding the lease, or does nothing when another holds it. Never waits. */
export async function withLease<T>(
  database: Db,
  name: string,
  work: (lease: Lease) => Promise<T>,
  options: LeaseOptions = {},
): Promise<LeaseOutcome<T>> {
  const db = database as unknown as LeaseDb;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const holder = `${options.holderPrefix ?? `${hostname()}:${process.pid}`}:${randomUUID()}`;
  const { rows } = await sql<{ holder: string }>`
    INSERT INTO leases (name, holder, acquired_at, expires_at)
    VALUES (${name}, ${holder}, clock_timestamp(),
            clock_timestamp() + ${ttlMs}::float8 * interval '1 millisecond')
    ON CONFLICT (name) DO UPDATE
      SET holder = excluded.holder, acquired_at = excluded.acquired_at,
          expires_at = excluded.expires_at
      WHERE leases.expires_at < clock_timestamp()
    RETURNING holder`.execute(db);
  if (rows[0]?.holder !== holder) {
    const current = await db
      .selectFrom('leases')
      .select(['holder', 'expires_at'])
      .where('name', '=', name)
      .executeTakeFirst();
    return { ran: false, holder: current?.holder, expiresAt: current?.expires_at };
  }

  let lost = false;
  const lease: Lease = {
    name,
    holder,
    ttlMs,
    get lost() {
      return lost;
    },
    markLost() {
      if (!lost) options.onProblem?.(`lease "${name}" lost`);
      lost = true;
    },
    async renew() {
      if (lost) return false;
      const renewed = await db
        .updateTable('leases')
        .set({
          expires_at: sql<Date>`clock_timestamp() + ${ttlMs}::float8 * interval '1 millisecond'`,
        })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .returning('holder')
        .executeTakeFirst();
      if (renewed === undefined) lease.markLost();
      return renewed !== undefined;
    },
  };

  let renewing: Promise<unknown> | undefined;
  const timer = setInterval(
    () => {
      if (renewing || lost) return;
      renewing = lease
        .renew()
        .catch((error: unknown) => options.onProblem?.(`lease "${name}" not renewed`, error))
        .finally(() => (renewing = undefined));
    },
    options.renewEveryMs ?? Math.max(10, Math.floor(ttlMs / 4)),
  );
  timer.unref();
  try {
    return { ran: true, result: await work(lease) };
  } finally {
    clearInterval(timer);
    await renewing;
    // Not released (the database unreachable): it expires by itself within ttlMs.
    await db
      .deleteFrom('leases')
      .where('name', '=', name)
      .where('holder', '=', holder)
      .execute()
      .catch((error: unknown) => options.onProblem?.(`lease "${name}" not released`, error));
  }
}
