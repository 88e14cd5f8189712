import { eventProblem } from './events.js';
import { reportStored, storeEvent } from './ledger.js';
import { describeError } from './log.js';

/**
 * @typedef {'push' | 'nats' | 'rabbitmq'} Via
 * @typedef {{ status: 204 | 400 | 503, text?: string }} Handled
 */

/**
 * What every verified event goes through, whichever way it came (a POST, a NATS or RabbitMQ
 * message): checked, stored once, and answered only after the commit. 204: stored now or
 * before (a repeat); 400: not an event this consumer can store; 503: the database failed (send
 * it again).
 *
 * @param {{ event: unknown, raw: Buffer, webhookId: string }} verified
 * @param {{ db: import('./ledger.js').Queryable, log: import('./log.js').Log, via: Via }} context
 * @returns {Promise<Handled>}
 */
export async function handleVerifiedEvent({ event, raw, webhookId }, { db, log, via }) {
  // An event this consumer understands, named as the signed webhook-id says.
  const problem = eventProblem(event);
  if (problem !== undefined) {
    log.warn('signed event refused', { via, webhookId, problem });
    return { status: 400, text: problem };
  }
  const id = /** @type {import('./events.js').FeedEvent} */ (event).id;
  if (id !== webhookId) return { status: 400, text: 'id differs from webhook-id' };

  let stored;
  try {
    stored = await storeEvent(db, raw.toString('utf8'));
  } catch (error) {
    log.error(`event not stored; the ${via === 'push' ? 'relay' : 'broker'} will send it again`, {
      via,
      eventId: id,
      error: describeError(error),
    });
    return { status: 503, text: 'not stored; retry' };
  }
  if (stored.length === 0) log.info('event already stored', { via, eventId: id });
  reportStored(log, stored, via);
  return { status: 204 };
}
