import { beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * Every spelling of `POST /webhooks/<name>` (plain, trailing slash, a query) goes through the
 * one route, after helmet and the request context, and all answer alike: once the plain spelling
 * had a second entrance of its own ahead of them, and these checks held it to the same answers.
 */

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({
    db: bed.database.db,
    publicKey: bed.signer.publicKey,
    secrets: ['the-secret'],
  });
});

/** Every header but those that differ per answer by design. */
function fixedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const varying = new Set(['date', 'x-request-id', 'content-length']);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)));
}

describe('the delivery route, in every spelling', () => {
  it('when a delivery is stored, then its answer carries the same security headers as any other answer', async () => {
    const other = await request(built.app).get('/nowhere');
    const stored = await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      secret: 'the-secret',
    });
    expect(stored.status).toBe(200);
    expect(fixedHeaders(stored.headers)).toEqual(fixedHeaders(other.headers));
    expect(stored.headers['content-security-policy']).toBe(
      "default-src 'none';frame-ancestors 'none'",
    );
    expect(stored.headers['x-powered-by']).toBeUndefined();
    expect(stored.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      await bed.database.db.selectFrom('webhook_deliveries').select('webhook_id').execute(),
    ).toHaveLength(1);
  });

  it.each([
    ['the plain path', 'NPPReceivePayment'],
    ['a trailing slash (the router)', 'NPPReceivePayment/'],
    ['a query string (the router)', 'NPPReceivePayment?x=1'],
  ])(
    'when the secret is wrong on %s, then 401 with the same headers and nothing is stored',
    async (_label, event) => {
      const res = await sendDelivery(built.app, {
        event,
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        secret: 'not-the-secret',
      });
      const other = await request(built.app).get('/nowhere');
      expect(res.status).toBe(401);
      expect(res.body.status).toBe('Unauthorised');
      expect(fixedHeaders(res.headers)).toEqual({
        ...fixedHeaders(other.headers),
        connection: 'close',
      });
      await bed.expectNothingStored();
    },
  );

  it('when the plain path and the router spelling carry valid deliveries, then both are stored alike', async () => {
    for (const event of ['NPPReceivePayment', 'nppreceivepayment/']) {
      const res = await sendDelivery(built.app, {
        event,
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        secret: 'the-secret',
      });
      expect(res.status).toBe(200);
    }
    const rows = await bed.database.db
      .selectFrom('webhook_deliveries')
      .select('event_name')
      .execute();
    expect(rows.map((row) => row.event_name)).toEqual(['NPPReceivePayment', 'NPPReceivePayment']);
    const lines = built.logs.filter((line) => line.msg === 'delivery');
    expect(lines.map((line) => [line.event, line.outcome, typeof line.requestId])).toEqual([
      ['NPPReceivePayment', 'stored', 'string'],
      ['NPPReceivePayment', 'stored', 'string'],
    ]);
  });
});
