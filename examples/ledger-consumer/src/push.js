import { createServer } from 'node:http';
import { handleVerifiedEvent } from './event-handler.js';
import { createPushHandler } from './push-handler.js';

/**
 * Push mode: the receiver's relay POSTs each event here (FEED_HTTP_URL), signed per Standard
 * Webhooks. Every POST is verified with the stock library over the raw bytes, before any JSON
 * parsing (push-handler.js), then stored once; the answer is 2xx only after the row is
 * committed, so a crash or a database failure before that means the relay sends the event
 * again.
 *
 *   204  stored now, or stored before (a repeat: the relay may send an event twice)
 *   400  signed, but not an event this consumer can store (the relay retries, then dead-letters)
 *   401  missing or wrong signature, or a timestamp more than 5 minutes off (a replay)
 *   405  not a POST (GET /healthz answers 200)
 *   413  body above MAX_BODY_BYTES
 *   503  the database failed: the relay retries
 *
 * @param {object} options
 * @param {string[]} options.secrets  `whsec_…`; any one verifying is enough (a rotation)
 * @param {import('./ledger.js').Queryable} options.db
 * @param {import('./log.js').Log} options.log
 * @param {number} [options.maxBodyBytes]
 * @param {number} [options.requestTimeoutMs]  the whole request must arrive within this
 * @returns {import('node:http').Server}
 */
export function createPushServer(options) {
  const { db, log } = options;
  const handler = createPushHandler({
    secrets: options.secrets,
    log,
    ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }),
    onVerified: async (verified) => {
      const handled = await handleVerifiedEvent(verified, { db, log, via: 'push' });
      return handled.status === 503 ? { ...handled, headers: { 'Retry-After': '5' } } : handled;
    },
  });
  return createServer(
    {
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      headersTimeout: 10_000,
      keepAliveTimeout: 5_000,
    },
    handler,
  );
}
