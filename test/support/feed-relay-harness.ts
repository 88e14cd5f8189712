import { Registry } from 'prom-client';
import { startAssigner } from '../../src/feed/assigner.ts';
import { startEndpointRelays } from '../../src/feed/endpoint-relay/endpoint-relays.ts';
import type { ConfiguredEndpoint } from '../../src/feed/endpoint-relay/endpoint-settings.ts';
import { createFeedMetrics } from '../../src/feed/feed-metrics.ts';
import { renderEvents } from '../../src/feed/render-events.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { feedDatabase } from './feed-consumer.ts';

/** What a test may change of an instance's relays (short timings by default). */
export interface RelayTestOptions extends Partial<Omit<ConfiguredEndpoint, 'url' | 'secrets'>> {
  retryBaseMs?: number;
  retryMaxMs?: number;
  instance?: string;
}

/**
 * One instance's feed as main.ts runs it (assigner and the endpoints' relays on their own pool),
 * with short retry timings so a test sees retries and dead letters in seconds. `url` and
 * `secret` declare the `configured` endpoint (FEED_HTTP_URL); without them only the endpoints in
 * feed_endpoints run. feed_endpoints is read again every 100 ms.
 */
export function startFeedInstance(options: {
  databaseUrl: string;
  url?: string;
  secret?: Buffer;
  relay?: RelayTestOptions;
}) {
  const { db } = feedDatabase(options.databaseUrl);
  const registry = new Registry();
  const { retryBaseMs = 50, retryMaxMs = 400, instance, ...endpoint } = options.relay ?? {};
  const configured =
    options.url === undefined
      ? undefined
      : {
          url: options.url,
          secrets: options.secret ? [options.secret] : [],
          timeoutMs: 2000,
          concurrency: 4,
          maxAgeMs: 60_000,
          ...endpoint,
        };
  const metrics = createFeedMetrics(registry, { configured: configured !== undefined });
  const logger = createLogger('silent');
  const relays = startEndpointRelays({
    db,
    configured,
    retryBaseMs,
    retryMaxMs,
    refreshMs: 100,
    pollIntervalMs: 50,
    logger,
    metrics,
    render: (events) => renderEvents(db, events),
    ...(instance !== undefined && { instance }),
  });
  const assigner = startAssigner({ db, intervalMs: 20, logger, onAssigned: () => relays.nudge() });
  return {
    db,
    metrics,
    registry,
    relays,
    stop: async () => {
      await relays.stop();
      await assigner.stop();
      await db.destroy();
    },
  };
}

export type FeedInstance = ReturnType<typeof startFeedInstance>;
