import { Registry } from 'prom-client';
import { startAssigner } from '../../src/feed/assigner.ts';
import { createFeedMetrics } from '../../src/feed/feed-metrics.ts';
import { startRelay, type RelayOptions } from '../../src/feed/relay.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { feedDatabase } from './feed-consumer.ts';

/**
 * One instance's feed as main.ts runs it (assigner and relay on their own pool), with short
 * retry timings so a test sees retries and dead letters in seconds.
 */
export function startFeedInstance(options: {
  databaseUrl: string;
  url: string;
  secret: Buffer;
  relay?: Partial<RelayOptions>;
}) {
  const { db } = feedDatabase(options.databaseUrl);
  const registry = new Registry();
  const metrics = createFeedMetrics(registry, { relay: true });
  const logger = createLogger('silent');
  const relay = startRelay({
    db,
    url: options.url,
    secrets: [options.secret],
    timeoutMs: 2000,
    concurrency: 4,
    retryBaseMs: 50,
    retryMaxMs: 400,
    maxAgeMs: 60_000,
    pollIntervalMs: 50,
    logger,
    metrics,
    ...options.relay,
  });
  const assigner = startAssigner({ db, intervalMs: 20, logger, onAssigned: () => relay.nudge() });
  return {
    db,
    metrics,
    registry,
    stop: async () => {
      await relay.stop();
      await assigner.stop();
      await db.destroy();
    },
  };
}

export type FeedInstance = ReturnType<typeof startFeedInstance>;
