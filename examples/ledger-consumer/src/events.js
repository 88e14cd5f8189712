/**
 * The feed's event body (the receiver's docs/feed.md, "The event body"), checked before it is
 * stored. Only the envelope is checked: `fields` and `payload` are kept as they came.
 *
 * @typedef {object} FeedEvent
 * @property {string} id         `evt_<n>`: the same on every attempt; the deduplication key
 * @property {string} type       `payment.received`, `quarantine.opened`, …
 * @property {string} position   commit order, gapless, as a decimal string (a bigint)
 * @property {string} timestamp
 * @property {{ eventName: string, businessKey: string, webhookId: string | null,
 *   receivedAt: string | null, fields: Record<string, unknown> | null }} data
 */

/** Events that carry money: their `fields.amount` is kept as `numeric`, never a JS number. */
export const MONEY_TYPES = ['payment.received', 'payto_payment.received', 'direct_credit.received'];

/** An exact decimal, as the feed writes money ("125.5", "0.10", "-3"). */
const DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Why `event` is not an event this consumer can store, or undefined.
 *
 * @param {unknown} event
 * @returns {string | undefined}
 */
export function eventProblem(event) {
  if (!isObject(event)) return 'not a JSON object';
  if (typeof event.id !== 'string' || !/^evt_\d{1,19}$/.test(event.id)) {
    return 'id must be evt_<digits>';
  }
  if (typeof event.type !== 'string' || event.type === '') return 'type must be a string';
  if (typeof event.position !== 'string' || !/^\d{1,18}$/.test(event.position)) {
    return 'position must be a decimal string';
  }
  const data = event.data;
  if (!isObject(data)) return 'data must be an object';
  if (typeof data.eventName !== 'string') return 'data.eventName must be a string';
  if (typeof data.businessKey !== 'string') return 'data.businessKey must be a string';
  if (
    data.receivedAt !== null &&
    !(typeof data.receivedAt === 'string' && INSTANT.test(data.receivedAt))
  ) {
    return 'data.receivedAt must be an ISO 8601 instant or null';
  }
  if (MONEY_TYPES.includes(event.type)) {
    // A ledger never books a payment without its exact amount: refused, the relay retries and
    // finally dead-letters it, where an operator sees it (better than a row without money).
    const amount = isObject(data.fields) ? data.fields.amount : undefined;
    if (typeof amount !== 'string' || !DECIMAL.test(amount)) {
      return `${event.type}: data.fields.amount must be an exact decimal string`;
    }
  }
  return undefined;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
