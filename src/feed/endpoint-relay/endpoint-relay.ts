import { retryBackoffMs } from '../../lib/backoff.ts';
import type { Db } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Counter, Histogram } from 'prom-client';
import { signWebhook } from '../sinks/signer.ts';
import type { Sink, SinkOutcome } from '../sinks/sink.ts';
import { claimEvents, recordAttempts, type Attempt, type ClaimedEvent } from './claims.ts';
import { sameSink, type EndpointSettings } from './endpoint-settings.ts';
import { fanOutAll } from './fan-out.ts';
import { createGroupWriter } from './group-writer.ts';
import { createTokenBucket, type TokenBucket } from './token-bucket.ts';

/** The relay's series (src/feed/feed-metrics.ts registers them), per endpoint. */
export interface RelayMetrics {
  attempts: Counter<'endpoint' | 'result'>;
  deadLettered: Counter<'endpoint'>;
  attemptDuration: Histogram<'endpoint'>;
}

/** The JSON body of each event (src/feed/render-events.ts), in the order given. */
export type RenderEvents = (
  events: readonly ClaimedEvent[],
) => Promise<readonly { body: string }[]>;

export interface EndpointRelayOptions {
  db: Db;
  settings: EndpointSettings;
  /** Makes the sink for the endpoint's target (again when the target changes). */
  createSink: (settings: EndpointSettings) => Sink;
  render: RenderEvents;
  instance: string;
  retryBaseMs: number;
  retryMaxMs: number;
  logger: Logger;
  metrics?: RelayMetrics | undefined;
  /** How often to fan out and look for due events when nothing wakes the loop sooner. */
  pollIntervalMs: number;
  now?: () => Date;
}

export interface EndpointRelay {
  /** New positions were assigned: fan out and look for due events now. */
  nudge(): void;
  /** A changed row: the next claim and the next attempt use it (a rotated secret signs it). */
  update(settings: EndpointSettings): void;
  /** Stops claiming, waits for the attempts in flight, closes the sink. */
  stop(): Promise<void>;
}

/** A claim outlives any attempt (which has its own timeout) by this much. */
const LEASE_MARGIN_MS = 30_000;

/**
 * One endpoint's relay on this instance (docs/feed.md, "Endpoints"): fans its events out,
 * claims the due ones (each by one instance at a time), renders each, signs it with every one
 * of the endpoint's secrets, hands it to the endpoint's sink, and records the outcome with its
 * attempt: sent, retry later with backoff, or dead letter. Its own concurrency, rate limit and
 * claims: another endpoint's slowness never holds it up.
 */
