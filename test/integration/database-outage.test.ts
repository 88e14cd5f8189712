import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createDatabase, type Db } from '../../src/storage/database.ts';
import { freshWebhookId, sendDelivery } from '../support/deliveries.ts';
import { nppPayment } from '../support/sample-bodies.ts';
import { generateSigningKeyPair, type SigningKeyPair } from '../support/signing.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { buildTestApp, type TestApp } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
let signer: SigningKeyPair;
let proxy: TcpProxy;
let db: Db;
let built: TestApp;

beforeAll(async () => {
  [database, signer] = await Promise.all([createTestDatabase(), generateSigningKeyPair()]);
  const target = new URL(database.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(database.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  db = createDatabase({ url: viaProxy.toString(), poolMax: 4, connectionTimeoutMs: 1000 });
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
