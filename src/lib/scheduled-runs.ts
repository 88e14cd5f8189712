import type { Logger } from './logger.ts';

/**
 * A job every instance of the service runs on a schedule but only one at a time (a lease: the
 * others skip that tick): every `intervalMs`, the first tick after a random part of it (plus
 * `holdOffMs`, if given), so that instances started together do not all try at once. A run that throws is logged and counted;
 * the schedule goes on. Used by the scheduled recovery and the scheduled prune.
 */
export interface ScheduledRuns {
  start(): void;
  /** One tick now: 'ran', 'skipped' when another instance holds the lease, or 'error'. */
  tick(): Promise<'ran' | 'skipped' | 'error'>;
  /** Stops scheduling, aborts the signal a run in progress was given, and waits for it. */
  stop(): Promise<void>;
}

export interface ScheduledRunsOptions<T> {
  /** What runs, for the log: "<name> skipped", "<name> run crashed". */
  name: string;
  intervalMs: number;
  /** One run if the lease could be taken (`ran: false` when another instance holds it). */
  attempt: (signal: AbortSignal) => Promise<{ ran: true; result: T } | { ran: false }>;
  logger: Logger;
  metrics: {
    runs: { inc(labels: { result: string }): void };
    observe(result: T, finishedAt: Date): void;
  };
  random?: () => number;
  now?: () => Date;
  /**
   * No run sooner than this after `start` (default 0): the first tick comes `holdOffMs` plus the
   * random part of the interval after it. For a job that should not act while the service (and
   * the database it just came back with) is settling after a restart.
   */
  holdOffMs?: number;
  /** Each finished run, after its metrics. */
  onRun?: (result: T) => void;
}

export function scheduleRuns<T>(options: ScheduledRunsOptions<T>): ScheduledRuns {
  const { logger, metrics } = options;
  const now = options.now ?? (() => new Date());
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> | undefined;
  let stopped = false;

  async function tick(): Promise<'ran' | 'skipped' | 'error'> {
    try {
      const outcome = await options.attempt(stopping.signal);
      if (!outcome.ran) {
        metrics.runs.inc({ result: 'skipped' });
        logger.debug(`${options.name} skipped: another instance is running it`);
        return 'skipped';
      }
      metrics.observe(outcome.result, now());
      options.onRun?.(outcome.result);
      return 'ran';
    } catch (error) {
      metrics.runs.inc({ result: 'error' });
      logger.error({ err: error }, `${options.name} run crashed`);
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
      const jitter = Math.round((options.random ?? Math.random)() * options.intervalMs);
      schedule((options.holdOffMs ?? 0) + jitter);
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
