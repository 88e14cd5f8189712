import { describeError } from '../../lib/describe-error.ts';
import type { SinkOutcome } from './sink.ts';
import { withinDeadline } from './within-deadline.ts';

/**
 * A broker sink's attempts: each answered within its timeout as an outcome (a failure is never
 * thrown: the relay records it and retries), each kept until it settles so that closing the sink
 * waits for them, and none started once closing began.
 */
export function boundedAttempts(broker: string) {
  const inFlight = new Set<Promise<SinkOutcome>>();
  let closing = false;
  return {
    /** `work` (the publish), or `late` once `timeoutMs` has passed. */
    run(work: () => Promise<SinkOutcome>, timeoutMs: number, late: string): Promise<SinkOutcome> {
      if (closing) return Promise.resolve({ ok: false, error: `${broker} sink closed` });
      const outcome = withinDeadline<SinkOutcome>(work(), timeoutMs, () => ({
        ok: false,
        error: `${broker}: ${late}`,
      })).catch((error: unknown): SinkOutcome => ({
        ok: false,
        error: `${broker}: ${describeError(error)}`,
      }));
      inFlight.add(outcome);
      const settled = () => inFlight.delete(outcome);
      outcome.then(settled, settled);
      return outcome;
    },
    /** No attempt starts after this; resolves once those in flight have their outcome. */
    async close(): Promise<void> {
      closing = true;
      await Promise.allSettled(inFlight);
    },
  };
}
