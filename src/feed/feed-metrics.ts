import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';
import type { RelayMetrics } from './endpoint-relay/endpoint-relay.ts';
import { readEndpointStats } from './endpoint-relay/endpoint-stats.ts';

/**
 * The feed's series (docs/feed.md, "Operating it"), registered on the app's registry. The
 * relay's are per endpoint (label `endpoint`, its name): counters for what this instance did,
 * gauges for what the database holds (the same on every instance).
 */
export interface FeedMetrics extends RelayMetrics {
  /** Reads the database once and sets the gauges (called every few seconds, not per scrape). */
  refresh(db: Db): Promise<void>;
}

/** `configured`: FEED_HTTP_URL is set on this instance, so the `configured` endpoint is reported. */
export function createFeedMetrics(
  registry: Registry,
  options: { configured: boolean },
): FeedMetrics {
  const registers = [registry];
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
  const perEndpoint = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['endpoint'], registers });
  const unassigned = gauge(
    'feed_events_unassigned',
    'Committed feed events without a position yet (stays above 0 only if no assigner runs).',
  );
  const relayGauges = {
    backlog: perEndpoint('feed_relay_backlog', 'Events of the endpoint not yet sent (not dead).'),
    oldest: perEndpoint(
      'feed_relay_oldest_pending_age_seconds',
      "Age of the endpoint's oldest event not yet sent (not dead), 0 when none.",
    ),
    dead: perEndpoint('feed_relay_dead_letters', 'Dead-lettered events (kept until re-driven).'),
    paused: perEndpoint('feed_relay_paused', '1 while the endpoint is paused (all instances).'),
    lag: perEndpoint(
      'feed_relay_lag_events',
      'Events not yet delivered: pending for the endpoint, or past its fan-out cursor.',
    ),
  };
  const attempts = new Counter({
    name: 'feed_relay_attempts_total',
    help: 'Attempts by this instance to hand an event to an endpoint: sent or failed.',
    labelNames: ['endpoint', 'result'],
    registers,
  });
  const deadLettered = new Counter({
    name: 'feed_relay_dead_lettered_total',
    help: "Events this instance dead-lettered (failed past the endpoint's maximum age).",
    labelNames: ['endpoint'],
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'feed_relay_attempt_duration_seconds',
    help: 'How long each attempt took, answered or not (a timeout counts in full).',
    labelNames: ['endpoint'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });

  return {
    attempts,
    deadLettered,
    attemptDuration,
    async refresh(db) {
      const [stats, endpoints] = await Promise.all([
        readFeedStats(db, { relay: false }),
        readEndpointStats(db, options),
      ]);
      unassigned.set(stats.unassigned);
      // Reset first: a removed endpoint's series go (no await between, so no scrape sees a gap).
      for (const series of Object.values(relayGauges)) series.reset();
      for (const endpoint of endpoints) {
        const labels = { endpoint: endpoint.name };
        relayGauges.backlog.set(labels, endpoint.pending);
        relayGauges.oldest.set(labels, endpoint.oldestPendingSeconds);
        relayGauges.dead.set(labels, endpoint.dead);
        relayGauges.paused.set(labels, endpoint.paused ? 1 : 0);
        relayGauges.lag.set(labels, endpoint.lagEvents);
      }
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
