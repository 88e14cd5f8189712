import { sql, type RawBuilder } from 'kysely';
import type { Logger } from '../lib/logger.ts';
import type { Db } from '../lib/database/database.ts';
import { FEED_ASSIGNER_LOCK, tryNamedLock } from '../lib/database/named-locks.ts';
import { readNotificationKey, signPosition } from './notification-signature.ts';

/**
 * The advisory lock the previous release's assigners take (and take turns on). Kept only so
 * that, during a rolling upgrade, old and new instances still number one at a time; see
 * `previousReleaseIdle`. Remove in the release after this one.
 */
export const ASSIGNER_LOCK_KEY = 0x66656564; // "feed"

/**
 * Consumers LISTEN on this channel; the payload is `<highest position assigned>.<signature>`
 * (src/feed/notification-signature.ts).
 */
export const FEED_CHANNEL = 'feed_positions';

const MAX_PER_RUN = 5000;

/**
 * One assigner run (docs/feed.md, "Positions in commit order"): under a row lock on
 * `named_locks` (only the receiver role may take it: an advisory lock, as before, could be held
 * by the read-only feed role and stop the feed for everyone), number the committed events that have no position yet, in id order, from the
 * highest position already assigned, and notify listeners; the commit releases the lock. The
 * numbering statement runs after the lock is granted, so its snapshot holds every earlier
 * run's positions, and each run is visible before the next begins: positions become visible
 * in ascending order, and `position > $last` never skips one. Returns how many were numbered
 * (0 also when another instance holds the lock).
 */
export async function assignPositions(db: Db, maxPerRun = MAX_PER_RUN): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (!(await tryNamedLock(trx, FEED_ASSIGNER_LOCK))) return 0;
    if (!(await previousReleaseIdle(trx))) return 0;
    const result = await sql<{ assigned: number; highest: string | null }>`
      WITH next AS (
        SELECT id, row_number() OVER (ORDER BY id) AS n
        FROM (SELECT id FROM feed_events WHERE position IS NULL ORDER BY id LIMIT ${maxPerRun}) u
      ),
      base AS (SELECT coalesce(max(position), 0) AS top FROM feed_events WHERE position IS NOT NULL),
      numbered AS (
        UPDATE feed_events e SET position = base.top + next.n
        FROM next, base WHERE e.id = next.id
        RETURNING e.position
      )
      SELECT count(*)::int AS assigned, max(position)::text AS highest FROM numbered
    `.execute(trx);
    const { assigned = 0, highest = null } = result.rows[0] ?? {};
    if (assigned > 0 && highest !== null) {
      const payload = signPosition(await readNotificationKey(trx), highest);
      await sql`SELECT pg_notify(${FEED_CHANNEL}, ${payload})`.execute(trx);
    }
    return assigned;
  });
}

/**
 * Rolling upgrade only: the previous release's assigners take turns on the advisory lock and
 * know nothing of the row lock. Taking it too (when free) keeps them waiting while this run
 * numbers; when it is held, this run waits only if a session of the service's own role holds it
 * (an old instance). Held by any other role (the feed reader) it is ignored: that is exactly
 * what the row lock is for.
 */
async function previousReleaseIdle(trx: Parameters<RawBuilder<unknown>['execute']>[0]) {
  const { rows } = await sql<{ idle: boolean }>`
    SELECT pg_try_advisory_xact_lock(${ASSIGNER_LOCK_KEY})
      OR NOT EXISTS (
        SELECT FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid = 0 AND l.objid = ${ASSIGNER_LOCK_KEY} AND l.objsubid = 1
          AND a.usename = current_user) AS idle
  `.execute(trx);
  return rows[0]?.idle === true;
}

export interface Assigner {
  /** Runs at once (e.g. after a test inserts events) instead of waiting for the interval. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs `assignPositions` every `intervalMs` on this instance (every instance may run one; the
 * lock makes them take turns), again at once while a run fills its limit. A failed run (the
 * database is down) is logged and retried at the next tick: it never stops the loop.
 */
export function startAssigner(options: {
  db: Db;
  intervalMs: number;
  logger: Logger;
  onAssigned?: (count: number) => void;
}): Assigner {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let failing = false;

  const runOnce = async () => {
    try {
      let count: number;
      do {
        count = await assignPositions(options.db);
        if (count > 0) options.onAssigned?.(count);
      } while (count >= MAX_PER_RUN && !stopped);
      if (failing) options.logger.info('feed assigner recovered');
      failing = false;
    } catch (error) {
      if (!failing) options.logger.warn({ err: error }, 'feed assigner failed; retrying');
      failing = true;
    }
  };
  const tick = () => {
    running = running.then(runOnce).finally(() => {
      if (!stopped) timer = setTimeout(tick, options.intervalMs).unref();
    });
  };
  tick();
  return {
    runNow: () => (running = running.then(runOnce)),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
