import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConfiguredKeySource } from '../../../../src/receiver/verification/key-source.ts';
import { createFetchedKeySource } from '../../../../src/receiver/verification/fetched-key-source.ts';
import type { FetchedKeySourceOptions } from '../../../../src/receiver/verification/fetched-key-source.ts';
import type { SigningKeySource } from '../../../../src/receiver/verification/key-source.ts';
import { keyFingerprint } from '../../../../src/receiver/verification/public-key.ts';
import { retryBackoffMs } from '../../../../src/lib/backoff.ts';
import { loadConfig } from '../../../../src/cli/config.ts';
import { createManualClock } from '../../../support/manual-clock.ts';
import { generateSigningKeyPair, publicKeyAsProviderHex } from '../../../support/signing.ts';
import type { SigningKeyPair } from '../../../support/signing.ts';

const KEY_PATH = '/public/v1/certificate/public-key';
const COOLDOWN_MS = 5_000;
const RETRY_MS = 5_000;

let keyA: SigningKeyPair;
let keyB: SigningKeyPair;

beforeAll(async () => {
  [keyA, keyB] = await Promise.all([generateSigningKeyPair(), generateSigningKeyPair()]);
});

/** A real key endpoint on 127.0.0.1 whose behaviour a test can change between requests. */
interface KeyServer {
  url: string;
  baseUrl: string;
  requests: IncomingMessage[];
  respond: RequestListener;
  close(): Promise<void>;
}

const servers: KeyServer[] = [];
const sources: SigningKeySource[] = [];

afterEach(async () => {
  sources.splice(0).forEach((source) => source.stop());
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function serveHex(hex: string, delayMs = 0): RequestListener {
  return (_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(hex);
    }, delayMs);
  };
}

