import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { generateSigningKeyPair, type SigningKeyPair } from '../../support/signing.ts';
import type { TcpProxy } from '../../../tools/common/tcp-proxy.ts';
import { proxyDatabase } from '../../support/proxied-database.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * A pooled connection whose peer goes silent (packets dropped: no FIN, no RST) never answers,
 * and the server's statement timeout cannot help: the server never sees the statement. The
 * delivery must still get its answer within a bound, and the pool must not hand the dead
 * connection out again.
 */

const STATEMENT_TIMEOUT_MS = 300;
/** The statement timeout, our margin above it (1 s) and plenty for a loaded machine. */
const ANSWER_BOUND_MS = 8000;

let database: TestDatabase;
let signer: SigningKeyPair;
let proxy: TcpProxy;
let db: Db;
let built: TestApp;

beforeAll(async () => {
  [database, signer] = await Promise.all([createTestDatabase(), generateSigningKeyPair()]);
  const proxied = await proxyDatabase(database);
  proxy = proxied.proxy;
  // One connection, so the delivery after the freeze can only store on a replacement.
  db = createDatabase({
    url: proxied.url,
    poolMax: 1,
    statementTimeoutMs: STATEMENT_TIMEOUT_MS,
  });
  built = buildTestApp({ db, publicKey: signer.publicKey });
});
afterAll(async () => {
  await proxy.close();
  await db.destroy();
  await database.drop();
});

describe('database connection gone silent', () => {
  it('when the pooled connection stops answering mid-statement, then the delivery answers 500 within the bound, and the next one stores on a fresh connection', async () => {
    await sendDelivery(built.app, { body: nppPayment(), signWith: signer.privateKey }).expect(200);

    proxy.freeze();
    const lost = { webhookId: freshWebhookId(), body: nppPayment() };
    const started = performance.now();
    const res = await sendDelivery(built.app, { ...lost, signWith: signer.privateKey }).timeout(
      ANSWER_BOUND_MS,
    );
    const elapsedMs = performance.now() - started;
    console.info(`answered ${res.status} ${Math.round(elapsedMs)} ms after the freeze`);
    expect(res.status).toBe(500);
    expect(res.body.statusDescription).toBe('Delivery not stored; retry later');
    expect(elapsedMs).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS);
    const notStored = built.logs.filter((line) => line.msg === 'delivery NOT stored');
    expect(notStored.map((line) => line.webhookId)).toEqual([lost.webhookId]);
    // The frozen statement never reached the server.
    expect(
      await database.query('SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1', [
        lost.webhookId,
      ]),
    ).toHaveLength(0);

    // The platform's retry stores it, on a new connection.
    await sendDelivery(built.app, { ...lost, signWith: signer.privateKey })
      .timeout(ANSWER_BOUND_MS)
      .expect(200);
    expect(await database.count('webhook_deliveries')).toBe(2);
  });
});
