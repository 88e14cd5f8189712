import { Counter, Histogram, type Registry } from 'prom-client';
import { levelGauge, TalliedCounter, type Level } from './counted-at-scrape.ts';
import {
  createMetricsRegistry,
  type MetricsRegistryOptions,
} from '../../lib/http/metrics-registry.ts';
import type { KeyFetchResult } from '../verification/fetched-key-source.ts';

/** What an operator alerts on. One registry per app: nothing here is global. */
export interface Metrics {
  registry: Registry;
  /**
   * By event and outcome. Label `event` is a modelled event's name or "unmodelled", so a URL
   * cannot mint labels. Like the levels and conflicts, counted here and read at a scrape
   * (counted-at-scrape.ts): every delivery moves them.
   */
  deliveries: TalliedCounter;
  requestDuration: Histogram<'route' | 'status'>;
  keyFetches: Counter<'result'>;
  inFlightDeliveries: Level;
  /** Bodies being read before anything proved their sender (only without a shared secret). */
  unverifiedBodiesInFlight: Level;
  /** Bodies still being read past the grace period when another request needed the slot: 408. */
  unverifiedBodiesEvicted: Counter;
  /** Bytes of request bodies held now (after inflation), against BODY_MEMORY_BUDGET_BYTES. */
  bodyBytesInFlight: Level;
  writeBatchSize: Histogram;
  /** Business keys re-sent with other content (rows in the conflicts table), by event. */
  conflicts: TalliedCounter;
}

/**
 * The receiver's metrics, on a registry of the process's own (src/lib/http/metrics-registry.ts:
 * the default process metrics, the pool's and the log's) made here unless one is given.
 */
export function createMetrics(
  options: MetricsRegistryOptions & { registry?: Registry } = {},
): Metrics {
  const registry = options.registry ?? createMetricsRegistry(options);
  const metrics: Metrics = {
    registry,
    deliveries: new TalliedCounter(
      {
        name: 'webhook_deliveries_total',
        help: 'Deliveries answered, by event and outcome (stored, duplicate, quarantined, unauthorised, no-signing-key, signature-unconfirmed, overloaded, error).',
        registry,
      },
      ['event', 'outcome'],
    ),
    requestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request start to the answer being written.',
      labelNames: ['route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    keyFetches: new Counter({
      name: 'signing_key_fetches_total',
      help: 'Fetches of the platform signing key: fetched (unchanged), changed (new key), failed.',
      labelNames: ['result'],
      registers: [registry],
    }),
    writeBatchSize: new Histogram({
      name: 'webhook_write_batch_size',
      help: 'Deliveries per database statement (group commit): 1 at low load, more under load.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: [registry],
    }),
    conflicts: new TalliedCounter(
      {
        name: 'webhook_conflicts_total',
        help: 'Business keys (TransactionId, rejection id) re-sent with other content; each is a row in the conflicts table.',
        registry,
      },
      ['event'],
    ),
    inFlightDeliveries: levelGauge({
      name: 'webhook_deliveries_in_flight',
      help: 'Deliveries being processed by this instance now.',
      registry,
    }),
    unverifiedBodiesInFlight: levelGauge({
      name: 'webhook_unverified_bodies_in_flight',
      help: 'Request bodies being read before their signature is checked (slots and probation places).',
      registry,
    }),
    unverifiedBodiesEvicted: new Counter({
      name: 'webhook_unverified_bodies_evicted_total',
      help: 'Request bodies still being read after the grace period (1 s) when another request needed their slot: answered 408 and closed.',
      registers: [registry],
    }),
    bodyBytesInFlight: levelGauge({
      name: 'webhook_body_bytes_in_flight',
      help: 'Bytes of request bodies held in memory now, after inflation.',
      registry,
    }),
  };
  // Pre-create the series an alert looks for, so "no errors yet" reads 0 rather than absent.
  for (const result of ['fetched', 'changed', 'failed'] satisfies KeyFetchResult[]) {
    metrics.keyFetches.inc({ result }, 0);
  }
  return metrics;
}
