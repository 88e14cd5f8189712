import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';
import { one, type Cutoffs } from '../../lib/database/prune-step.ts';

/** What a prune run reads once before its steps: the cutoffs, and whether a relay is at work. */

/** The cutoffs for these retentions (0 days: that kind is kept), by the database's clock. */
export async function readCutoffs(
  db: Db,
  days: { rawDays: number; feedDays: number; feedAttemptsDays: number; recoveryDays: number },
): Promise<Cutoffs> {
  const row = await one(
    db,
    sql<{
      raw: string;
      feed: string;
      feed_attempts: string;
      recovery: string;
      recovery_day: string;
    }>`
      SELECT (now() - ${days.rawDays}::int * interval '1 day')::text AS raw,
        (now() - ${days.feedDays}::int * interval '1 day')::text AS feed,
        (now() - ${days.feedAttemptsDays}::int * interval '1 day')::text AS feed_attempts,
        (now() - ${days.recoveryDays}::int * interval '1 day')::text AS recovery,
        ((now() - ${days.recoveryDays}::int * interval '1 day')
          AT TIME ZONE 'Australia/Sydney')::date::text AS recovery_day`,
  );
  return {
    raw: days.rawDays > 0 ? row.raw : undefined,
    feed: days.feedDays > 0 ? row.feed : undefined,
    feedAttempts: days.feedAttemptsDays > 0 ? row.feed_attempts : undefined,
    recovery: days.recoveryDays > 0 ? row.recovery : undefined,
    recoveryDay: days.recoveryDays > 0 ? row.recovery_day : undefined,
  };
}

/**
 * Whether a relay hands events on. FEED_HTTP_URL here says so; without it, the data may still
 * show a relay at work elsewhere (an operator's shell without the service's environment): an
 * endpoint paused, one an operator added, or a fan-out cursor that has moved (a relay has
 * considered events for an endpoint). Then events not yet handed on are treated as undelivered
 * all the same, so the prune never trusts a configuration that is only missing here. (Dead
 * letters are not a sign: they keep their deliveries either way, and outlive a relay that was
 * removed.)
 */
export async function relayInUse(
  db: Db,
  configured: boolean,
): Promise<'configured' | 'detected' | 'none'> {
  if (configured) return 'configured';
  const row = await one(
    db,
    sql<{ seen: boolean }>`
      SELECT EXISTS (
        SELECT 1 FROM feed_endpoints
        WHERE paused OR fanned_through > 0 OR declared_by = 'operator'
      ) AS seen`,
  );
  return row.seen ? 'detected' : 'none';
}

/** The lowest fan-out cursor of the feed's endpoints (0 when none): see StepContext. */
export async function readFannedThrough(db: Db): Promise<string> {
  const row = await one(
    db,
    sql<{ position: string }>`
      SELECT coalesce(min(fanned_through), 0)::text AS position FROM feed_endpoints`,
  );
  return row.position;
}
