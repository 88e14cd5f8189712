import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Db } from '../lib/database/database.ts';
import type { RelayMetrics } from './endpoint-relay/endpoint-relay.ts';
import { readFeedStats } from './feed-stats.ts';
import { CONFIGURED_ENDPOINT } from './relay-control.ts';

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
      const stats = await readFeedStats(db, { relay: true });
      unassigned.set(stats.unassigned);
      // Reset first: a removed endpoint's series go (no await between, so no scrape sees a gap).
      for (const series of Object.values(relayGauges)) series.reset();
      for (const endpoint of stats.endpoints) {
        // `configured` is delivered only where FEED_HTTP_URL is set: elsewhere its lag would
        // count the whole feed for an endpoint nobody runs.
        if (endpoint.name === CONFIGURED_ENDPOINT && !options.configured) continue;
        const labels = { endpoint: endpoint.name };
        relayGauges.backlog.set(labels, endpoint.pending);
        relayGauges.oldest.set(labels, endpoint.oldestPendingSeconds);
        relayGauges.dead.set(labels, endpoint.dead);
        relayGauges.paused.set(labels, endpoint.paused ? 1 : 0);
        relayGauges.lag.set(labels, endpoint.pending + endpoint.notFannedOut);
      }
    },
  };
}
