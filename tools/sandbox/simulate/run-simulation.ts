import http from 'node:http';
import { postBytes } from '../../common/post-delivery.ts';
import { deliveryHeaders } from '../webhooks/attempt-delivery.ts';
import type { PlannedSend } from './plan.ts';
import { createProgress, type ProgressOptions } from './progress.ts';
import { countAttempt, countFinal, emptySummary, type SimulationSummary } from './summary.ts';
import { concurrencyLimit, pacer, sleep } from './throttle.ts';

export interface RunOptions {
  /** The receiver's base URL; deliveries go to `<url>/webhooks/<eventName>`. */
  url: string;
  /** Sent as `Authorisation` on every delivery, as the platform echoes the subscription's token. */
  secret?: string;
  /** Deliveries started per second; 0: as fast as concurrency allows. */
  rate: number;
  concurrency: number;
  /** The platform retries a failed delivery once, this much later (30 s). */
  retryDelayMs: number;
  timeoutMs: number;
  /** Told about every attempt, e.g. for a progress line. */
  onAttempt?: (send: PlannedSend, status: number | undefined, retry: boolean) => void;
  /**
   * While the run waits (retries, --rate, answers), a line at most every `intervalMs` saying
   * what for, how long is left and the counts so far (the CLI: stderr, every 5 s).
   */
  progress?: ProgressOptions;
}

/** The platform never retries a 400 or 401: the receiver has said the delivery is wrong. */
const FINAL = new Set([200, 400, 401]);

/** Sends the plan as the platform would, retrying once, and tallies every answer. */
export async function runSimulation(
  plan: readonly PlannedSend[],
  options: RunOptions,
): Promise<SimulationSummary> {
  const started = performance.now();
  const summary = emptySummary(plan);
  const limit = concurrencyLimit(options.concurrency);
  const pace = pacer(options.rate);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const base = new URL(options.url);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const progress = createProgress(
    options.progress ?? { intervalMs: 0, write: () => {} },
    summary,
    options,
  );

  const attempt = (send: PlannedSend, retry: boolean) =>
    limit(async () => {
      const { notification } = send;
      let status: number | undefined;
      let error: string | undefined;
      progress.requestStarted();
      try {
        const answer = await postBytes(new URL(`webhooks/${notification.eventName}`, base), {
          // With a charset, which the contract allows and the sandbox's own deliveries leave out.
          headers: deliveryHeaders(
            notification.webhookId,
            notification.signature,
            options.secret,
            'application/json; charset=utf-8',
          ),
          body: notification.body,
          timeoutMs: options.timeoutMs,
          agent,
        });
        status = answer.status;
      } catch (cause) {
        error = (cause as Error).message || (cause as { code?: string }).code || 'network error';
      } finally {
        progress.requestEnded();
      }
      countAttempt(summary, status, retry);
      options.onAttempt?.(send, status, retry);
      return { status, error };
    });

  try {
    await Promise.all(
      plan.map(async (send) => {
        let paced = false;
        await pace((at) => {
          paced = true;
          progress.paced(at);
        });
        if (paced) progress.started();
        let answer = await attempt(send, false);
        if (answer.status === undefined || !FINAL.has(answer.status)) {
          const at = performance.now() + options.retryDelayMs;
          progress.retryScheduled(at);
          await sleep(options.retryDelayMs);
          progress.retryStarted(at);
          answer = await attempt(send, true);
        }
        countFinal(summary, send, answer.status, answer.error);
        progress.finished();
      }),
    );
  } finally {
    progress.stop();
    agent.destroy();
  }
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
}
