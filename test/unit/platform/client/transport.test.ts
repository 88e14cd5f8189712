import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/lib/logger.ts';
import type { Endpoint } from '../../../../src/platform/client/endpoints.ts';
import { ProviderError } from '../../../../src/platform/client/protocol/provider-error.ts';
import { createTokenCache } from '../../../../src/platform/client/token-cache.ts';
import {
  createTransport,
  type TransportOptions,
} from '../../../../src/platform/client/transport.ts';
import {
  basicCredentials,
  sendJson,
  startScriptedServer,
  type Script,
  type ScriptedServer,
} from '../../../support/scripted-server.ts';

const API_KEY = 'key-0123456789-SECRET';
const MACCOUNT = '6279059700000001';
const OK = { status: 'Ok', statusDescription: 'Operation completed successfully', durationMs: 3 };

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

const read: Endpoint = {
  name: 'test-read',
  method: 'GET',
  host: 'base',
  auth: 'api-key',
  retry: true,
  answer: 'envelope',
  accept: 'application/json',
  maxResponseBytes: 4096,
};

async function setUp(script: Script, overrides: Partial<TransportOptions> = {}) {
  server = await startScriptedServer(script);
  const waits: number[] = [];
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const transport = createTransport({
    baseUrl: server.url,
    authUrl: server.url,
    apiKey: API_KEY,
    mAccount: MACCOUNT,
    timeoutMs: 2000,
    retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
    fetch,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    logger: createLogger('debug', sink),
    ...overrides,
  });
  return { transport, waits, server, logText: () => lines.join('') };
}

/** A transport with instant, fixed waits, for tests that count attempts rather than time. */
function quickTransport(url: string, extra: Partial<TransportOptions> = {}) {
  return createTransport({
    baseUrl: url,
    authUrl: url,
    apiKey: API_KEY,
    mAccount: MACCOUNT,
    timeoutMs: 2000,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    fetch,
    sleep: async () => {},
    random: () => 0,
    ...extra,
  });
}

