import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../lib/logger.ts';
import { retryBackoffMs } from '../lib/backoff.ts';
import { HttpCallError, httpCall } from '../lib/http-client.ts';
import type { FeedMetrics } from './feed-metrics.ts';
import type { Db } from '../lib/database/database.ts';
import { claimEvents, markFailed, markSent, type ClaimedEvent } from './relay-store.ts';
import { renderEvents } from './render-events.ts';
import { signWebhook } from './signer.ts';

export interface RelayOptions {
  db: Db;
  url: string;
  secrets: readonly Buffer[];
  timeoutMs: number;
  /** POSTs in flight at once on this instance (different keys; one key is one at a time). */
  concurrency: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxAgeMs: number;
  logger: Logger;
  metrics?: FeedMetrics;
  /** How often to look for due events when nothing wakes the relay sooner. */
  pollIntervalMs?: number;
  /** Unique per instance (default: host, pid and a random part). */
  instance?: string;
  post?: typeof postJson;
  now?: () => Date;
}

export interface Relay {
  /** Look for due events now (new positions were assigned). */
  nudge(): void;
  /** Stops claiming, and waits for the POSTs in flight to finish. */
  stop(): Promise<void>;
}

type PostOutcome = { ok: true; status: number } | { ok: false; error: string };

/**
 * One POST of an event. Success is a 2xx and nothing else: a redirect is not followed (the
 * signature names this URL's consumer), and a timeout, a refused connection or any other
 * status is a failure to retry. The answer's body is not read.
 */
async function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  try {
    const { status } = await httpCall({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      timeoutMs,
      maxResponseBytes: 0,
      discardBody: true,
      accept: (answered) => answered >= 200 && answered < 300,
    });
    return { ok: true, status };
  } catch (error) {
    // Kept short for feed_events.last_error: `HTTP 503`, `ECONNREFUSED`, `no answer within 5000 ms`.
    if (!(error instanceof HttpCallError)) return { ok: false, error: String(error) };
    if (error.kind === 'status') return { ok: false, error: `HTTP ${error.status}` };
    return { ok: false, error: error.code ?? error.message };
  }
}

/** A claim outlives any POST (which has its own timeout) by this much. */
const LEASE_MARGIN_MS = 30_000;

/**
 * The push relay (docs/feed.md): claims due events (each by one instance at a time), POSTs each
 * signed per Standard Webhooks, and records the outcome: sent, retry later with backoff, or
 * dead letter. It uses only its own connections (the feed's pool), so a slow consumer or a
 * backlog never takes a connection the receiver needs.
 */
export function startRelay(options: RelayOptions): Relay {
  const instance =
    options.instance ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const post = options.post ?? postJson;
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollIntervalMs ?? 250;
  const db = options.db;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | undefined;
  // A nudge that comes while the loop is busy (claiming) is kept for its next sleep.
  let nudged = false;
  let failing = false;

  const nudge = () => {
    nudged = true;
    wake?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (nudged) return resolve();
      const timer = setTimeout(() => wake?.(), ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    }).then(() => {
      nudged = false;
    });

  const send = async (event: ClaimedEvent, body: string) => {
    const headers = signWebhook(options.secrets, `evt_${event.id}`, now(), body);
    const outcome: PostOutcome = await post(options.url, { ...headers }, body, options.timeoutMs);
    if (outcome.ok) {
      options.metrics?.attempts.inc({ result: 'sent' });
      await markSent(db, event, instance);
      return;
    }
    options.metrics?.attempts.inc({ result: 'failed' });
    const retryInMs = retryBackoffMs(
      event.attempts - 1,
      options.retryBaseMs,
      options.retryMaxMs,
      Math.random,
    );
    const result = await markFailed(db, event, {
      instance,
      error: outcome.error,
      retryInMs,
      maxAgeMs: options.maxAgeMs,
    });
    const fields = { eventId: `evt_${event.id}`, attempt: event.attempts, error: outcome.error };
    if (result === 'dead') {
      options.metrics?.deadLettered.inc();
      options.logger.error(fields, 'feed event dead-lettered');
    } else {
      options.logger.warn({ ...fields, retryInMs }, 'feed event not accepted; will retry');
    }
  };

  const startAll = async (claimed: ClaimedEvent[]) => {
    const bodies = await renderEvents(db, claimed);
    claimed.forEach((event, index) => {
      const body = bodies[index]?.body ?? '';
      const task: Promise<void> = send(event, body)
        .catch((error: unknown) => {
          // The outcome could not be recorded (database down): the lease runs out and the
          // event is sent again, so this is a duplicate at worst, never a loss.
          options.logger.warn(
            { err: error, eventId: `evt_${event.id}` },
            'feed relay: outcome not recorded',
          );
        })
        .finally(() => {
          inFlight.delete(task);
          nudge();
        });
      inFlight.add(task);
    });
  };

  const loop = async () => {
    while (!stopped) {
      const free = options.concurrency - inFlight.size;
      if (free > 0) {
        try {
          const claimed = await claimEvents(db, {
            instance,
            limit: free,
            leaseMs: options.timeoutMs + LEASE_MARGIN_MS,
          });
          await startAll(claimed);
          if (failing) options.logger.info('feed relay recovered');
          failing = false;
        } catch (error) {
          if (!failing) options.logger.warn({ err: error }, 'feed relay cannot claim; retrying');
          failing = true;
        }
      }
      // Whatever was due is claimed (or the slots are full): wait for a slot, a nudge or a tick.
      await sleep(pollMs);
    }
  };
  const running = loop();

  return {
    nudge,
    stop: async () => {
      stopped = true;
      nudge();
      await running;
      await Promise.all(inFlight);
    },
  };
}
