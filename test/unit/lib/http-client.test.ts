import { afterEach, describe, expect, it } from 'vitest';
import { describeError } from '../../../src/lib/describe-error.ts';
import { HttpCallError, httpCall, type HttpRequest } from '../../../src/lib/http-client.ts';
import {
  startScriptedServer,
  type Script,
  type ScriptedServer,
} from '../../support/scripted-server.ts';

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

async function call(script: Script, request: Partial<HttpRequest> = {}) {
  server = await startScriptedServer(script);
  return httpCall({ url: `${server.url}/x`, timeoutMs: 2000, maxResponseBytes: 1024, ...request });
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(HttpCallError);
      return error as HttpCallError;
    },
  );

describe('one outbound HTTP call (real HTTP to 127.0.0.1)', () => {
  it('when the peer answers, then status, headers and body come back, whatever the status', async () => {
    const answer = await call((_req, res) => void res.writeHead(503, { 'x-a': '1' }).end('busy'));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('x-a')).toBe('1');
    expect(answer.body.toString('utf8')).toBe('busy');
  });

  it('when a status is not accepted, then it fails as `status` with the body', async () => {
    const error = await failure(
      call((_req, res) => void res.writeHead(404).end('no such key'), { accept: (s) => s === 200 }),
    );
    expect(error).toMatchObject({ kind: 'status', status: 404, body: 'no such key' });
  });

  it('when the peer redirects, then the 3xx is the answer and nothing is followed', async () => {
    const answer = await call((_req, res) => void res.writeHead(302, { location: '/y' }).end());
    expect(answer.status).toBe(302);
    expect(server?.requests.map((r) => r.path)).toEqual(['/x']);
  });

  it('when the peer sends headers and then stalls the body, then the deadline still applies', async () => {
    const started = performance.now();
    const error = await failure(
      call(
        (_req, res) => {
          res.writeHead(200);
          res.write('partial');
        },
        { timeoutMs: 200 },
      ),
    );
    expect(error).toMatchObject({ kind: 'timeout', message: 'no answer within 200 ms' });
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('when the body streams past the budget, then it is cut off as `too-large`', async () => {
    const error = await failure(
      call((_req, res) => {
        res.writeHead(200);
        for (let i = 0; i < 4; i += 1) res.write('x'.repeat(512));
        res.end();
      }),
    );
    expect(error).toMatchObject({ kind: 'too-large', status: 200, declaredBytes: undefined });
    expect(error.message).toBe('answer sent more than 1024 bytes');
  });

  it('when the answer declares more than the budget, then it is refused before the body is read', async () => {
    const error = await failure(
      call((_req, res) => {
        res.writeHead(200, { 'content-length': '1000000' });
        res.write('x');
      }),
    );
    expect(error).toMatchObject({ kind: 'too-large', declaredBytes: 1_000_000 });
  });

  it('when only a prefix is wanted, then a body over the budget, declared or streamed, comes back cut to it, with or without an accepted status', async () => {
    const streamed = await call(
      (_req, res) => {
        res.writeHead(200);
        for (let i = 0; i < 4; i += 1) res.write('x'.repeat(512));
        res.end();
      },
      { keepPrefix: true, maxResponseBytes: 600 },
    );
    expect(streamed.body.toString('utf8')).toBe('x'.repeat(600));
    const refused = await failure(
      call(
        (_req, res) => void res.writeHead(503, { 'content-length': '2000' }).end('y'.repeat(2000)),
        {
          keepPrefix: true,
          maxResponseBytes: 10,
          accept: (s) => s === 200,
        },
      ),
    );
    expect(refused).toMatchObject({ kind: 'status', status: 503, body: 'y'.repeat(10) });
  });

  it('when the body is not wanted, then it is discarded unread, however large', async () => {
    const answer = await call((_req, res) => void res.writeHead(204).end(), { discardBody: true });
    expect(answer).toMatchObject({ status: 204, body: Buffer.alloc(0) });
  });

  it('when nothing listens, then it fails as `refused` and describeError names the reason', async () => {
    const closed = await startScriptedServer(() => {});
    await closed.close();
    const error = await failure(
      httpCall({ url: closed.url, timeoutMs: 2000, maxResponseBytes: 10 }),
    );
    expect(error).toMatchObject({ kind: 'refused', code: 'ECONNREFUSED' });
    expect(describeError(error)).toMatch(/^fetch failed: .*ECONNREFUSED/);
  });

  it('when the peer drops the connection after the request, then it fails as `reset`', async () => {
    const error = await failure(call((_req, res) => void res.socket?.destroy()));
    expect(error.kind).toBe('reset');
  });

  it('when the caller aborts, then it fails at once as `aborted`', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const error = await failure(call(() => {}, { signal: stop.signal, timeoutMs: 10_000 }));
    expect(error.kind).toBe('aborted');
  });

  it('when fetch is replaced, then it is the one called, and its failure is a `network` one', async () => {
    const error = await failure(
      httpCall({
        url: 'http://127.0.0.1:9/',
        timeoutMs: 2000,
        maxResponseBytes: 10,
        fetch: () => Promise.reject(new TypeError('no platform in this test')),
      }),
    );
    expect(error).toMatchObject({ kind: 'network', message: 'no platform in this test' });
  });
});