async function startKeyServer(respond: RequestListener): Promise<KeyServer> {
  const requests: IncomingMessage[] = [];
  const keyServer: KeyServer = { url: '', baseUrl: '', requests, respond, close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    keyServer.respond(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  keyServer.baseUrl = `http://127.0.0.1:${port}`;
  keyServer.url = `${keyServer.baseUrl}${KEY_PATH}`;
  keyServer.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  servers.push(keyServer);
  return keyServer;
}

interface Harness {
  source: SigningKeySource;
  clock: { now: number };
  logs: Record<string, unknown>[];
}

function createSource(url: string, overrides: Partial<FetchedKeySourceOptions> = {}): Harness {
  const clock = { now: 1_700_000_000_000 };
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const source = createFetchedKeySource({
    url,
    fetchTimeoutMs: 2_000,
    refreshCooldownMs: COOLDOWN_MS,
    retryIntervalMs: RETRY_MS,
    allowHttp: true,
    now: () => clock.now,
    logger: pino({ level: 'debug' }, sink),
    ...overrides,
  });
  sources.push(source);
  return { source, clock, logs };
}

const fingerprintOf = (pair: SigningKeyPair): string => keyFingerprint(pair.publicKey);

describe('createFetchedKeySource: fetching', () => {
  it('when started and the endpoint serves the provider hex, then that key is held', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey)));
    const { source, clock, logs } = createSource(server.url);

    await source.start();

    expect(source.current()).toMatchObject({
      fingerprint: fingerprintOf(keyA),
      origin: 'fetched',
      obtainedAt: clock.now,
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.method).toBe('GET');
    expect(server.requests[0]?.url).toBe(KEY_PATH);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 30,
        url: server.url,
        fingerprint: fingerprintOf(keyA),
        changed: false,
      }),
    );
  });

  it('when many callers ensure() a key at once, then the endpoint sees one request', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey), 100));
    const { source } = createSource(server.url);

    const results = await Promise.all(Array.from({ length: 10 }, () => source.ensure()));

    expect(server.requests).toHaveLength(1);
    expect(results.map((key) => key?.fingerprint)).toEqual(Array(10).fill(fingerprintOf(keyA)));
  });

  it('when start() is called again during the start-up fetch, then both share one request', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey), 100));
    const { source } = createSource(server.url);

    await Promise.all([source.start(), source.start(), source.ensure()]);

    expect(server.requests).toHaveLength(1);
    expect(source.current()?.fingerprint).toBe(fingerprintOf(keyA));
  });

  it('when a key is held, then ensure() answers at once without a request', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey)));
    const { source } = createSource(server.url);
    await source.start();

    await expect(source.ensure()).resolves.toBe(source.current());
    expect(server.requests).toHaveLength(1);
  });

  it('when no key is held, then ensure() attempts are spaced by the retry interval', async () => {
    const server = await startKeyServer((_req, res) => res.writeHead(503).end());
    const { source, clock } = createSource(server.url);
    await source.start();
    expect(server.requests).toHaveLength(1);

    clock.now += RETRY_MS - 1;
    await expect(source.ensure()).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(1);

    server.respond = serveHex(publicKeyAsProviderHex(keyA.publicKey));
    clock.now += 1;
    await expect(source.ensure()).resolves.toMatchObject({ fingerprint: fingerprintOf(keyA) });
    expect(server.requests).toHaveLength(2);
  });

  it('when the endpoint never answers, then the fetch fails within the timeout', async () => {
    const server = await startKeyServer(() => {});
    const { source, logs } = createSource(server.url, { fetchTimeoutMs: 300 });

    const startedAt = performance.now();
    await source.start();
    const elapsed = performance.now() - startedAt;

    expect(source.current()).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 40, error: expect.stringMatching(/timed out/) }),
    );
  });

  it('when the endpoint sends headers but stalls the body, then the timeout still applies', async () => {
    const server = await startKeyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('3082010A');
    });
    const { source } = createSource(server.url, { fetchTimeoutMs: 300 });

    const startedAt = performance.now();
    await source.start();

    expect(source.current()).toBeUndefined();
    expect(performance.now() - startedAt).toBeLessThan(2_000);
  });

  it('when the endpoint redirects, then the redirect is not followed and no key is taken', async () => {
    const server = await startKeyServer((req, res) => {
      if (req.url === KEY_PATH) {
        res.writeHead(302, { location: '/elsewhere' }).end();
      } else {
        serveHex(publicKeyAsProviderHex(keyB.publicKey))(req, res);
      }
    });
    const { source } = createSource(server.url);

    await source.start();

    expect(source.current()).toBeUndefined();
    expect(server.requests.map((req) => req.url)).toEqual([KEY_PATH]);
  });

  it.each([
    ['404', 404],
    ['500', 500],
    ['204', 204],
  ])('when the endpoint answers %s, then no key is taken', async (_, status) => {
    const server = await startKeyServer((_req, res) => {
      res.writeHead(status);
      res.end(status === 204 ? undefined : publicKeyAsProviderHex(keyA.publicKey));
    });
    const { source } = createSource(server.url);

    await source.start();

    expect(source.current()).toBeUndefined();
  });

  it('when the body is not a key, then no key is taken and start() does not throw', async () => {
    const server = await startKeyServer((_req, res) =>
      res.writeHead(200).end('<html>maintenance</html>'),
    );
    const { source, logs } = createSource(server.url);

    await expect(source.start()).resolves.toBeUndefined();

    expect(source.current()).toBeUndefined();
    expect(logs).toContainEqual(expect.objectContaining({ level: 40, keptFingerprint: null }));
  });

  it('when the body streams past 64 KiB without a declared length, then it is refused', async () => {
    const big = 'A'.repeat(70 * 1024);
    const server = await startKeyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < big.length; i += 8 * 1024) res.write(big.slice(i, i + 8 * 1024));
      res.end();
    });
    const { source, logs } = createSource(server.url);

    await source.start();

    expect(source.current()).toBeUndefined();
    expect(logs).toContainEqual(
      expect.objectContaining({ error: expect.stringMatching(/more than 65536 bytes/) }),
    );
  });

  it('when the endpoint declares a body over 64 KiB, then it is refused before the body is read', async () => {
    const server = await startKeyServer((_req, res) => {
      // Declares far more than it sends, then stalls: only the declared length can refuse it.
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.write(publicKeyAsProviderHex(keyA.publicKey));
    });
    const { source, logs } = createSource(server.url, { fetchTimeoutMs: 5_000 });

    const startedAt = performance.now();
    await source.start();

    expect(source.current()).toBeUndefined();
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    expect(logs).toContainEqual(
      expect.objectContaining({ error: expect.stringMatching(/declared 10485760 bytes/) }),
    );
  });

  it('when a body just under the cap holds a valid key, then it is accepted', async () => {
    const hex = publicKeyAsProviderHex(keyA.publicKey);
    const padded = `${' '.repeat(64 * 1024 - hex.length - 1)}${hex}\n`;
    const server = await startKeyServer((_req, res) => res.writeHead(200).end(padded));
    const { source } = createSource(server.url);

    await source.start();

    expect(source.current()?.fingerprint).toBe(fingerprintOf(keyA));
  });

  it('when stopped during a fetch, then the fetch is abandoned at once', async () => {
    const server = await startKeyServer(() => {});
    const { source } = createSource(server.url, { fetchTimeoutMs: 10_000 });

    const startedAt = performance.now();
    const started = source.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    source.stop();
    await started;

    expect(performance.now() - startedAt).toBeLessThan(2_000);
    expect(source.current()).toBeUndefined();
  });
});

