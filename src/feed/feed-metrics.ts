import { Counter, Gauge, type Registry } from 'prom-client';
import { feedQuery, type FeedQueryable } from './feed-query.ts';

/** The feed's series (docs/feed.md, "Operating it"), registered on the app's registry. */
export interface FeedMetrics {
  attempts: Counter<'result'>;
  deadLettered: Counter;
  /** Reads the database once and sets the gauges (called every few seconds, not per scrape). */
  refresh(db: FeedQueryable): Promise<void>;
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
      const stats = await readFeedStats(db);
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
  pending: number;
  oldestPendingSeconds: number;
  dead: number;
  /** Pending events held back by a dead letter earlier in their key. */
  blocked: number;
  lastPosition: string;
  paused: boolean;
  pausedReason: string | null;
}

export async function readFeedStats(db: FeedQueryable): Promise<FeedStats> {
  const result = await feedQuery<Record<string, string | boolean | null>>(
    db,
    `SELECT
       (SELECT count(*) FROM feed_events WHERE position IS NULL) AS unassigned,
       (SELECT count(*) FROM feed_events WHERE relay_state = 'pending' AND position IS NOT NULL)
         AS pending,
       (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0) FROM feed_events
         WHERE relay_state = 'pending' AND position IS NOT NULL) AS oldest,
       (SELECT count(*) FROM feed_events WHERE relay_state = 'dead') AS dead,
       (SELECT count(*) FROM feed_events o WHERE o.relay_state = 'pending' AND EXISTS (
         SELECT 1 FROM feed_events d WHERE d.relay_state = 'dead'
           AND d.event_name = o.event_name AND d.business_key = o.business_key
           AND d.position < o.position)) AS blocked,
       (SELECT coalesce(max(position), 0) FROM feed_events WHERE position IS NOT NULL) AS last,
       paused, reason
     FROM feed_relay_control`,
  );
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
