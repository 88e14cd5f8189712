import type { SandboxClock } from '../core/clock.ts';
import type { Faults } from '../core/faults.ts';
import type { SandboxKeys } from '../core/keys.ts';
import { LIMITS, type SandboxStore } from '../state/store.ts';
import type { Attempt, NotificationRecord } from '../state/types.ts';
import { attemptDelivery } from './attempt-delivery.ts';
import { createWaiters } from './waiters.ts';

export interface DeliveryEngineOptions {
  store: SandboxStore;
  keys: SandboxKeys;
  faults: Faults;
  clock: SandboxClock;
  /** A non-200 answer is retried once, this much later (the platform: 30 s). */
  retryDelayMs: number;
  /** How long a subscriber has to answer. */
  timeoutMs: number;
  concurrency?: number;
  /** Deliveries waiting beyond this are given up at once (status Error), not queued. */
  maxQueue?: number;
  onAttempt?: (record: NotificationRecord, attempt: Attempt) => void;
}

export interface DeliveryEngine {
  /** Sends (now or when a slot frees) one attempt of a notification. */
  deliver(record: NotificationRecord, kind: Attempt['kind']): void;
  /** Resolves once every named notification is Sent or Error (or after `timeoutMs`). */
  settled(webhookIds: readonly string[], timeoutMs: number): Promise<void>;
  /** Resolves once nothing is queued, in flight or waiting for its retry. */
  idle(): Promise<void>;
  close(): void;
}

/**
 * Delivers notifications like the platform: POST of the exact body with `Authorisation` (the
 * subscription's token), `Verification-Signature` (RSA-SHA256 over those bytes, with the key of
 * the moment) and `Webhookid`; anything but 200 retried once after `retryDelayMs`.
 */
export function createDeliveryEngine(options: DeliveryEngineOptions): DeliveryEngine {
  const { store, clock } = options;
  const concurrency = options.concurrency ?? 4;
  const maxQueue = options.maxQueue ?? 10_000;
  const queue: { record: NotificationRecord; kind: Attempt['kind'] }[] = [];
  const retryTimers = new Set<NodeJS.Timeout>();
  const waiters = createWaiters();
  let inFlight = 0;
  let closed = false;

  const busy = () => queue.length > 0 || inFlight > 0 || retryTimers.size > 0;
  const isFinal = (id: string) =>
    store.state.notifications.find((n) => n.webhookId === id)?.status !== 'Pending';

  function record(notification: NotificationRecord, attempt: Attempt): void {
    notification.attempts.push(attempt);
    if (notification.attempts.length > LIMITS.attemptsPerNotification)
      notification.attempts.shift();
    notification.lastResponseCode = attempt.responseCode ?? 0;
    if (attempt.kind !== 'first') {
      notification.retryCount += 1;
      notification.lastRetryAtMs = attempt.atMs;
    }
    const ok = attempt.responseCode === 200;
    if (ok || attempt.kind !== 'first') notification.status = ok ? 'Sent' : 'Error';
    else scheduleRetry(notification);
    store.changed();
    options.onAttempt?.(notification, attempt);
  }

  function scheduleRetry(notification: NotificationRecord): void {
    if (closed) return;
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      enqueue(notification, 'retry');
    }, options.retryDelayMs);
    retryTimers.add(timer);
  }

  function pump(): void {
    while (!closed && inFlight < concurrency && queue.length > 0) {
      const next = queue.shift()!;
      inFlight += 1;
      attemptDelivery(next.record, next.kind, {
        ...options,
        securityToken: store.state.subscriptions.find(
          (x) => x.subscriptionId === next.record.subscriptionId,
        )?.securityToken,
      })
        .then((result) => record(next.record, result))
        .catch((error: unknown) => {
          // attemptDelivery answers the subscriber's failures itself: this is the sandbox's own.
          process.stderr.write(
            `sandbox: delivery of ${next.record.webhookId} failed: ${String(error)}\n`,
          );
        })
        .finally(() => {
          inFlight -= 1;
          pump();
          waiters.check(isFinal, busy());
        });
    }
  }

  function enqueue(notification: NotificationRecord, kind: Attempt['kind']): void {
    if (closed) return;
    notification.status = 'Pending';
    if (queue.length >= maxQueue) {
      // Given up at once, not retried: the queue is full because the subscriber is not keeping up.
      notification.attempts.push({
        kind,
        atMs: clock.now().getTime(),
        error: 'sandbox delivery queue full',
        durationMs: 0,
      });
      notification.status = 'Error';
      notification.lastResponseCode = 0;
      store.changed();
      return;
    }
    queue.push({ record: notification, kind });
    pump();
  }

  return {
    deliver: enqueue,
    // No ids: nothing to wait for (an empty list would otherwise mean "until idle").
    settled: (ids, timeoutMs) =>
      ids.length === 0 ? Promise.resolve() : waiters.add(ids, timeoutMs, isFinal, busy()),
    idle: () => waiters.add([], 24 * 3600_000, isFinal, busy()),
    close() {
      closed = true;
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      queue.length = 0;
      waiters.check(isFinal, false, true);
    },
  };
}
