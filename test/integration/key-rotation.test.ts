import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createLogger } from '../../src/logger.ts';
import {
  createFetchedKeySource,
  type SigningKeySource,
} from '../../src/verification/key-source.ts';
import { sendDelivery } from '../support/deliveries.ts';
import { startKeyEndpoint, type KeyEndpoint } from '../support/key-endpoint.ts';
import { nppPayment } from '../support/sample-bodies.ts';
import { generateSigningKeyPair, type SigningKeyPair } from '../support/signing.ts';
import { buildTestApp } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
let oldKey: SigningKeyPair;
let newKey: SigningKeyPair;
let endpoint: KeyEndpoint;
let clock: number;

beforeAll(async () => {
  [database, oldKey, newKey] = await Promise.all([
    createTestDatabase(),
    generateSigningKeyPair(),
    generateSigningKeyPair(),
  ]);
});
afterAll(() => database.drop());
beforeEach(async () => {
  await database.query(
    'TRUNCATE webhook_deliveries, npp_payments, payto_payments, credit_rejections, conflicts, quarantined_deliveries',
  );
  endpoint = await startKeyEndpoint();
  clock = Date.parse('2026-11-22T00:00:00Z');
  return () => endpoint.close();
});

function fetchedKeys(): SigningKeySource {
  return createFetchedKeySource({
    url: endpoint.url,
    allowHttp: true,
    fetchTimeoutMs: 2000,
    refreshCooldownMs: 60_000,
    retryIntervalMs: 0,
    now: () => clock,
    logger: createLogger('silent'),
  });
}

describe('the platform key, fetched from its endpoint', () => {
  it('when the platform rotates its key, then the first delivery signed with the new key refetches it and is stored', async () => {
    endpoint.serve(oldKey.publicKey);
    const keys = fetchedKeys();
    await keys.start();
    const { app } = buildTestApp({ db: database.db, keys });
    await sendDelivery(app, { body: nppPayment(), signWith: oldKey.privateKey }).expect(200);

    endpoint.serve(newKey.publicKey);
    clock += 61_000; // the cached key is now older than the cooldown
    await sendDelivery(app, { body: nppPayment(), signWith: newKey.privateKey }).expect(200);
    expect(await database.count('webhook_deliveries')).toBe(2);
    expect(endpoint.requests()).toBe(2);
  });

  it('when bad signatures flood in within the cooldown, then the key endpoint is not hammered and each answers 401', async () => {
    endpoint.serve(oldKey.publicKey);
    const keys = fetchedKeys();
    await keys.start();
    const { app } = buildTestApp({ db: database.db, keys });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        sendDelivery(app, { body: nppPayment(), signWith: newKey.privateKey }),
      ),
    );
    expect(answers.every((res) => res.status === 401)).toBe(true);
    expect(endpoint.requests()).toBe(1);
    expect(await database.count('webhook_deliveries')).toBe(0);
  });

  it('when the key endpoint is down at start-up, then deliveries get 503 and readiness fails; once it is up, deliveries store', async () => {
    endpoint.down();
    const keys = fetchedKeys();
    await keys.start();
    const { app } = buildTestApp({ db: database.db, keys });
    const body = nppPayment();
    const webhookId = '424242';

    const first = await sendDelivery(app, { body, webhookId, signWith: oldKey.privateKey });
    expect(first.status).toBe(503);
    expect((await request(app).get('/readyz')).status).toBe(503);
    expect(await database.count('webhook_deliveries')).toBe(0);

    endpoint.serve(oldKey.publicKey);
    clock += 1000;
    await sendDelivery(app, { body, webhookId, signWith: oldKey.privateKey }).expect(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('when the key endpoint goes down after a key was fetched, then the last good key keeps verifying', async () => {
    endpoint.serve(oldKey.publicKey);
    const keys = fetchedKeys();
    await keys.start();
    endpoint.down();
    clock += 3_600_000;
    const { app } = buildTestApp({ db: database.db, keys });
    // A bad signature triggers a refetch, which fails; the held key stays.
    await sendDelivery(app, { body: nppPayment(), signWith: newKey.privateKey }).expect(401);
    await sendDelivery(app, { body: nppPayment(), signWith: oldKey.privateKey }).expect(200);
  });
});
