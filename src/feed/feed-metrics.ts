import { Counter, Gauge, type Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';

/** The feed's series (docs/feed.md, "Operating it"), registered on the app's registry. */
export interface FeedMetrics {
  attempts: Counter<'result'>;
  deadLettered: Counter;
  /** Reads the database once and sets the gauges (called every few seconds, not per scrape). */
  refresh(db: Db): Promise<void>;
}

export function createFeedMetrics(registry: Registry, options: { relay: boolean }): FeedMetrics {
  const registers = [registry];
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
  const unassigned = gauge(
    'feed_events_unassigned',
    'Committed feed events without a position yet (stays above 0 only if no assigner runs).',
  );
  const relayGauges = options.relay
    ? {
        backlog: gauge('feed_relay_backlog', 'Events with a position not yet sent (not dead).'),
        oldest: gauge(
          'feed_relay_oldest_pending_age_seconds',
          'Age of the oldest event not yet sent (not dead), 0 when none.',
        ),
        dead: gauge('feed_relay_dead_letters', 'Dead-lettered events (kept until re-driven).'),
        paused: gauge('feed_relay_paused', '1 while the relay is paused (all instances).'),
      }
    : undefined;
  const attempts = new Counter({
    name: 'feed_relay_attempts_total',
    help: 'POSTs of feed events by this instance: sent (2xx) or failed.',
    labelNames: ['result'],
    registers,
  });
  for (const result of ['sent', 'failed']) attempts.inc({ result }, 0);
  const deadLettered = new Counter({
    name: 'feed_relay_dead_lettered_total',
    help: 'Events this instance dead-lettered (failed past FEED_MAX_AGE_MS).',
    registers,
  });

  return {
    attempts,
    deadLettered,
    async refresh(db) {
      const stats = await readFeedStats(db, { relay: relayGauges !== undefined });
      unassigned.set(stats.unassigned);
      if (!relayGauges) return;
      relayGauges.backlog.set(stats.pending);
      relayGauges.oldest.set(stats.oldestPendingSeconds);
      relayGauges.dead.set(stats.dead);
      relayGauges.paused.set(stats.paused ? 1 : 0);
    },
  };
}

export interface FeedStats {
  unassigned: number;
  /** Positioned events not yet sent (not dead), counted up to STATS_COUNT_CAP. */
  pending: number;
  oldestPendingSeconds: number;
  dead: number;
  /** Pending events held back by a dead letter earlier in their key. */
  blocked: number;
  lastPosition: string;
  paused: boolean;
  pausedReason: string | null;
}

/**
 * Counts stop here: a gauge at the cap says "at least this many", which is all an alert needs,
 * and keeps each refresh bounded whatever the backlog (a relay switched on over years of
 * history, say). Every query below reads a partial index (unassigned, due, dead) or the
 * position index's end, so its cost follows the backlog, never the rows kept.
 */
const STATS_COUNT_CAP = 100_000;

/**
 * The feed's numbers. `relay: false` (no push relay configured) reads only what does not depend
 * on one: without a relay every event stays `pending` for ever, and counting them would cost
 * what the table holds.
 */
export async function readFeedStats(
  db: Db,
  options: { relay: boolean } = { relay: true },
): Promise<FeedStats> {
  // Built from constants only (no parameters): the text the plan tests read.
  const result = await sql
    .raw<Record<string, string | boolean | null>>(feedStatsSql(options))
    .execute(db);
  const row = result.rows[0] ?? {};
  const count = (name: string) => Number(row[name] ?? 0);
  return {
    unassigned: count('unassigned'),
    pending: count('pending'),
    oldestPendingSeconds: count('oldest'),
    dead: count('dead'),
    blocked: count('blocked'),
    lastPosition: String(row.last ?? '0'),
    paused: row.paused === true,
    pausedReason: typeof row.reason === 'string' ? row.reason : null,
  };
}

/** The statement behind `readFeedStats` (exported for the plan tests). */
export function feedStatsSql(options: { relay: boolean }): string {
  const capped = (where: string) =>
    `(SELECT count(*) FROM (SELECT 1 FROM feed_events WHERE ${where} LIMIT ${STATS_COUNT_CAP}) AS c)`;
  const relayColumns = options.relay
    ? `${capped("relay_state = 'pending' AND position IS NOT NULL")} AS pending,
       (SELECT coalesce(extract(epoch FROM now() - created_at), 0) FROM feed_events
         WHERE relay_state = 'pending' AND position IS NOT NULL
         ORDER BY position LIMIT 1) AS oldest,
       ${capped("relay_state = 'dead'")} AS dead,
       (SELECT count(*) FROM (SELECT 1 FROM
         (SELECT DISTINCT ON (event_name, business_key) event_name, business_key, position
           FROM feed_events WHERE relay_state = 'dead'
           ORDER BY event_name, business_key, position) AS d
         JOIN LATERAL (SELECT 1 FROM feed_events o
           WHERE o.relay_state = 'pending' AND o.position IS NOT NULL
             AND o.event_name = d.event_name AND o.business_key = d.business_key
             AND o.position > d.position
           LIMIT ${STATS_COUNT_CAP}) AS held ON true
         LIMIT ${STATS_COUNT_CAP}) AS b) AS blocked,`
    : '';
  return `SELECT
       ${capped('position IS NULL')} AS unassigned,
       ${relayColumns}
       (SELECT position FROM feed_events WHERE position IS NOT NULL
         ORDER BY position DESC LIMIT 1) AS last,
       paused, reason
     FROM feed_relay_control`;
}
