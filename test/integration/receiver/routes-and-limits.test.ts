import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { bodyBytes, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const LIMIT = 64 * 1024;

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({
    db: bed.database.db,
    publicKey: bed.signer.publicKey,
    bodyLimitBytes: LIMIT,
  });
});

describe('routes (check 1)', () => {
  it.each([
    ['POST', '/webhooks/NPP-Receive-Payment'],
    ['POST', '/webhooks/bad%20name'],
    ['POST', `/webhooks/${'A'.repeat(65)}`],
    ['POST', '/webhooks'],
    ['POST', '/webhooks/NPPReceivePayment/extra'],
    ['POST', '/hooks/NPPReceivePayment'],
    ['GET', '/'],
  ])('when %s %s, then 404 in the envelope and nothing is stored', async (method, path) => {
    const body = bodyBytes(nppPayment());
    const req = method === 'GET' ? request(built.app).get(path) : request(built.app).post(path);
    const res = await req
      .set('Content-Type', 'application/json')
      .set('Webhookid', '1')
      .set('Verification-Signature', signBody(body, bed.signer.privateKey))
      .send(method === 'GET' ? undefined : body.toString());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      status: 'NotFound',
      statusDescription: 'No such route',
      durationMs: expect.any(Number),
    });
    await bed.expectNothingStored();
  });

  it.each(['GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'])(
    'when %s reaches a well-formed webhook route, then 405 in the envelope with Allow: POST',
    async (method) => {
      const res = await request(built.app)[method.toLowerCase() as 'get'](
        '/webhooks/NPPReceivePayment',
      );
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({
        status: 'MethodNotAllowed',
        statusDescription: 'Only POST is accepted here',
        durationMs: expect.any(Number),
      });
      await bed.expectNothingStored();
    },
  );

  it.each(['GET', 'OPTIONS'])(
    'when %s reaches a malformed webhook route, then 404 in the envelope',
    async (method) => {
      const res = await request(built.app)[method.toLowerCase() as 'get']('/webhooks/bad-name');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body.status).toBe('NotFound');
    },
  );

  it('when any answer is sent, then helmet headers are on and no framework banner is shown', async () => {
    const res = await request(built.app).get('/nowhere');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('body limit (check 3)', () => {
  it('when Content-Length declares more than the limit, then 413 and nothing is stored', async () => {
    const body = JSON.stringify(nppPayment({ Padding: 'x'.repeat(LIMIT) }));
    const res = await sendDelivery(built.app, { body, signWith: bed.signer.privateKey });
    expect(res.status).toBe(413);
    expect(res.body.status).toBe('PayloadTooLarge');
    await bed.expectNothingStored();
  });

  it('when a chunked body grows past the limit, then 413 is answered and the rest is never read', async () => {
    const server = built.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const status = await new Promise<number>((resolve, reject) => {
        let sent = 0;
        let answeredAt: number | undefined;
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/webhooks/NPPReceivePayment',
          headers: {
            'Content-Type': 'application/json',
            'Transfer-Encoding': 'chunked',
            Webhookid: '7',
          },
        });
        req.on('response', (res) => {
          answeredAt = sent;
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', (error) => (answeredAt === undefined ? reject(error) : undefined));
        // Stream well past the limit and never end the request: only a server that stops reading
        // at the limit can answer at all.
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        const pump = () => {
          if (answeredAt !== undefined || sent > LIMIT * 50) return;
          sent += chunk.length;
          req.write(chunk, () => setImmediate(pump));
        };
        pump();
      });
      expect(status).toBe(413);
      await bed.expectNothingStored();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('when the body is exactly at the limit, then it is read and processed', async () => {
    const base = JSON.stringify(nppPayment({ Padding: '' }));
    const body = base.replace('"Padding":""', `"Padding":"${'x'.repeat(LIMIT - base.length)}"`);
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const res = await sendDelivery(built.app, { body, signWith: bed.signer.privateKey });
    expect(res.status).toBe(200);
  });

  it('when a gzip body inflates past the limit, then 413 and nothing is stored', async () => {
    const inflated = JSON.stringify(nppPayment({ Padding: 'x'.repeat(LIMIT * 4) }));
    const res = await request(built.app)
      .post('/webhooks/NPPReceivePayment')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .set('Webhookid', '8')
      .set('Verification-Signature', signBody(inflated, bed.signer.privateKey))
      .serialize((data: unknown) => data as string)
      .send(gzipSync(inflated));
    expect(res.status).toBe(413);
    await bed.expectNothingStored();
  });

  it('when a gzip body is within the limit, then the signature is checked over the inflated bytes', async () => {
    const inflated = JSON.stringify(nppPayment());
    const res = await request(built.app)
      .post('/webhooks/NPPReceivePayment')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .set('Webhookid', '9')
      .set('Verification-Signature', signBody(inflated, bed.signer.privateKey))
      .serialize((data: unknown) => data as string)
      .send(gzipSync(inflated));
    expect(res.status).toBe(200);
    const [row] = await bed.database.query<{ raw_body: Buffer }>(
      'SELECT raw_body FROM webhook_deliveries',
    );
    expect(row?.raw_body.toString()).toBe(inflated);
  });

  it('when the content encoding is unknown, then 415 and nothing is stored', async () => {
    const res = await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      headers: { 'Content-Encoding': 'zstd-ish' },
    });
    expect(res.status).toBe(415);
    await bed.expectNothingStored();
  });
});

describe('health', () => {
  it('when the process is up, then /healthz answers 200', async () => {
    const res = await request(built.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Ok');
  });

  it('when the database is reachable and a key is held, then /readyz answers 200', async () => {
    const res = await request(built.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.statusDescription).toBe('Ready');
  });

  it('when no signing key is held, then /readyz answers 503 naming it', async () => {
    const { app } = buildTestApp({
      db: bed.database.db,
      keys: {
        current: () => undefined,
        ensure: () => Promise.resolve(undefined),
        refreshAfterFailure: () => Promise.resolve(undefined),
        start: async () => {},
        stop: () => {},
      },
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.statusDescription).toMatch(/no signing key/);
  });
});
