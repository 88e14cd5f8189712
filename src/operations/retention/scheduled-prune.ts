import type { Registry } from 'prom-client';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { withLease, type LeaseOptions } from '../../platform/index.ts';
import type { Db } from '../../lib/database/database.ts';
import { RETENTION_LEASE, runPrune, type PruneOptions, type PruneSummary } from './prune.ts';
import { createPruneMetrics, type PruneMetrics } from './prune-metrics.ts';

/**
 * The service's scheduled prune: every instance ticks every RETENTION_INTERVAL_MS, but only one
 * at a time prunes (the `retention` lease in recovery_leases; the others skip that tick). The
 * first tick comes after a random part of the interval, so instances started together do not
 * all try at once. A run that throws is logged and counted; the schedule goes on.
 */
export interface PruneScheduler {
  start(): void;
  /** One tick now: 'ran', 'skipped' when another instance holds the lease, or 'error'. */
  tick(): Promise<'ran' | 'skipped' | 'error'>;
  /** Stops scheduling, and a run in progress after its current batch; waits for it. */
  stop(): Promise<void>;
}

export interface PruneSchedulerOptions {
  db: Db;
  intervalMs: number;
  prune: Omit<PruneOptions, 'db' | 'lease' | 'signal' | 'dryRun'>;
  logger: Logger;
  metrics: PruneMetrics;
  random?: () => number;
  lease?: LeaseOptions;
  /** Each finished run (tests). */
  onRun?: (summary: PruneSummary) => void;
}

export function createPruneScheduler(options: PruneSchedulerOptions): PruneScheduler {
  const { logger, metrics } = options;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> | undefined;
  let stopped = false;

  async function tick(): Promise<'ran' | 'skipped' | 'error'> {
    try {
      const outcome = await withLease(
        options.db,
        RETENTION_LEASE,
        (lease) => runPrune({ ...options.prune, db: options.db, lease, signal: stopping.signal }),
        {
          onProblem: (message, error) => logger.warn({ err: error }, message),
          ...options.lease,
        },
      );
      if (!outcome.ran) {
        metrics.runs.inc({ result: 'skipped' });
        logger.debug('prune skipped: another instance is running it');
        return 'skipped';
      }
      const summary = outcome.result;
      metrics.observe(summary, new Date());
      const rows = Object.fromEntries(summary.steps.map((s) => [s.table, s.rows]));
      const level = summary.steps.some((s) => s.rows > 0) || !summary.complete ? 'info' : 'debug';
      logger[level](
        {
          rows,
          batches: summary.batches,
          elapsedMs: summary.elapsedMs,
          complete: summary.complete,
          stoppedBy: summary.stoppedBy,
          relay: summary.relay,
        },
        'prune run finished',
      );
      options.onRun?.(summary);
      return 'ran';
    } catch (error) {
      metrics.runs.inc({ result: 'error' });
      logger.error({ err: error }, 'prune run crashed');
      return 'error';
    }
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      current = tick().finally(() => {
        current = undefined;
        schedule(options.intervalMs);
      });
    }, delayMs);
    timer.unref();
  }

  return {
    start() {
      schedule(Math.round((options.random ?? Math.random)() * options.intervalMs));
    },
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      await current;
    },
  };
}

/**
 * The scheduled prune, or undefined when it is off: RETENTION_INTERVAL_MS=0, or every retention
 * 0 (nothing would ever go).
 */
export function startScheduledPrune(deps: {
  config: Pick<Config, 'retention' | 'feed'>;
  db: Db;
  logger: Logger;
  registry: Registry;
  random?: () => number;
}): PruneScheduler | undefined {
  const { retention } = deps.config;
  const anything = retention.rawDays + retention.feedDays + retention.recoveryDays > 0;
  if (retention.intervalMs === 0 || !anything) return undefined;
  const logger = deps.logger.child({ component: 'retention' });
  const scheduler = createPruneScheduler({
    db: deps.db,
    intervalMs: retention.intervalMs,
    prune: { retention, relayConfigured: deps.config.feed.relay !== undefined },
    logger,
    metrics: createPruneMetrics(deps.registry),
    ...(deps.random && { random: deps.random }),
  });
  scheduler.start();
  deps.logger.info(
    {
      intervalMs: retention.intervalMs,
      rawDays: retention.rawDays,
      feedDays: retention.feedDays,
      recoveryDays: retention.recoveryDays,
    },
    'scheduled prune on',
  );
  return scheduler;
}
