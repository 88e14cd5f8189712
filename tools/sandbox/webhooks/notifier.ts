import type { SandboxClock } from '../core/clock.ts';
import { LIMITS, type SandboxStore } from '../state/store.ts';
import type { JsonValue, NotificationRecord } from '../state/types.ts';
import type { DeliveryEngine } from './delivery-engine.ts';

export interface Notifier {
  /**
   * One notification per subscription that is On for `eventName`, each with its own Webhookid,
   * handed to the delivery engine. Answers the Webhookids.
   */
  notify(eventName: string, body: JsonValue): string[];
  /** Delivers a notification again (same Webhookid, same bytes); false when it is unknown. */
  resend(webhookId: string): boolean;
}

export function createNotifier(
  store: SandboxStore,
  engine: DeliveryEngine,
  clock: SandboxClock,
): Notifier {
  const { state } = store;

  /** The log is capped: beyond it the oldest finished notification is forgotten. */
  function remember(record: NotificationRecord): void {
    state.notifications.push(record);
    while (state.notifications.length > LIMITS.notifications) {
      const oldest = state.notifications.findIndex((n) => n.status !== 'Pending');
      if (oldest < 0) break;
      state.notifications.splice(oldest, 1);
    }
  }

  return {
    notify(eventName, body) {
      const text = JSON.stringify(body);
      const subscribers = state.subscriptions.filter(
        (s) => s.eventName === eventName && s.subscriptionStatus === 'On',
      );
      const records = subscribers.map((subscription): NotificationRecord => ({
        webhookId: String(store.ids.next()),
        eventName,
        subscriptionId: subscription.subscriptionId,
        url: subscription.targetUrl,
        body: text,
        createdAtMs: clock.now().getTime(),
        status: 'Pending',
        retryCount: 0,
        lastResponseCode: 0,
        attempts: [],
      }));
      for (const record of records) {
        remember(record);
        engine.deliver(record, 'first');
      }
      store.changed();
      return records.map((r) => r.webhookId);
    },
    resend(webhookId) {
      const record = state.notifications.find((n) => n.webhookId === webhookId);
      if (!record) return false;
      engine.deliver(record, 'resend');
      return true;
    },
  };
}
