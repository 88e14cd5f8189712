import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { deliveryItem, observedStore } from '../../support/delivery-items.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { generateSigningKeyPair, type SigningKeyPair } from '../../support/signing.ts';
import type { TcpProxy } from '../../../tools/common/tcp-proxy.ts';
import { proxyDatabase } from '../../support/proxied-database.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

let database: TestDatabase;
let signer: SigningKeyPair;
let proxy: TcpProxy;
let db: Db;
let built: TestApp;
let viaProxy: string;

beforeAll(async () => {
  [database, signer] = await Promise.all([createTestDatabase(), generateSigningKeyPair()]);
  ({ proxy, url: viaProxy } = await proxyDatabase(database));
  db = createDatabase({ url: viaProxy, poolMax: 4, connectionTimeoutMs: 1000 });
  built = buildTestApp({ db, publicKey: signer.publicKey });
});
afterAll(async () => {
  await db.destroy();
  await proxy.close();
  await database.drop();
});

describe('database outage', () => {
  it('when the database goes away mid-stream, then deliveries answer 500 (never 200 without a row, never 4xx), and recover without a restart', async () => {
    const before = freshWebhookId();
    await sendDelivery(built.app, {
      body: nppPayment(),
      webhookId: before,
      signWith: signer.privateKey,
    }).expect(200);

    proxy.cut();
    const lost = [freshWebhookId(), freshWebhookId(), freshWebhookId()];
    const bodies = new Map(lost.map((id) => [id, nppPayment()]));
    for (const webhookId of lost) {
      const res = await sendDelivery(built.app, {
        body: bodies.get(webhookId)!,
        webhookId,
        signWith: signer.privateKey,
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        status: 'InternalError',
        statusDescription: 'Delivery not stored; retry later',
        durationMs: expect.any(Number),
      });
      expect(JSON.stringify(res.body)).not.toMatch(/ECONN|at .*\.ts|stack/i);
    }
    const readiness = await request(built.app).get('/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body.statusDescription).toMatch(/database unreachable/);

    // The log names each Webhookid that was not stored, so an operator can chase it.
    const notStored = built.logs.filter((line) => line.msg === 'delivery NOT stored');
    expect(notStored.map((line) => line.webhookId)).toEqual(lost);

    proxy.restore();
    // The platform's one retry, 30 s later: the same deliveries now store.
    for (const webhookId of lost) {
      await sendDelivery(built.app, {
        body: bodies.get(webhookId)!,
        webhookId,
        signWith: signer.privateKey,
      }).expect(200);
    }
    expect((await request(built.app).get('/readyz')).status).toBe(200);
    const stored = await database.query<{ webhook_id: string }>(
      'SELECT webhook_id FROM webhook_deliveries ORDER BY webhook_id',
    );
    expect(stored.map((row) => row.webhook_id)).toEqual([before, ...lost].sort());
    expect(await database.count('npp_payments')).toBe(4);
  });

  it('when the database is down, then an invalid delivery answers 500 too (quarantine could not keep it)', async () => {
    proxy.cut();
    try {
      const res = await sendDelivery(built.app, { body: '{broken', signWith: signer.privateKey });
      expect(res.status).toBe(500);
    } finally {
      proxy.restore();
    }
    expect(await database.count('quarantined_deliveries')).toBe(0);
  });
});

describe('database outage with connections checked out', () => {
  it('when a connection dies while checked out between queries, then the process does not crash and the next query just fails', async () => {
    await db.connection().execute(async (connection) => {
      proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(sql`select 1`.execute(connection)).rejects.toThrow();
    });
    proxy.restore();
    await sendDelivery(built.app, { body: nppPayment(), signWith: signer.privateKey }).expect(200);
  });

  it('when the database connection dies while deliveries are being written, then they answer 500 or 200, the process survives, and retries store them', async () => {
    const deliveries = Array.from({ length: 30 }, () => ({
      webhookId: freshWebhookId(),
      body: nppPayment(),
    }));
    const answers = deliveries.map((delivery) =>
      sendDelivery(built.app, { ...delivery, signWith: signer.privateKey }).then(
        (res) => res.status,
      ),
    );
    // Cut while the first writes are in flight (not between requests).
    await new Promise((resolve) => setTimeout(resolve, 5));
    proxy.cut();
    const statuses = await Promise.all(answers);
    proxy.restore();

    expect(statuses.every((status) => status === 200 || status === 500)).toBe(true);
    expect(statuses).toContain(500);
    for (const delivery of deliveries) {
      await sendDelivery(built.app, { ...delivery, signWith: signer.privateKey }).expect(200);
    }
    const stored = await database.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ANY($1::bigint[])`,
      [deliveries.map((delivery) => delivery.webhookId)],
    );
    expect(Number(stored[0]?.n)).toBe(30);
  });
});

describe('group commit during an outage', () => {
  const CONNECTION_TIMEOUT_MS = 1000;

  it('when the database stops answering, then a batch of 50 fails at once after one connection timeout (not one per delivery), nothing is stored, and the failure is logged', async () => {
    // A pool of its own, with no connections open yet: each statement must connect, and waits.
    const ownDb = createDatabase({
      url: viaProxy,
      poolMax: 10,
      connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
    });
    const { store, sizes, log } = observedStore(ownDb);
    const first = deliveryItem();
    const batch = Array.from({ length: 50 }, () => deliveryItem());

    proxy.silence();
    const attemptsBefore = proxy.accepted;
    let batchMs: number;
    try {
      // The first delivery holds the single writer while it waits to connect; the 50 arriving
      // meanwhile go together in the next statement.
      const lone = store.store(first);
      const pending = batch.map((item) => store.store(item));
      await expect(lone).rejects.toThrow(/timeout/);
      const batchStarted = performance.now();
      const results = await Promise.allSettled(pending);
      batchMs = performance.now() - batchStarted;

      expect(sizes).toEqual([1, 50]);
      expect(results.map((result) => result.status)).toEqual(Array(50).fill('rejected'));
      for (const result of results) {
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(Error);
        expect(String((result as PromiseRejectedResult).reason)).toMatch(/timeout/);
      }
      // One connection attempt per statement, none per delivery.
      expect(proxy.accepted - attemptsBefore).toBe(2);
    } finally {
      proxy.restore();
      await ownDb.destroy();
    }
    console.info(`batch of 50 failed ${Math.round(batchMs)} ms after the writer took it`);
    // About one connection timeout; a retry of each delivery would add at least one more.
    expect(batchMs).toBeLessThan(CONNECTION_TIMEOUT_MS * 1.8);

    expect(log.lines().filter((line) => line.msg === 'batch failed; none stored')).toEqual([
      expect.objectContaining({
        level: 40,
        batchSize: 50,
        retryEach: false,
        webhookIds: batch.map((item) => item.delivery.webhookId),
        err: expect.objectContaining({ message: expect.stringMatching(/timeout/) }),
      }),
    ]);
    const stored = await database.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ANY($1::bigint[])`,
      [[first, ...batch].map((item) => item.delivery.webhookId)],
    );
    expect(Number(stored[0]?.n)).toBe(0);
  });
});
