import { runLoad, type Send } from '../core/sender.ts';
import { workloadFor, type ScenarioContext, type ScenarioTag } from './context.ts';

/** No load runs longer than this, whatever the fault does. */
const HARD_LIMIT_MS = 90_000;

export interface FaultProgress {
  /** Deliveries sent so far. */
  sent(): number;
  /** The fault is over now (default: when the fault's function returns). */
  over(): void;
}

/**
 * B and C: deliveries at --rate through nginx while `fault` runs, each failure retried once
 * after `retryDelayMs` (the platform's model), until at least --fault-deliveries are sent and
 * `afterMs` have passed since the fault was over. The fault's result and every send.
 */
export async function loadThroughFault<T>(
  context: ScenarioContext,
  tag: ScenarioTag,
  o: { label: string; retryDelayMs: number; afterMs: number },
  fault: (progress: FaultProgress) => Promise<T>,
): Promise<{ sends: Send[]; fault: T }> {
  const { stack, options } = context;
  const next = workloadFor(context, tag);
  const started = performance.now();
  let sent = 0;
  let overAt: number | undefined;
  let aborted = false;
  const load = runLoad({
    baseUrl: stack.nginxUrl,
    secret: stack.secret,
    concurrency: options.concurrency,
    rate: options.rate,
    retryDelayMs: o.retryDelayMs,
    label: o.label,
    onBody: context.onBody,
    next: () => {
      const now = performance.now();
      const done =
        sent >= options.faultDeliveries && overAt !== undefined && now >= overAt + o.afterMs;
      if (done || aborted || now - started > HARD_LIMIT_MS) return undefined;
      sent += 1;
      return { delivery: next(), copy: 0 };
    },
  });
  let result: T;
  try {
    result = await fault({
      sent: () => sent,
      over: () => {
        overAt ??= performance.now();
      },
    });
  } catch (error) {
    aborted = true;
    await load;
    throw error;
  }
  overAt ??= performance.now();
  return { sends: await load, fault: result };
}
