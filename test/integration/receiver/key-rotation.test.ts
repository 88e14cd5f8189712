import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import type { KeyObject } from 'node:crypto';
import { createLogger } from '../../../src/lib/logger.ts';
import { startKeyServer, type KeyServer } from '../../../tools/common/key-server.ts';
import { type SigningKeySource } from '../../../src/receiver/verification/key-source.ts';
import {
  createFetchedKeySource,
  type FetchedKeySourceOptions,
} from '../../../src/receiver/verification/fetched-key-source.ts';
import { scheduleUnref } from '../../../src/receiver/verification/schedule.ts';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { createManualClock, type ManualClock } from '../../support/manual-clock.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { generateSigningKeyPair, type SigningKeyPair } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

const THROTTLE_MS = 5_000;
/** The platform retries a non-200, non-400/401 answer once, this long after the first attempt. */
const PLATFORM_RETRY_MS = 30_000;
const HOUR_MS = 3_600_000;

let database: TestDatabase;
let oldKey: SigningKeyPair;
let newKey: SigningKeyPair;
let forgerKey: SigningKeyPair;
let endpoint: KeyServer;
let clock: ManualClock;
const sources: SigningKeySource[] = [];

beforeAll(async () => {
  [database, oldKey, newKey, forgerKey] = await Promise.all([
    createTestDatabase(),
    generateSigningKeyPair(),
    generateSigningKeyPair(),
    generateSigningKeyPair(),
  ]);
});
afterAll(() => database.drop());
beforeEach(async () => {
  await database.query(
    'TRUNCATE webhook_deliveries, npp_payments, payto_payments, credit_rejections, conflicts, quarantined_deliveries',
  );
  endpoint = await startKeyServer(undefined, { port: 0, host: '127.0.0.1' });
  clock = createManualClock();
  return async () => {
    sources.splice(0).forEach((source) => source.stop());
    await endpoint.close();
  };
});

function fetchedKeys(overrides: Partial<FetchedKeySourceOptions> = {}): SigningKeySource {
  const keys = createFetchedKeySource({
    url: endpoint.url,
    allowHttp: true,
    fetchTimeoutMs: 2000,
    refreshCooldownMs: THROTTLE_MS,
    retryIntervalMs: 0,
    now: clock.now,
    schedule: clock.schedule,
    logger: createLogger('silent'),
    ...overrides,
  });
  sources.push(keys);
  return keys;
}

/** A receiver whose key source started while the endpoint served the old key. */
async function receiverWithOldKey(
  overrides: Partial<FetchedKeySourceOptions> = {},
): Promise<{ app: Express; keys: SigningKeySource }> {
  endpoint.serve(oldKey.publicKey);
  const keys = fetchedKeys(overrides);
  await keys.start();
  return { app: buildTestApp({ db: database.db, keys }).app, keys };
}

/**
 * One notification as the platform sends it: a first attempt and, unless that was answered 200,
 * 400 or 401, one retry 30 s later. Returns both statuses.
 */
async function platformDelivers(app: Express, signWith: KeyObject): Promise<number[]> {
  const body = nppPayment();
  const webhookId = freshWebhookId();
  const first = (await sendDelivery(app, { body, webhookId, signWith })).status;
  if ([200, 400, 401].includes(first)) return [first];
  await clock.advance(PLATFORM_RETRY_MS);
  return [first, (await sendDelivery(app, { body, webhookId, signWith })).status];
}

const forge = (app: Express) =>
  sendDelivery(app, { body: nppPayment(), signWith: forgerKey.privateKey });

