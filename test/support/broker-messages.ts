import type { FeedMessage, SinkOutcome } from '../../src/feed/sinks/sink.ts';

/**
 * Feed messages for the broker sinks' tests, as the relay hands them over: an id, a type, the
 * JSON envelope and its Standard Webhooks headers (the values only need to arrive unchanged).
 */
export function feedMessage(position: number, type = 'payment.received'): FeedMessage {
  const id = `evt_${position}`;
  return {
    id,
    type,
    position: String(position),
    body: JSON.stringify({ id, type, position: String(position), data: { amount: '125.5' } }),
    headers: {
      'webhook-id': id,
      'webhook-timestamp': '1764400000',
      'webhook-signature': `v1,c2lnbmF0dXJlLW9mLSR7aWR9LSR7cG9zaXRpb259-${position}`,
    },
  };
}

export interface StreamRun {
  /** Ids whose send answered ok. */
  ok: Set<string>;
  /** Ids whose send failed, with the first error seen. */
  failed: Map<string, string>;
}

/**
 * Sends messages 1..count through `send`, `concurrency` at a time (as the relay does), starting
 * `midway` (the fault) when `at` sends have been answered, without waiting for it: the sends go
 * on while it lands. Resolves once every send and `midway` are done; every outcome recorded.
 */
export async function sendStream(
  send: (message: FeedMessage) => Promise<SinkOutcome>,
  options: {
    count: number;
    concurrency: number;
    at: number;
    midway: () => Promise<void>;
    /** A pause after each send, per worker: a stream that lasts longer than a slow fault. */
    paceMs?: number;
  },
): Promise<StreamRun> {
  const run: StreamRun = { ok: new Set(), failed: new Map() };
  let next = 1;
  let answered = 0;
  let midway: Promise<void> | undefined;
  const worker = async () => {
    while (next <= options.count) {
      const message = feedMessage(next);
      next += 1;
      const outcome = await send(message);
      if (outcome.ok) run.ok.add(message.id);
      else run.failed.set(message.id, outcome.error);
      answered += 1;
      if (answered === options.at) midway = options.midway();
      if (options.paceMs) await new Promise((resolve) => setTimeout(resolve, options.paceMs));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await midway;
  return run;
}

/** Sends each failed message again until it answers ok (within `timeoutMs` in all). */
export async function resendFailed(
  run: StreamRun,
  send: (message: FeedMessage) => Promise<SinkOutcome>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const id of [...run.failed.keys()]) {
    for (;;) {
      const outcome = await send(feedMessage(Number(id.slice('evt_'.length))));
      if (outcome.ok) break;
      if (Date.now() > deadline) throw new Error(`${id} still failing: ${outcome.error}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
