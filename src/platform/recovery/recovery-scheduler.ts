import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../lib/database/database.ts';
import { RECOVERY_LEASE, withLease, type Lease, type LeaseOptions } from './lease.ts';
import type { RecoveryMetrics } from './recovery-metrics.ts';
import type { RecoverySummary } from './run-recovery.ts';

/**
 * Runs recovery every `intervalMs` on every instance, but only one at a time across all of
 * them (the `recovery_leases` lease, see lease.ts; the others skip that tick). The first run
 * comes after a random part of the interval, so instances started together do not all try at
 * once. A run that throws is logged and counted; the schedule goes on.
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
}

export interface RecoveryScheduler {
  start(): void;
  /** One tick now: 'ran', or 'skipped' when another instance holds the lease. */
  tick(): Promise<'ran' | 'skipped' | 'error'>;
  /** Stops scheduling and waits for a run in progress. */
  stop(): Promise<void>;
}

export function createRecoveryScheduler(options: SchedulerOptions): RecoveryScheduler {
  const { logger, metrics } = options;
  const now = options.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> | undefined;
  let stopped = false;

  async function tick(): Promise<'ran' | 'skipped' | 'error'> {
    try {
      const outcome = await withLease(options.db, RECOVERY_LEASE, options.run, {
        onProblem: (message, error) => logger.warn({ err: error }, message),
        ...options.lease,
      });
      if (!outcome.ran) {
        metrics.runs.inc({ result: 'skipped' });
        logger.debug('recovery skipped: another instance is running it');
        return 'skipped';
      }
      metrics.observe(outcome.result, now());
      return 'ran';
    } catch (error) {
      metrics.runs.inc({ result: 'error' });
      logger.error({ err: error }, 'recovery run crashed');
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
      await current;
    },
  };
}
