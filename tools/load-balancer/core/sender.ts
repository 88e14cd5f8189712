import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { post, type Answer } from './http-post.ts';
import type { PlannedDelivery } from './workload.ts';

/** One send of a delivery (a duplicate is another send of the same delivery) and its answers. */
export interface Send {
  delivery: PlannedDelivery;
  /** 0 for the first copy of a delivery, 1 and up for its duplicates. */
  copy: number;
  /** The first try and, when the sender retried, the retry. */
  attempts: Answer[];
  /** The X-Request-Id sent with each attempt. */
  requestIds: string[];
}

export interface LoadOptions {
  baseUrl: string;
  secret: string;
  concurrency: number;
  /** The next send, or undefined once the load is over. */
  next: () => { delivery: PlannedDelivery; copy: number } | undefined;
  /** Sends offered per second, like a platform that does not speed up when we fail; unset: flat out. */
  rate?: number;
  /**
   * The platform's model: an attempt that is not a 200 (or got no answer) is tried once more
   * after this pause; never a third time. Unset: no retries.
   */
  retryDelayMs?: number;
  /** Request ids start with this. */
  label: string;
  /** Called with every response body (the leak check reads them). */
  onBody: (body: string) => void;
  timeoutMs?: number;
}

export async function runLoad(o: LoadOptions): Promise<Send[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency * 2 });
  const sends: Send[] = [];
  const retries: Promise<void>[] = [];
  const startedAt = performance.now();

  const attempt = async (send: Send) => {
    const requestId = `${o.label}-${send.delivery.webhookId}-${send.copy}-${send.attempts.length}`;
    send.requestIds.push(requestId);
    const answer = await post({
      url: webhookUrl(o.baseUrl, send.delivery),
      agent,
      timeoutMs: o.timeoutMs ?? 20_000,
      body: send.delivery.body,
      headers: deliveryHeaders(send.delivery, o.secret, send.delivery.signature, requestId),
    });
    o.onBody(answer.body);
    send.attempts.push(answer);
    return answer;
  };

  const worker = async () => {
    for (;;) {
      const item = o.next();
      if (!item) return;
      const send: Send = { ...item, attempts: [], requestIds: [] };
      const index = sends.push(send) - 1;
      if (o.rate) await sleep(startedAt + (index * 1000) / o.rate - performance.now());
      const first = await attempt(send);
      if (first.status !== 200 && o.retryDelayMs !== undefined) {
        const delay = o.retryDelayMs;
        retries.push(sleep(delay).then(() => attempt(send).then(() => undefined)));
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
    await Promise.all(retries);
  } finally {
    agent.destroy();
  }
  return sends;
}

export function webhookUrl(baseUrl: string, delivery: PlannedDelivery): URL {
  return new URL(`/webhooks/${delivery.eventName}`, baseUrl);
}

/** The platform's headers for `delivery`, with this secret and signature (a probe forges one). */
export function deliveryHeaders(
  delivery: PlannedDelivery,
  secret: string,
  signature: string,
  requestId: string,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Webhookid: delivery.webhookId,
    Authorisation: secret,
    'Verification-Signature': signature,
    'X-Request-Id': requestId,
  };
}

/** Status of an attempt for counting: the HTTP status, or the network error's code. */
export function outcomeOf(answer: Answer | undefined): string {
  if (!answer) return 'none';
  return answer.status !== undefined ? String(answer.status) : `network error ${answer.error}`;
}
