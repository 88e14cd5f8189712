import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { TypedRows } from '../../src/events/types.ts';
import { emptyPaymentRow } from '../support/sample-bodies.ts';
import { createDatabase } from '../../src/storage/database.ts';
import {
  UnstorableDeliveryError,
  createBatchingStore,
} from '../../src/storage/delivery-batcher.ts';
import type { DeliveryToStore } from '../../src/storage/store-deliveries.ts';
import { freshWebhookId } from '../support/deliveries.ts';
import { useTestbed } from '../support/testbed.ts';

const bed = useTestbed();

function item(
  overrides: {
    webhookId?: string;
    body?: string;
    payloadJson?: string | null;
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
      payloadJson: overrides.payloadJson === undefined ? body : overrides.payloadJson,
      contentType: 'application/json',
      headers: {},
      requestId: null,
      remoteAddress: null,
      signingKeyFingerprint: null,
    },
    typed,
  };
}

describe('group commit', () => {
  it('when many deliveries arrive while a statement is in flight, then they share later statements and all are stored', async () => {
    const sizes: number[] = [];
    const store = createBatchingStore(bed.database.db, {
      concurrency: 1,
      maxBatchSize: 50,
      onBatch: (n) => sizes.push(n),
    });
    const outcomes = await Promise.all(
      Array.from({ length: 120 }, (_, i) => store.store(item({ transactionId: `GC${i}` }))),
    );

    expect(outcomes.every((outcome) => outcome.inserted && outcome.typedRowsInserted === 1)).toBe(
      true,
    );
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(120);
    expect(sizes.length).toBeLessThan(10);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(50);
    expect(await bed.database.count('webhook_deliveries')).toBe(120);
    expect(await bed.database.count('npp_payments')).toBe(120);
  });

  it('when a lone delivery arrives at an idle store, then it is written at once in a statement of its own', async () => {
    const sizes: number[] = [];
    const store = createBatchingStore(bed.database.db, {
      concurrency: 2,
      maxBatchSize: 50,
      onBatch: (n) => sizes.push(n),
    });
    await store.store(item());
    expect(sizes).toEqual([1]);
  });

  it('when one batch holds the same delivery twice, then one row is written and the second copy is reported as not inserted', async () => {
    const store = createBatchingStore(bed.database.db, { concurrency: 1, maxBatchSize: 50 });
    const twin = item({ transactionId: 'TWIN' });
    const [blocker, first, second] = await Promise.all([
      store.store(item()),
      store.store(twin),
      store.store(twin),
    ]);
    expect(blocker.inserted).toBe(true);
    expect([first.inserted, second.inserted].sort()).toEqual([false, true]);
    expect(await bed.database.count('npp_payments')).toBe(1);
  });

  it('when two deliveries in one batch carry the same TransactionId, then the payment is stored once and the second counts it as already stored', async () => {
    const store = createBatchingStore(bed.database.db, { concurrency: 1, maxBatchSize: 50 });
    const [, a, b] = await Promise.all([
      store.store(item()),
      store.store(item({ transactionId: 'SHARED-TX' })),
      store.store(item({ transactionId: 'SHARED-TX' })),
    ]);
    expect([a.inserted, b.inserted]).toEqual([true, true]);
    expect(a.typedRowsInserted + b.typedRowsInserted).toBe(1);
    expect(a.typedRowsAlreadyStored + b.typedRowsAlreadyStored).toBe(1);
    expect(await bed.database.count('npp_payments')).toBe(1);
  });

  it('when the database refuses the jsonb copy of one body in a batch, then it is stored with raw bytes only and its neighbours are unaffected', async () => {
    const store = createBatchingStore(bed.database.db, { concurrency: 1, maxBatchSize: 50 });
    const odd = item({ payloadJson: '{not json' });
    const outcomes = await Promise.all([
      store.store(item()),
      store.store(item()),
      store.store(odd),
      store.store(item()),
    ]);
    expect(outcomes.map((outcome) => outcome.inserted)).toEqual([true, true, true, true]);
    expect(outcomes[2]?.payloadDropped).toBe(true);
    const [row] = await bed.database.query(
      'SELECT payload FROM webhook_deliveries WHERE webhook_id = $1',
      [odd.delivery.webhookId],
    );
    expect(row).toEqual({ payload: null });
  });

  it('when the database refuses a typed value of one delivery in a batch, then only that one fails, as unstorable, and its neighbours are stored', async () => {
    const store = createBatchingStore(bed.database.db, { concurrency: 1, maxBatchSize: 50 });
    const poison = item({ transactionId: 'BAD-DATE' });
    if (poison.typed.kind === 'npp-payment')
      poison.typed.rows[0].dateTimeLocal = '2023-02-30 00:00:00';
    const results = await Promise.allSettled([
      store.store(item()),
      store.store(item()),
      store.store(poison),
      store.store(item()),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(UnstorableDeliveryError);
    expect(await bed.database.count('webhook_deliveries')).toBe(3);
  });
});

describe('prepared statement', () => {
  it('when deliveries are stored, then the statement runs as a named prepared statement on its connection', async () => {
    const db = createDatabase({ url: bed.database.url, poolMax: 1 });
    try {
      const store = createBatchingStore(db, { concurrency: 1, maxBatchSize: 10 });
      await store.store(item());
      await store.store(item());
      const { rows } = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements`.execute(
        db,
      );
      expect(rows.map((row) => row.name)).toContain('store-deliveries-v1');
      expect(await bed.database.count('webhook_deliveries')).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});
