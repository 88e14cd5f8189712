import { createHash } from 'node:crypto';
import type { TypedRows } from '../../src/receiver/events/types.ts';
import type { DeliveryToStore } from '../../src/receiver/storage/store-deliveries.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { Db } from '../../src/lib/database/database.ts';
import {
  createBatchingStore,
  type DeliveryStore,
} from '../../src/receiver/storage/delivery-batcher.ts';
import { freshWebhookId } from './deliveries.ts';
import { emptyPaymentRow } from './sample-bodies.ts';
import { logLines, type LogLines } from './log-lines.ts';

/**
 * What the pipeline hands the store for one delivery: an unmodelled event by default, or a
 * payment with this TransactionId.
 */
export function deliveryItem(
  overrides: {
    webhookId?: string;
    body?: string;
    transactionId?: string;
  } = {},
): DeliveryToStore {
  const body = overrides.body ?? `{"n":"${Math.random()}"}`;
  const typed: TypedRows = overrides.transactionId
    ? {
        kind: 'npp-payment',
        rows: [
          {
            ...emptyPaymentRow(),
            transactionId: overrides.transactionId,
            amount: '1.5',
            dateTimeLocal: '2023-08-11 14:19:16',
            dateTimeText: '2023-08-11T14:19:16',
          },
        ],
      }
    : { kind: 'unmodelled', rows: [] };
  return {
    delivery: {
      webhookId: overrides.webhookId ?? freshWebhookId(),
      eventName: overrides.transactionId ? 'NPPReceivePayment' : 'SomethingElse',
      receivedAt: new Date(),
      bodySha256: createHash('sha256').update(body).digest('hex'),
      rawBody: Buffer.from(body),
      contentType: 'application/json',
      headers: {},
      requestId: null,
      remoteAddress: null,
      signingKeyFingerprint: null,
    },
    typed,
  };
}

/**
 * A batching store with one writer and batches of up to 100, recording each statement's size
 * and every log line, so a test can see how deliveries were grouped and what was logged.
 */
export function observedStore(db: Db): {
  store: DeliveryStore;
  sizes: number[];
  log: LogLines;
} {
  const log = logLines();
  const sizes: number[] = [];
  const store = createBatchingStore(db, {
    concurrency: 1,
    maxBatchSize: 100,
    onBatch: (size) => sizes.push(size),
    logger: createLogger('debug', log.sink),
  });
  return { store, sizes, log };
}
