import { setTimeout as sleepFor } from 'node:timers/promises';
import { describeError } from './log.js';

/**
 * Runs a broker reader until `signal` aborts: when it fails (the broker unreachable, the
 * connection lost), it is logged and started again, waiting 1 s doubling to 60 s (jittered);
 * a reader that ran for a minute starts the waits over.
 *
 * @param {string} name  for the log
 * @param {(signal: AbortSignal) => Promise<void>} read  resolves only once `signal` aborted
 * @param {{ log: import('./log.js').Log, signal: AbortSignal }} options
 */
export async function keepReading(name, read, { log, signal }) {
  let failures = 0;
  while (!signal.aborted) {
    const started = Date.now();
    try {
      await read(signal);
      return;
    } catch (error) {
      if (signal.aborted) return;
      failures = Date.now() - started > 60_000 ? 1 : failures + 1;
      const step = Math.min(60_000, 1000 * 2 ** Math.min(failures - 1, 30));
      const delayMs = Math.round(step / 2 + (Math.random() * step) / 2);
      log.warn(`${name}: failed; reconnecting`, { error: describeError(error), failures, delayMs });
      await sleepFor(delayMs, undefined, { signal }).catch(() => {});
    }
  }
}