describe('provider transport (real HTTP to 127.0.0.1)', () => {
  it('when an api-key endpoint is called, then Basic carries the API key with an empty password', async () => {
    const t = await setUp((_req, res) => sendJson(res, 200, OK));
    await t.transport.call(read, { path: '/x', query: { a: '1', b: undefined } });
    expect(basicCredentials(t.server.requests[0]!)).toBe(`${API_KEY}:`);
    expect(t.server.requests[0]!.path).toBe('/x?a=1');
  });

  it('when the token endpoint is called, then Basic carries mAccount:API key, and a 401 is not retried', async () => {
    const t = await setUp((_req, res) => sendJson(res, 401, { status: 'Unauthorized' }));
    const signIn: Endpoint = {
      ...read,
      name: 'token',
      method: 'POST',
      auth: 'sign-in',
      retry: false,
    };
    await expect(t.transport.call(signIn, { path: '/token' })).rejects.toMatchObject({
      kind: 'http',
      httpStatus: 401,
      status: 'Unauthorized',
    });
    expect(t.server.requests).toHaveLength(1);
    expect(basicCredentials(t.server.requests[0]!)).toBe(`${MACCOUNT}:${API_KEY}`);
  });

  it('when the platform answers 5xx twice, then the call is retried with growing jittered waits and succeeds', async () => {
    const t = await setUp((_req, res, i) =>
      i < 2 ? sendJson(res, 503, { status: 'Error' }) : sendJson(res, 200, OK),
    );
    const result = await t.transport.call(read, { path: '/x' });
    expect(result.envelope.status).toBe('Ok');
    expect(t.server.requests).toHaveLength(3);
    expect(t.waits).toEqual([75, 150]);
  });

  it('when the platform keeps failing, then it gives up after maxAttempts with the last answer', async () => {
    const t = await setUp((_req, res) =>
      sendJson(res, 500, {
        Status: 'InternalServerError',
        StatusDescription: 'boom',
        errorCode: 'InternalServerError',
      }),
    );
    const error = await t.transport.call(read, { path: '/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'http',
      httpStatus: 500,
      status: 'InternalServerError',
      statusDescription: 'boom',
      errorCode: 'InternalServerError',
      attempts: 4,
      outcomeUnknown: true,
    });
    expect(t.server.requests).toHaveLength(4);
  });

  it('when the platform answers 400, then it is not retried and the errors are kept', async () => {
    const t = await setUp((_req, res) =>
      sendJson(res, 400, {
        status: 'BadRequest',
        statusDescription: 'bad',
        errors: ['date is malformed'],
      }),
    );
    await expect(t.transport.call(read, { path: '/x' })).rejects.toMatchObject({
      httpStatus: 400,
      errors: ['date is malformed'],
      attempts: 1,
    });
    expect(t.server.requests).toHaveLength(1);
  });

  it('when HTTP 200 carries a status other than Ok, then it is an error (not retried)', async () => {
    const t = await setUp((_req, res) =>
      sendJson(res, 200, { status: 'CustomerIsOnHold', statusDescription: 'on hold' }),
    );
    await expect(t.transport.call(read, { path: '/x' })).rejects.toMatchObject({
      kind: 'status',
      httpStatus: 200,
      status: 'CustomerIsOnHold',
    });
    expect(t.server.requests).toHaveLength(1);
  });

  it('when the platform does not answer in time, then each attempt times out and the call fails as a timeout', async () => {
    const t = await setUp(() => {}, {
      timeoutMs: 200,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const started = Date.now();
    await expect(t.transport.call(read, { path: '/slow' })).rejects.toMatchObject({
      kind: 'timeout',
      attempts: 2,
    });
    expect(t.server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('when nothing listens, then the failure is a network error, retried', async () => {
    const t = await setUp((_req, res) => sendJson(res, 200, OK));
    const url = t.server.url;
    await t.server.close();
    server = undefined;
    const dead = quickTransport(url);
    await expect(dead.call(read, { path: '/x' })).rejects.toMatchObject({
      kind: 'network',
      attempts: 3,
    });
  });

  it('when a write endpoint without retry fails with 503, then it is sent once', async () => {
    const t = await setUp((_req, res) => sendJson(res, 503, {}));
    await expect(t.transport.call({ ...read, retry: false }, { path: '/x' })).rejects.toMatchObject(
      {
        httpStatus: 503,
      },
    );
    expect(t.server.requests).toHaveLength(1);
  });

  it('when 429 carries Retry-After, then the wait honours it (capped)', async () => {
    const t = await setUp((_req, res, i) => {
      if (i === 0) {
        res.writeHead(429, { 'retry-after': '7' });
        res.end();
      } else sendJson(res, 200, OK);
    });
    await t.transport.call(read, { path: '/x' });
    expect(t.waits).toEqual([1000]);
  });

  it('when the answer is larger than the cap, then it is refused unread', async () => {
    const t = await setUp((_req, res) => sendJson(res, 200, { ...OK, pad: 'x'.repeat(10_000) }));
    await expect(t.transport.call(read, { path: '/x' })).rejects.toMatchObject({
      kind: 'invalid-response',
    });
  });

  it('when calls succeed, fail and retry, then neither the API key nor its Basic form appears in the log', async () => {
    const t = await setUp((_req, res, i) =>
      i === 0 ? sendJson(res, 502, {}) : sendJson(res, 200, OK),
    );
    await t.transport.call(read, { path: '/x' });
    const basic = Buffer.from(`${API_KEY}:`).toString('base64');
    expect(t.logText()).toContain('retrying');
    expect(t.logText()).not.toContain(API_KEY);
    expect(t.logText()).not.toContain(basic);
  });
});

describe('bearer endpoints: token renewal on 401', () => {
  const bearer: Endpoint = { ...read, name: 'test-bearer', auth: 'bearer' };
  const signInEndpoint: Endpoint = {
    ...read,
    name: 'token',
    method: 'POST',
    host: 'auth',
    auth: 'sign-in',
    retry: false,
    answer: 'json',
  };

  async function bearerSetUp(api: (token: string, i: number) => number) {
    let issued = 0;
    let apiCalls = 0;
    const t = await setUp((req, res) => {
      if (req.path === '/token') {
        issued += 1;
        sendJson(res, 200, { token: `token-${issued}` });
        return;
      }
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const status = api(token, apiCalls);
      apiCalls += 1;
      sendJson(res, status, status === 200 ? OK : { status: 'Unauthorized' });
    });
    const tokens = createTokenCache({
      now: Date.now,
      signIn: async () => {
        const result = await t.transport.call(signInEndpoint, { path: '/token' });
        return (result.json as { token: string }).token;
      },
    });
    const withTokens = quickTransport(t.server.url, { tokens });
    return { ...t, withTokens, issued: () => issued };
  }

  it('when a token cached by an earlier call is refused, then it is renewed once and the call succeeds', async () => {
    const t = await bearerSetUp((token, i) => (token === 'token-1' && i > 0 ? 401 : 200));
    await t.withTokens.call(bearer, { path: '/api' });
    await t.withTokens.call(bearer, { path: '/api' });
    expect(t.issued()).toBe(2);
    const api = t.server.requests.filter((r) => r.path === '/api');
    expect(api.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('when the renewed token is refused too, then the call fails after exactly one renewal', async () => {
    const t = await bearerSetUp((_token, i) => (i > 0 ? 401 : 200));
    await t.withTokens.call(bearer, { path: '/api' });
    await expect(t.withTokens.call(bearer, { path: '/api' })).rejects.toMatchObject({
      httpStatus: 401,
    });
    expect(t.issued()).toBe(2);
    expect(t.server.requests.filter((r) => r.path === '/api')).toHaveLength(3);
  });

  it('when a token signed in for this very call is refused, then the call fails with one sign-in, not two', async () => {
    const t = await bearerSetUp(() => 401);
    await expect(t.withTokens.call(bearer, { path: '/api' })).rejects.toMatchObject({
      httpStatus: 401,
    });
    expect(t.issued()).toBe(1);
    expect(t.server.requests.filter((r) => r.path === '/api')).toHaveLength(1);
  });

  it('when the token is good, then later calls reuse it without signing in', async () => {
    const t = await bearerSetUp(() => 200);
    for (let i = 0; i < 3; i += 1) await t.withTokens.call(bearer, { path: '/api' });
    expect(t.issued()).toBe(1);
  });
});