describe('createFetchedKeySource: refresh after a failed signature', () => {
  async function startedWithKeyA(): Promise<Harness & { server: KeyServer }> {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey)));
    const harness = createSource(server.url);
    await harness.source.start();
    return { ...harness, server };
  }

  it('when the last fetch began less than the throttle window ago, then no refetch happens and the failure is unconfirmed', async () => {
    const { source, clock, server } = await startedWithKeyA();
    const held = source.current();
    if (!held) throw new Error('no key after start');
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey));

    clock.now += COOLDOWN_MS - 1;
    await expect(source.refreshAfterFailure(held)).resolves.toBe('unconfirmed');

    expect(server.requests).toHaveLength(1);
    expect(source.current()).toBe(held);
  });

  it('when the window has passed but the key is unchanged, then one refetch confirms the failure and the next waits', async () => {
    const { source, clock, server } = await startedWithKeyA();
    const held = source.current();
    if (!held) throw new Error('no key after start');

    clock.now += COOLDOWN_MS;
    await expect(source.refreshAfterFailure(held)).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(source.current()).toBe(held);

    clock.now += COOLDOWN_MS - 1;
    await expect(source.refreshAfterFailure(held)).resolves.toBe('unconfirmed');
    expect(server.requests).toHaveLength(2);

    clock.now += 1;
    await source.refreshAfterFailure(held);
    expect(server.requests).toHaveLength(3);
  });

  it('when the platform has rotated its key, then the refresh yields the new key and logs the change', async () => {
    const { source, clock, server, logs } = await startedWithKeyA();
    const held = source.current();
    if (!held) throw new Error('no key after start');
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey));

    clock.now += COOLDOWN_MS;
    const rotated = await source.refreshAfterFailure(held);

    expect(rotated).toMatchObject({
      fingerprint: fingerprintOf(keyB),
      origin: 'fetched',
      obtainedAt: clock.now,
    });
    expect(source.current()).toBe(rotated);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 30, fingerprint: fingerprintOf(keyB), changed: true }),
    );
    const infoText = JSON.stringify(logs.filter((line) => line['level'] === 30));
    expect(infoText).not.toContain(publicKeyAsProviderHex(keyB.publicKey).slice(20, 60));
  });

  it('when several failures race after a rotation, then one request serves them all', async () => {
    const { source, clock, server } = await startedWithKeyA();
    const held = source.current();
    if (!held) throw new Error('no key after start');
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey), 100);

    clock.now += COOLDOWN_MS;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => source.refreshAfterFailure(held)),
    );

    expect(server.requests).toHaveLength(2);
    expect(results.map((key) => (typeof key === 'object' ? key.fingerprint : key))).toEqual(
      Array(5).fill(fingerprintOf(keyB)),
    );
  });

  it('when a failure with the old key comes after the rotation, then the new key is returned without a request', async () => {
    const { source, clock, server } = await startedWithKeyA();
    const old = source.current();
    if (!old) throw new Error('no key after start');
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey));
    clock.now += COOLDOWN_MS;
    await source.refreshAfterFailure(old);

    await expect(source.refreshAfterFailure(old)).resolves.toMatchObject({
      fingerprint: fingerprintOf(keyB),
    });
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [
      'answers 503',
      (server: KeyServer) => (server.respond = (_req, res) => res.writeHead(503).end()),
    ],
    ['is down', (server: KeyServer) => server.close()],
  ])('when the endpoint %s on refresh, then the last good key is kept', async (_, breakIt) => {
    const { source, clock, server, logs } = await startedWithKeyA();
    const held = source.current();
    if (!held) throw new Error('no key after start');
    await breakIt(server);

    clock.now += COOLDOWN_MS;
    // A failed refetch cannot tell a forgery from a rotation: the platform is asked to retry.
    await expect(source.refreshAfterFailure(held)).resolves.toBe('unconfirmed');

    expect(source.current()).toBe(held);
    await expect(source.ensure()).resolves.toBe(held);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 40, keptFingerprint: held.fingerprint }),
    );
  });
});

