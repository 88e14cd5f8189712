/**
 * The receiver: what answers the platform. HTTP in (http/), the contract's order of checks
 * (delivery/), the secret and the signature (verification/), the event models (events/), and
 * the one statement that stores a batch (storage/). Everything outside src/receiver/ imports it
 * from here; what is not exported here is private to the receiver.
 */

export { decodeBody } from './delivery/decode-body.ts';
export { type DeliveryOutcome } from './delivery/delivery-answers.ts';
export { type Capture } from './http/capture-hook.ts';
export { type TypedRows } from './events/types.ts';
export { duplicate, quarantined } from './delivery/delivery-answers.ts';
export { parseWebhookId } from './delivery/webhook-id.ts';
export { contractOf, sampleRecord, samplePayload } from './events/data-contract.ts';
export { isWellFormedEventName } from './events/event-name.ts';
export {
  type CapturedTypedTable,
  TYPED_TABLES,
  type TypedTableEntry,
} from './events/event-types.ts';
export { findEventModel } from './events/registry.ts';
export { createMetrics, type Metrics } from './http/metrics.ts';
export { type FeedEventType, quarantineEvent } from './storage/feed-outbox-sql.ts';
export { deliveriesPruneStep, quarantinePruneStep } from './storage/prune-steps.ts';
export { storeDeliveries } from './storage/store-deliveries.ts';
export { checkKeyUrl, DEFAULT_MAX_KEY_BYTES, fetchSigningKey } from './verification/key-fetch.ts';
export { createConfiguredKeySource, type SigningKeySource } from './verification/key-source.ts';
export { createFetchedKeySource } from './verification/fetched-key-source.ts';
export { keyFingerprint, parsePublicKey } from './verification/public-key.ts';
export { decodeSignature, verifySignature } from './verification/signature.ts';
