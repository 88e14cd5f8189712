import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../lib/database/database.ts';
import { readFeedStats } from './feed-stats.ts';

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
      // Summed over the enabled endpoints until the gauges carry an endpoint label.
      const enabled = stats.endpoints.filter((e) => e.enabled);
      const total = (field: 'pending' | 'dead') => enabled.reduce((n, e) => n + e[field], 0);
      relayGauges.backlog.set(total('pending'));
      relayGauges.oldest.set(Math.max(0, ...enabled.map((e) => e.oldestPendingSeconds)));
      relayGauges.dead.set(total('dead'));
      relayGauges.paused.set(enabled.length > 0 && enabled.every((e) => e.paused) ? 1 : 0);
    },
  };
}