describe('createFetchedKeySource: the URL', () => {
  const base = {
    fetchTimeoutMs: 1_000,
    refreshCooldownMs: 1,
    retryIntervalMs: 1,
    now: Date.now,
    logger: pino({ level: 'silent' }),
  };

  it('when the URL is http and allowHttp is off, then construction throws', () => {
    expect(() =>
      createFetchedKeySource({ ...base, url: 'http://api.mpay.com.au/x', allowHttp: false }),
    ).toThrow(/https/);
  });

  it('when the URL is http and allowHttp is on, then construction succeeds', () => {
    expect(() =>
      createFetchedKeySource({ ...base, url: 'http://127.0.0.1/x', allowHttp: true }),
    ).not.toThrow();
  });

  it('when the URL is https, then construction succeeds', () => {
    expect(() =>
      createFetchedKeySource({
        ...base,
        url: `https://api.mpay.com.au${KEY_PATH}`,
        allowHttp: false,
      }),
    ).not.toThrow();
  });

  it.each([
    ['another scheme', 'ftp://api.mpay.com.au/key'],
    ['not a URL', 'api.mpay.com.au/key'],
    ['credentials in it', 'https://user:pass@api.mpay.com.au/key'],
  ])('when the URL has %s, then construction throws even with allowHttp', (_, url) => {
    expect(() => createFetchedKeySource({ ...base, url, allowHttp: true })).toThrow(
      /signing key URL/,
    );
  });
});

describe('createConfiguredKeySource', () => {
  it('when configured, then the key is held at once and never refreshed', async () => {
    const source = createConfiguredKeySource(keyA.publicKey, () => 42);
    await source.start();

    const held = source.current();
    expect(held).toMatchObject({
      fingerprint: fingerprintOf(keyA),
      origin: 'configured',
      obtainedAt: 42,
    });
    await expect(source.ensure()).resolves.toBe(held);
    if (!held) throw new Error('no configured key');
    await expect(source.refreshAfterFailure(held)).resolves.toBeUndefined();
    source.stop();
  });
});

describe('createFetchedKeySource: background refresh and reporting', () => {
  it('when a refresh interval is set, then a rotated key is picked up without any delivery failing', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey)));
    const results: string[] = [];
    const { source } = createSource(server.url, {
      refreshIntervalMs: 40,
      onFetch: (result) => results.push(result),
    });
    await source.start();
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey));

    const deadline = Date.now() + 3000;
    while (source.current()?.fingerprint !== fingerprintOf(keyB) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(source.current()?.fingerprint).toBe(fingerprintOf(keyB));
    // The first key of the process is not a rotation (an alert counts rotations); B replacing A is.
    expect(results[0]).toBe('fetched');
    expect(results.filter((result) => result === 'changed')).toEqual(['changed']);
  });

  it('when stopped, then no background refresh runs any more', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey)));
    const { source } = createSource(server.url, { refreshIntervalMs: 20 });
    await source.start();
    source.stop();
    const before = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(server.requests.length).toBe(before);
  });

  it('when a fetch fails, then onFetch is told so', async () => {
    const server = await startKeyServer((_req, res) => res.writeHead(500).end());
    const results: string[] = [];
    const { source } = createSource(server.url, { onFetch: (result) => results.push(result) });
    await source.start();
    expect(results).toEqual(['failed']);
  });
});

