import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../lib/database/database.ts';
import { scheduleRuns, type ScheduledRuns } from '../../lib/scheduled-runs.ts';
import { withLease, type Lease, type LeaseOptions } from '../../lib/database/lease.ts';
import type { RecoveryMetrics } from './recovery-metrics.ts';
import type { RecoverySummary } from './run-recovery.ts';

/** The lease recovery runs under, scheduled or by `npm run recover`. */
export const RECOVERY_LEASE = 'recovery';

/**
 * Runs recovery every `intervalMs` on every instance, but only one at a time across all of
 * them (the `recovery` lease, see src/lib/database/lease.ts; the others skip that tick), the first time
 * no sooner than one interval after start. The schedule
 * itself (jitter, skip, crash, stop) is src/lib/scheduled-runs.ts.
 */
export interface SchedulerOptions {
  db: Db;
  intervalMs: number;
  /** One run, holding the lease: it must stop asking for resends once `lease.lost`. */
  run: (lease: Lease) => Promise<RecoverySummary>;
  logger: Logger;
  metrics: RecoveryMetrics;
  random?: () => number;
  now?: () => Date;
  lease?: LeaseOptions;
  /**
   * No run sooner than this after start (default: one interval). A service that starts is
   * often one coming back after an outage, with the database least stable: resends asked for
   * then are the ones whose deliveries meet its blips (issue 24).
   */
  holdOffMs?: number;
}

export type RecoveryScheduler = ScheduledRuns;

export function createRecoveryScheduler(options: SchedulerOptions): RecoveryScheduler {
  const { logger } = options;
  return scheduleRuns({
    ...options,
    name: 'recovery',
    holdOffMs: options.holdOffMs ?? options.intervalMs,
    attempt: () =>
      withLease(options.db, RECOVERY_LEASE, options.run, {
        onProblem: (message, error) => logger.warn({ err: error }, message),
        ...options.lease,
      }),
  });
}
