import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createDatabase } from '../../../src/lib/database/database.ts';
import {
  UnstorableDeliveryError,
  createBatchingStore,
} from '../../../src/receiver/storage/delivery-batcher.ts';
import { deliveryItem as item, observedStore } from '../../support/delivery-items.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
const silent = createLogger('silent');

describe('group commit', () => {
  it('when many deliveries arrive while a statement is in flight, then they share later statements and all are stored', async () => {
    const sizes: number[] = [];
    const store = createBatchingStore(bed.database.db, {
      logger: silent,
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
      logger: silent,
      concurrency: 2,
      maxBatchSize: 50,
      onBatch: (n) => sizes.push(n),
    });
    await store.store(item());
    expect(sizes).toEqual([1]);
  });

  it('when one batch holds the same delivery twice, then one row is written and the second copy is reported as not inserted', async () => {
    const store = createBatchingStore(bed.database.db, {
      concurrency: 1,
      maxBatchSize: 50,
      logger: silent,
    });
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
    const store = createBatchingStore(bed.database.db, {
      concurrency: 1,
      maxBatchSize: 50,
      logger: silent,
    });
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

  it('when one body in a batch is one jsonb could not hold (a NUL, a number beyond numeric), then every delivery is stored with its exact bytes', async () => {
    const store = createBatchingStore(bed.database.db, {
      concurrency: 1,
      maxBatchSize: 50,
      logger: silent,
    });
    const oddText = '{"note":"a\\u0000b","lone":"\\ud800","n":1e131072}';
    const odd = item({ body: oddText });
    const outcomes = await Promise.all([
      store.store(item()),
      store.store(item()),
      store.store(odd),
      store.store(item()),
    ]);
    expect(outcomes.map((outcome) => outcome.inserted)).toEqual([true, true, true, true]);
    const [row] = await bed.database.query<{ raw_body: Buffer; payload: unknown }>(
      'SELECT raw_body, payload FROM webhook_deliveries WHERE webhook_id = $1',
      [odd.delivery.webhookId],
    );
    expect(row?.raw_body.toString()).toBe(oddText);
    // The body is stored once, as bytes: no jsonb copy for Postgres to refuse.
    expect(row?.payload).toBeNull();
    expect(await bed.database.count('webhook_deliveries')).toBe(4);
  });

  it('when the database refuses a typed value of one delivery in a batch, then only that one fails, as unstorable, and its neighbours are stored', async () => {
    const store = createBatchingStore(bed.database.db, {
      concurrency: 1,
      maxBatchSize: 50,
      logger: silent,
    });
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

  it('when one delivery in a batch has a TransactionId too long to index, then only it fails, as unstorable, its neighbours are stored, and the batch failure is logged', async () => {
    const { store, log } = observedStore(bed.database.db);
    const poison = item({ transactionId: randomBytes(2000).toString('hex') });
    const neighbours = [item({ transactionId: 'OK-1' }), item({ transactionId: 'OK-2' })];
    const results = await Promise.allSettled([
      store.store(item()),
      store.store(neighbours[0]!),
      store.store(poison),
      store.store(neighbours[1]!),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const reason = (results[2] as PromiseRejectedResult).reason as Error;
    expect(reason).toBeInstanceOf(UnstorableDeliveryError);
    expect(reason.message).toMatch(/SQLSTATE 54000.*index row size/);
    expect(await bed.database.count('webhook_deliveries')).toBe(3);
    const payments = await bed.database.query<{ transaction_id: string }>(
      'SELECT transaction_id FROM npp_payments ORDER BY transaction_id',
    );
    expect(payments).toEqual([{ transaction_id: 'OK-1' }, { transaction_id: 'OK-2' }]);
    expect(log.lines()).toEqual([
      expect.objectContaining({
        msg: 'batch failed; retrying each delivery alone',
        sqlState: '54000',
        batchSize: 3,
        retryEach: true,
      }),
    ]);
  });

  it('when a batch hits the statement timeout, then all its deliveries fail at once (no retry of each, which would wait again per delivery), nothing is stored, and it is logged', async () => {
    const STATEMENT_TIMEOUT_MS = 300;
    const db = createDatabase({
      url: bed.database.url,
      poolMax: 2,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    const { store, sizes, log } = observedStore(db);
    let batchMs = 0;
    try {
      // Another session holds the table: every insert waits until its statement times out.
      await bed.database.db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE`.execute(trx);
        const lone = store.store(item());
        const pending = Array.from({ length: 50 }, () => store.store(item()));
        await expect(lone).rejects.toMatchObject({ code: '57014' });
        const started = performance.now();
        const results = await Promise.allSettled(pending);
        batchMs = performance.now() - started;
        expect(results.map((result) => (result as PromiseRejectedResult).reason?.code)).toEqual(
          Array(50).fill('57014'),
        );
      });
    } finally {
      await db.destroy();
    }
    console.info(`batch of 50 failed ${Math.round(batchMs)} ms after the writer took it`);
    expect(sizes).toEqual([1, 50]);
    // One statement timeout; retrying each (2 connections) would take about 25 more.
    expect(batchMs).toBeLessThan(STATEMENT_TIMEOUT_MS * 8);
    expect(log.lines()).toEqual([
      expect.objectContaining({
        msg: 'batch failed; none stored',
        sqlState: '57014',
        batchSize: 50,
        retryEach: false,
      }),
    ]);
    expect(await bed.database.count('webhook_deliveries')).toBe(0);
  });
});

describe('prepared statement', () => {
  it('when deliveries are stored, then the statement runs as a named prepared statement on its connection', async () => {
    const db = createDatabase({ url: bed.database.url, poolMax: 1 });
    try {
      const store = createBatchingStore(db, { concurrency: 1, maxBatchSize: 10, logger: silent });
      await store.store(item());
      await store.store(item());
      const { rows } = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements`.execute(
        db,
      );
      expect(rows.map((row) => row.name)).toContain('store-deliveries-v3');
      expect(await bed.database.count('webhook_deliveries')).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});