describe('createFetchedKeySource: the refetch throttle', () => {
  /** A source on a clock moved by hand, timers included, started with key A. */
  async function startedOnManualClock(delayMs = 0) {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey), delayMs));
    const clock = createManualClock();
    const { source } = createSource(server.url, { now: clock.now, schedule: clock.schedule });
    await source.start();
    const held = source.current();
    if (!held) throw new Error('no key after start');
    return { source, server, clock, held };
  }

  it('when a failure comes while a fetch begun before it is in flight, then it waits for that fetch and takes the key it brings', async () => {
    const { source, server, clock, held } = await startedOnManualClock();
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey), 200);
    await clock.advance(COOLDOWN_MS);

    const first = source.refreshAfterFailure(held); // begins the fetch
    await clock.advance(100);
    const second = source.refreshAfterFailure(held); // inside the window: joins it

    await expect(second).resolves.toMatchObject({ fingerprint: fingerprintOf(keyB) });
    await expect(first).resolves.toMatchObject({ fingerprint: fingerprintOf(keyB) });
    expect(server.requests).toHaveLength(2);
  });

  it('when a failure joins a fetch begun before it that brings the same key, then the failure is unconfirmed, not final', async () => {
    const { source, server, clock, held } = await startedOnManualClock(200);
    await clock.advance(COOLDOWN_MS);

    const forged = source.refreshAfterFailure(held);
    await clock.advance(100); // the key rotates now, after the forger's fetch went out
    const genuine = source.refreshAfterFailure(held);

    await expect(forged).resolves.toBeUndefined();
    await expect(genuine).resolves.toBe('unconfirmed');
    expect(server.requests).toHaveLength(2); // one fetch, shared
  });

  it('when a failure joins a fetch begun before it and the window already allows another, then a fresh fetch confirms it', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey), 200));
    const clock = createManualClock();
    const { source } = createSource(server.url, {
      now: clock.now,
      schedule: clock.schedule,
      refreshCooldownMs: 0,
    });
    await source.start();
    const held = source.current();
    if (!held) throw new Error('no key after start');
    await clock.advance(10);

    const first = source.refreshAfterFailure(held);
    await clock.advance(100);
    const second = source.refreshAfterFailure(held); // joins the first fetch, then needs its own

    await expect(first).resolves.toBeUndefined();
    await expect(second).resolves.toBeUndefined(); // confirmed: a final 401, not a 503
    expect(server.requests).toHaveLength(3); // start-up, the first failure's, the second's
  });

  it('when failures come every 100 ms for 10 simulated minutes, then at most one fetch per window is made', async () => {
    const { source, server, clock, held } = await startedOnManualClock();
    const floodMs = 10 * 60_000;
    const answers = new Map<string, number>();
    for (let elapsed = 0; elapsed < floodMs; elapsed += 100) {
      await clock.advance(100);
      const result = String(await source.refreshAfterFailure(held));
      answers.set(result, (answers.get(result) ?? 0) + 1);
    }

    const fetches = server.requests.length - 1;
    expect(fetches).toBeLessThanOrEqual(floodMs / COOLDOWN_MS);
    expect(fetches).toBeGreaterThanOrEqual(floodMs / COOLDOWN_MS - 1);
    expect(answers.get('undefined')).toBe(fetches); // only a fresh fetch makes a failure final
    expect(source.current()).toBe(held);
  });

  it('when the throttle or the fetch timeout is set beyond 10 s, then construction throws', () => {
    expect(() => createSource('http://127.0.0.1:9/k', { refreshCooldownMs: 10_001 })).toThrow(
      /refreshCooldownMs is at most 10000/,
    );
    expect(() => createSource('http://127.0.0.1:9/k', { fetchTimeoutMs: 10_001 })).toThrow(
      /fetchTimeoutMs is at most 10000/,
    );
  });

  it('when the configuration asks for a throttle or back-off out of bounds, then it is refused by name', () => {
    for (const [name, value] of [
      ['SIGNING_KEY_REFRESH_COOLDOWN_MS', '300000'],
      ['SIGNING_KEY_REFRESH_COOLDOWN_MS', '500'],
      ['SIGNING_KEY_FETCH_TIMEOUT_MS', '30000'],
      ['SIGNING_KEY_RETRY_MAX_MS', '60000'],
    ] as const) {
      expect(() => loadConfig({ ...SECRET, [name]: value })).toThrow(new RegExp(name));
    }
    expect(loadConfig(SECRET).signingKey).toMatchObject({
      refreshCooldownMs: 5_000,
      retryBackoffMaxMs: 5_000,
    });
  });
});