describe('the platform key, fetched from its endpoint', () => {
  it('when the platform rotates its key, then the first delivery signed with the new key refetches it and is stored', async () => {
    const { app } = await receiverWithOldKey();
    await sendDelivery(app, { body: nppPayment(), signWith: oldKey.privateKey }).expect(200);

    endpoint.serve(newKey.publicKey);
    await clock.advance(THROTTLE_MS); // the last fetch is now outside the throttle window
    await sendDelivery(app, { body: nppPayment(), signWith: newKey.privateKey }).expect(200);
    expect(await database.count('webhook_deliveries')).toBe(2);
    expect(endpoint.requests()).toBe(2);
  });

  it('when bad signatures flood in within the throttle window, then the key endpoint is not hammered and none is stored', async () => {
    endpoint.serve(oldKey.publicKey);
    const keys = fetchedKeys();
    await keys.start();
    const receiver = buildTestApp({ db: database.db, keys });
    const app = receiver.app;
    await clock.advance(100);
    const answers = await Promise.all(Array.from({ length: 20 }, () => forge(app)));
    // The key cannot be re-checked inside the window: 503, so a genuine rotated delivery is retried.
    expect(answers.every((res) => res.status === 503)).toBe(true);
    // Counted apart from a missing key, so a forged flood does not page anyone for the key.
    const outcomes = receiver.logs.map((line) => line.outcome).filter(Boolean);
    expect(new Set(outcomes)).toEqual(new Set(['signature-unconfirmed']));
    expect(endpoint.requests()).toBe(1);
    expect(await database.count('webhook_deliveries')).toBe(0);

    await clock.advance(THROTTLE_MS);
    await forge(app).expect(401);
    expect(endpoint.requests()).toBe(2);
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
    await clock.advance(1000);
    await sendDelivery(app, { body, webhookId, signWith: oldKey.privateKey }).expect(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('when the key endpoint goes down after a key was fetched, then the last good key keeps verifying', async () => {
    const { app, keys } = await receiverWithOldKey();
    endpoint.down();
    await clock.advance(HOUR_MS);
    // A bad signature triggers a refetch, which fails: it cannot be told from a rotation, so 503.
    await forge(app).expect(503);
    await sendDelivery(app, { body: nppPayment(), signWith: oldKey.privateKey }).expect(200);
    expect(keys.current()?.key.equals(oldKey.publicKey)).toBe(true);
  });
});

describe('a rotated key is accepted by the platform retry 30 s later, whatever came before', () => {
  /** Rotation lands just after the last fetch, so that fetch returned the old key. */
  async function rotateAndDeliver(app: Express): Promise<number[]> {
    endpoint.serve(newKey.publicKey);
    await clock.advance(100);
    return platformDelivers(app, newKey.privateKey);
  }

  it('when the key rotates right after the start-up fetch, then the retry is stored', async () => {
    const { app } = await receiverWithOldKey();

    const statuses = await rotateAndDeliver(app);

    expect(statuses.at(-1)).toBe(200);
    expect(statuses[0]).not.toBe(401);
    expect(await database.count('webhook_deliveries')).toBe(1);
  });

  it('when the key rotates right after the hourly background refresh, then the retry is stored', async () => {
    const { app } = await receiverWithOldKey({ refreshIntervalMs: HOUR_MS });
    await clock.advance(HOUR_MS);
    expect(endpoint.requests()).toBe(2); // the scheduled refresh ran, and got the old key

    const statuses = await rotateAndDeliver(app);

    expect(statuses.at(-1)).toBe(200);
    expect(await database.count('webhook_deliveries')).toBe(1);
  });

  it('when a forged request made the receiver refetch just before, then the retry is stored', async () => {
    const { app } = await receiverWithOldKey();
    await clock.advance(10 * 60_000);
    await forge(app).expect(401); // refetched: the old key, still the platform's
    expect(endpoint.requests()).toBe(2);

    const statuses = await rotateAndDeliver(app);

    expect(statuses).toEqual([503, 200]);
    expect(await database.count('webhook_deliveries')).toBe(1);
  });

  it('when a forger sends a bad signature every few seconds for 20 minutes, then every genuine retry is stored and fetches stay throttled', async () => {
    const { app } = await receiverWithOldKey();
    const forgerEveryMs = 3_000;
    let forged = 0;
    const floodMs = 20 * 60_000;
    for (let elapsed = 0; elapsed < floodMs; elapsed += forgerEveryMs) {
      await clock.advance(forgerEveryMs);
      expect([401, 503]).toContain((await forge(app)).status);
      forged += 1;
    }
    const fetchesDuringFlood = endpoint.requests() - 1;
    expect(fetchesDuringFlood).toBeLessThanOrEqual(Math.ceil(floodMs / THROTTLE_MS));
    expect(fetchesDuringFlood).toBeLessThan(forged);

    // The worst moment: the forger's refetch got the old key, the platform's first attempt follows.
    await forge(app);
    const statuses = await rotateAndDeliver(app);

    expect(statuses.at(-1)).toBe(200);
    expect(await database.count('webhook_deliveries')).toBe(1);
  });
});

describe('readiness while no key is held', () => {
  it('when the key endpoint is down at start and comes back, then /readyz turns 200 within seconds without any delivery', async () => {
    endpoint.down();
    // Real time and the default back-off (0.5 s doubling to 5 s, jittered).
    const keys = fetchedKeys({ now: Date.now, schedule: scheduleUnref });
    await keys.start();
    const { app } = buildTestApp({ db: database.db, keys });
    expect((await request(app).get('/readyz')).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(endpoint.requests()).toBeGreaterThan(1); // retried in the background

    endpoint.serve(oldKey.publicKey);
    const backAt = performance.now();
    let status = 503;
    while (status !== 200 && performance.now() - backAt < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await request(app).get('/readyz')).status;
    }
    const readyAfterMs = performance.now() - backAt;

    expect(status).toBe(200);
    // The back-off is capped at 5 s; the rest is margin for a loaded machine.
    expect(readyAfterMs).toBeLessThan(10_000);
    expect(await database.count('webhook_deliveries')).toBe(0);
    console.info(`readiness returned ${Math.round(readyAfterMs)} ms after the key endpoint`);
  });
});
