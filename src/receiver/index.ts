/**
 * The receiver: what answers the platform. HTTP in (http/), the contract's order of checks
 * (delivery/), the secret and the signature (verification/), the event models (events/), and
 * the one statement that stores a batch (storage/). This door holds what a composer needs to
 * build and run one, and what re-drives a stored delivery; the receiver's other doors:
 * app.ts (its Express app), contract.ts (the data contract: what is stored, and how a delivery
 * is read), signature.ts (the platform's signature, checked as the receiver checks it) and
 * config.ts (its settings). What no door exports is private to the receiver.
 */

export { type Capture } from './http/capture-hook.ts';
export { createMetrics, type Metrics } from './http/metrics.ts';
export { quarantineEvent } from './storage/feed-outbox-sql.ts';
export { deliveriesPruneStep, quarantinePruneStep } from './storage/prune-steps.ts';
export { storeDeliveries } from './storage/store-deliveries.ts';
export { createConfiguredKeySource, type SigningKeySource } from './verification/key-source.ts';
export { createFetchedKeySource } from './verification/fetched-key-source.ts';