/** The receiver refuses to start without being told about the shared secret. */
const SECRET = { WEBHOOK_SECRETS: 'Basic abc' };

describe('createFetchedKeySource: background attempts while no key is held', () => {
  async function keylessOnManualClock(random: () => number) {
    const server = await startKeyServer((_req, res) => res.writeHead(503).end());
    const clock = createManualClock();
    const { source } = createSource(server.url, {
      now: clock.now,
      schedule: clock.schedule,
      random,
    });
    await source.start();
    return { source, server, clock };
  }

  it('when the start-up fetch fails, then attempts follow at 0.5, 1, 2, 4, 5, 5 s until a key comes, then stop', async () => {
    const { source, server, clock } = await keylessOnManualClock(() => 0);
    const gaps: number[] = [];
    let last = clock.now();
    for (const gap of [500, 1_000, 2_000, 4_000, 5_000, 5_000]) {
      await clock.advance(gap - 1);
      expect(server.requests).toHaveLength(gaps.length + 1);
      await clock.advance(1);
      gaps.push(clock.now() - last);
      last = clock.now();
      expect(server.requests).toHaveLength(gaps.length + 1);
    }
    expect(gaps).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);

    server.respond = serveHex(publicKeyAsProviderHex(keyA.publicKey));
    await clock.advance(5_000);
    expect(source.current()?.fingerprint).toBe(fingerprintOf(keyA));

    const before = server.requests.length;
    await clock.advance(60 * 60_000);
    expect(server.requests).toHaveLength(before);
    expect(clock.pending()).toBe(0);
  });

  it('when jitter is drawn, then each wait is cut by up to half, never lengthened', async () => {
    const { server, clock } = await keylessOnManualClock(() => 0.999);
    await clock.advance(250);
    expect(server.requests).toHaveLength(2);
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const wait = retryBackoffMs(attempt, 500, 5_000, Math.random);
      expect(wait).toBeGreaterThanOrEqual(Math.min(5_000, 500 * 2 ** attempt) / 2);
      expect(wait).toBeLessThanOrEqual(5_000);
    }
  });

  it('when stopped while keyless, then no background attempt runs any more', async () => {
    const { source, server, clock } = await keylessOnManualClock(() => 0);
    source.stop();
    await clock.advance(60_000);
    expect(server.requests).toHaveLength(1);
    expect(clock.pending()).toBe(0);
  });

  it('when the hourly refresh is due on the manual clock, then it runs and picks up a rotated key', async () => {
    const server = await startKeyServer(serveHex(publicKeyAsProviderHex(keyA.publicKey)));
    const clock = createManualClock();
    const { source } = createSource(server.url, {
      now: clock.now,
      schedule: clock.schedule,
      refreshIntervalMs: 3_600_000,
    });
    await source.start();
    server.respond = serveHex(publicKeyAsProviderHex(keyB.publicKey));

    await clock.advance(3_600_000 - 1);
    expect(server.requests).toHaveLength(1);
    await clock.advance(1);
    expect(source.current()?.fingerprint).toBe(fingerprintOf(keyB));
    await clock.advance(3_600_000);
    expect(server.requests).toHaveLength(3);
  });
});
