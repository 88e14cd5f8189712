import type { Registry } from 'prom-client';
import type { Logger } from '../../lib/logger.ts';
import { withLease, type LeaseOptions } from '../../lib/database/lease.ts';
import type { Db } from '../../lib/database/database.ts';
import type { PruneStep } from '../../lib/database/prune-step.ts';
import { scheduleRuns, type ScheduledRuns } from '../../lib/scheduled-runs.ts';
import { RETENTION_LEASE, runPrune, type PruneOptions, type PruneSummary } from './prune.ts';
import { createPruneMetrics, type PruneMetrics } from './prune-metrics.ts';
import type { RetentionConfig } from './settings.ts';

/**
 * The service's scheduled prune: every instance ticks every RETENTION_INTERVAL_MS, but only one
 * at a time prunes (the `retention` lease in leases; the others skip that tick). The
 * schedule itself (jitter, skip, crash, stop) is src/lib/scheduled-runs.ts; stopping it stops a
 * run in progress after its current batch.
 */
export type PruneScheduler = ScheduledRuns;

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
  const { logger } = options;
  return scheduleRuns({
    ...options,
    name: 'prune',
    attempt: (signal) =>
      withLease(
        options.db,
        RETENTION_LEASE,
        (lease) => runPrune({ ...options.prune, db: options.db, lease, signal }),
        {
          onProblem: (message, error) => logger.warn({ err: error }, message),
          ...options.lease,
        },
      ),
    onRun: (summary) => {
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
    },
  });
}

/**
 * The scheduled prune, or undefined when it is off: RETENTION_INTERVAL_MS=0, or every retention
 * 0 (nothing would ever go).
 */
export function startScheduledPrune(deps: {
  config: RetentionConfig;
  db: Db;
  /** What to prune: each module's steps (src/cli/prune-steps.ts). */
  steps: readonly PruneStep[];
  logger: Logger;
  registry: Registry;
  random?: () => number;
}): PruneScheduler | undefined {
  const { retention } = deps.config;
  const anything =
    retention.rawDays + retention.feedDays + retention.feedAttemptsDays + retention.recoveryDays >
    0;
  if (retention.intervalMs === 0 || !anything) return undefined;
  const logger = deps.logger.child({ component: 'retention' });
  const scheduler = createPruneScheduler({
    db: deps.db,
    intervalMs: retention.intervalMs,
    prune: { steps: deps.steps, retention, relayConfigured: deps.config.feed.relay !== undefined },
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
      feedAttemptsDays: retention.feedAttemptsDays,
      recoveryDays: retention.recoveryDays,
    },
    'scheduled prune on',
  );
  return scheduler;
}