export function startEndpointRelay(options: EndpointRelayOptions): EndpointRelay {
  const { db, instance } = options;
  const now = options.now ?? (() => new Date());
  let settings = options.settings;
  let sink = options.createSink(settings);
  let bucket = bucketFor(settings);
  const logger = options.logger.child({ endpoint: settings.name });
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | undefined;
  // A nudge that comes while the loop is busy is kept for its next sleep.
  let nudged = false;
  let fanOutDue = true;
  let lastFanOutAt = 0;
  let failing = false;
  const labels = () => ({ endpoint: settings.name });
  // Every series of the endpoint exists from the start (0), so a rate or an alert sees it.
  for (const result of ['sent', 'failed']) {
    options.metrics?.attempts.inc({ ...labels(), result }, 0);
  }
  options.metrics?.deadLettered.inc(labels(), 0);

  const wakeUp = () => {
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

  // Outcomes that finish while the last one is being written go in the next statement together.
  const recorder = createGroupWriter((attempts: readonly Attempt[]) =>
    recordAttempts(db, {
      endpointId: settings.id,
      instance,
      maxAgeMs: settings.maxAgeMs,
      attempts,
    }),
  );

  const record = async (event: ClaimedEvent, startedAt: Date, outcome: SinkOutcome) => {
    const durationMs = now().getTime() - startedAt.getTime();
    options.metrics?.attemptDuration.observe(labels(), durationMs / 1000);
    options.metrics?.attempts.inc({ ...labels(), result: outcome.ok ? 'sent' : 'failed' });
    const retryInMs = outcome.ok
      ? 0
      : retryBackoffMs(event.attempts - 1, options.retryBaseMs, options.retryMaxMs, Math.random);
    const result = await recorder.write({ event, startedAt, durationMs, outcome, retryInMs });
    if (outcome.ok) return;
    const fields = { eventId: `evt_${event.id}`, attempt: event.attempts, error: outcome.error };
    if (result === 'dead') {
      options.metrics?.deadLettered.inc(labels());
      logger.error(fields, 'feed event dead-lettered');
    } else {
      logger.warn({ ...fields, retryInMs }, 'feed event not accepted; will retry');
    }
  };

  const send = async (event: ClaimedEvent, body: string) => {
    const { secrets, timeoutMs } = settings;
    const id = `evt_${event.id}`;
    const startedAt = now();
    const headers = secrets.length > 0 ? { ...signWebhook(secrets, id, startedAt, body) } : {};
    const outcome = await sink
      .send({ id, type: event.type, position: event.position, body, headers }, timeoutMs)
      .catch((error: unknown): SinkOutcome => ({ ok: false, error: String(error) }));
    await record(event, startedAt, outcome);
  };

  const startAll = async (claimed: ClaimedEvent[]) => {
    const bodies = await options.render(claimed);
    claimed.forEach((event, index) => {
      const body = bodies[index]?.body ?? '';
      const task: Promise<void> = send(event, body)
        .catch((error: unknown) => {
          // The outcome could not be recorded (database down): the lease runs out and the
          // event is sent again, so this is a duplicate at worst, never a loss.
          logger.warn(
            { err: error, eventId: `evt_${event.id}` },
            'feed relay: outcome not recorded',
          );
        })
        .finally(() => {
          inFlight.delete(task);
          wakeUp();
        });
      inFlight.add(task);
    });
  };

  const step = async () => {
    if (fanOutDue || Date.now() - lastFanOutAt >= options.pollIntervalMs) {
      fanOutDue = false;
      lastFanOutAt = Date.now();
      await fanOutAll(db, settings.id);
    }
    const slots = settings.concurrency - inFlight.size;
    // Busy: wait until half the slots are free, so each claim (and its render) takes several
    // events instead of one per finished attempt. Idle: claim at once, whatever is due.
    if (inFlight.size > 0 && slots < Math.ceil(settings.concurrency / 2)) return;
    const free = Math.min(slots, bucket?.available() ?? Infinity);
    if (free <= 0) return;
    const claimed = await claimEvents(db, {
      endpointId: settings.id,
      instance,
      limit: free,
      leaseMs: settings.timeoutMs + LEASE_MARGIN_MS,
    });
    bucket?.take(claimed.length);
    await startAll(claimed);
  };

  const loop = async () => {
    while (!stopped) {
      try {
        await step();
        if (failing) logger.info('feed relay recovered');
        failing = false;
      } catch (error) {
        if (!failing) logger.warn({ err: error }, 'feed relay cannot claim; retrying');
        failing = true;
      }
      // Whatever was due is claimed (or the slots or tokens are used up): wait for a slot, a
      // token, a nudge or a tick.
      await sleep(bucket && bucket.available() < 1 ? bucket.msUntilNext() : options.pollIntervalMs);
    }
  };
  const running = loop();

  return {
    nudge: () => {
      fanOutDue = true;
      wakeUp();
    },
    update(next) {
      const previous = settings;
      if (!sameSink(previous.sink, next.sink)) {
        // Made first: a target that cannot be served (it throws) leaves this relay as it was.
        const replacement = options.createSink(next);
        const old = sink;
        sink = replacement;
        // Attempts in flight on the old sink get their outcome before it closes.
        void Promise.all(inFlight)
          .then(() => old.close())
          .catch(() => {});
      }
      settings = next;
      if (next.ratePerSecond !== previous.ratePerSecond) bucket = bucketFor(next);
      fanOutDue = true;
      wakeUp();
    },
    stop: async () => {
      stopped = true;
      wakeUp();
      await running;
      await Promise.all(inFlight);
      await sink.close();
    },
  };
}

function bucketFor(settings: EndpointSettings): TokenBucket | undefined {
  return settings.ratePerSecond === null ? undefined : createTokenBucket(settings.ratePerSecond);
}
