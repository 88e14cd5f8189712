import { handleVerifiedEvent } from './event-handler.js';
import { createSignatureCheck, signatureHeaders } from './signature.js';

/**
 * @typedef {'ack' | 'retry' | 'reject'} Disposal
 * @typedef {{ raw: Buffer, headers: Record<string, unknown>, messageId: string | undefined }} BrokerMessage
 */

/**
 * One NATS or RabbitMQ message through the push path's steps: the Standard Webhooks signature
 * (when the endpoint has secrets; without the 5-minute age limit, see signature.js), the same
 * checks, stored once. What the reader should do with it:
 *
 *   ack     stored now or before: acknowledged only after the commit
 *   retry   the database failed: redelivered later
 *   reject  unsigned, a wrong signature, or not an event this consumer can store: redelivery
 *           would not help; dropped (or dead-lettered, if the broker is set up to), logged
 *
 * @param {{ secrets: string[], db: import('./ledger.js').Queryable,
 *   log: import('./log.js').Log, via: 'nats' | 'rabbitmq' }} options
 * @returns {(message: BrokerMessage) => Promise<Disposal>}
 */
export function createBrokerHandler({ secrets, db, log, via }) {
  const check = createSignatureCheck(secrets, { ageLimit: false });
  return async ({ raw, headers, messageId }) => {
    const signed = signatureHeaders(headers);
    const checked = check(raw, signed);
    if (!checked.ok) {
      log.error('message refused', { via, messageId, reason: checked.reason });
      return 'reject';
    }
    const webhookId = signed['webhook-id'] ?? messageId ?? '';
    const handled = await handleVerifiedEvent(
      { event: checked.event, raw, webhookId },
      { db, log, via },
    );
    if (handled.status === 204) return 'ack';
    if (handled.status === 503) return 'retry';
    return 'reject';
  };
}
