/**
 * The receiver's door to the data contract, shared by the feed, capture, operations and the
 * tools: how a delivery is read (its Webhookid, its body, its event's model), what it was
 * answered, and what is stored of each event type (the registry of typed tables, sample records
 * the sandbox sends). Apart from src/receiver/index.ts so that a reader of the contract loads
 * none of the receiver's running parts.
 */

export { decodeBody } from './delivery/decode-body.ts';
export { type DeliveryOutcome, duplicate, quarantined } from './delivery/delivery-answers.ts';
export { parseWebhookId } from './delivery/webhook-id.ts';
export { contractOf, sampleRecord, samplePayload } from './events/data-contract.ts';
export { isWellFormedEventName } from './events/event-name.ts';
export {
  type CapturedTypedTable,
  TYPED_TABLES,
  type TypedTableEntry,
} from './events/event-types.ts';
export { findEventModel } from './events/registry.ts';
export { type TypedRows } from './events/types.ts';
export { FEED_EVENT_TYPES, type FeedEventType } from './storage/feed-outbox-sql.ts';
