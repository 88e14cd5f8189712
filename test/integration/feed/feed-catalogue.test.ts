import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { feedCatalogue } from '../../../src/feed/catalogue/catalogue.ts';
import { feedRouter } from '../../../src/feed/feed-route.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { markHandled } from '../../../src/operations/quarantine/quarantine-operations.ts';
import { FEED_EVENT_TYPES, samplePayload, sampleRecord } from '../../../src/receiver/contract.ts';
import { catalogueValidators, type EventValidator } from '../../support/catalogue-validation.ts';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { feedDatabase } from '../../support/feed-consumer.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * The event catalogue against what the feed renders: real deliveries of every event type through
 * the receiver into Postgres, read back through `GET /feed` (renderEvents), each validated
 * against its type's schema, closed (test/support/catalogue-validation.ts) so that a field the
 * feed renders and the catalogue does not describe fails too. Then `GET /feed/schema`.
 */

const bed = useTestbed();
const TOKEN = 'feed-token-for-catalogue-tests-0123';
const catalogue = feedCatalogue();
const strict = catalogueValidators(catalogue, { closed: true });
const published = catalogueValidators(catalogue, { closed: false });
let built: TestApp;
let feed: ReturnType<typeof feedDatabase>;
let app: express.Express;

beforeAll(() => {
  feed = feedDatabase(bed.database.url);
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
  const logger = createLogger('silent');
  const notifier = { wait: () => Promise.resolve() };
  app = express().use(
    feedRouter({ db: feed.db, token: TOKEN, pageMaxBytes: 1 << 22, notifier, logger }),
  );
});
afterAll(() => feed.db.destroy());

const send = (event: string, body: unknown, webhookId: string | null = freshWebhookId()) =>
  sendDelivery(built.app, {
    event,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    webhookId,
    signWith: bed.signer.privateKey,
  });

const auth = (req: request.Test) => req.set('Authorization', `Bearer ${TOKEN}`);

interface RenderedEvent {
  type: string;
  data: Record<string, unknown> & { fields: Record<string, unknown> | null };
}

/** Every event the feed hands on, through GET /feed, as its consumer parses it. */
async function pulledEvents(): Promise<RenderedEvent[]> {
  await assignPositions(feed.db);
  const res = await auth(request(app).get('/feed?after=0&limit=500')).expect(200);
  return res.body.events as RenderedEvent[];
}

function validatorOf(validators: ReadonlyMap<string, EventValidator>, type: string) {
  const validate = validators.get(type);
  if (validate === undefined) throw new Error(`the catalogue has no schema for ${type}`);
  return validate;
}

/** Deliveries of every event type, each field filled and each left out, and the bodies' edges. */
async function storeOneOfEverything(): Promise<void> {
  // Every field set (the contract's examples), then only what the contract requires.
  for (const event of ['NPPReceivePayment', 'PayToReceivePayment']) {
    await send(event, samplePayload(event)).expect(200);
    await send(event, { TransactionId: `MIN-${event}`, Amount: '0.0001' }).expect(200);
  }
  for (const event of ['InboundDirectCreditRejections', 'NPPCreditRejections']) {
    await send(event, samplePayload(event)).expect(200);
    await send(event, [rejectionRecord({ amount: 10 })]).expect(200);
  }
  await send(
    'InboundDirectCredit',
    samplePayload('InboundDirectCredit', [
      sampleRecord('InboundDirectCredit'),
      { TransactionId: 'D-MIN-1', Amount: 0.5, DateTime: '2023-07-11T09:00:00.553' },
    ]),
  ).expect(200);
  // A conflict: the same TransactionId with other content.
  const payment = nppPayment();
  await send('NPPReceivePayment', payment).expect(200);
  await send('NPPReceivePayment', { ...payment, Amount: 999 }).expect(200);
  // Unmodelled: JSON as sent, bytes a strict parser refuses (payloadBase64), and a pruned body.
  await send('NppReturn', { Anything: 1.1 }).expect(200);
  await send('NppReturn', '{"Note":"a\\u0000b"}').expect(200);
  const pruned = freshWebhookId();
  await send('NppReturn', { Pruned: true }, pruned).expect(200);
  await bed.database.query(
    'UPDATE webhook_deliveries SET raw_body = NULL, pruned_at = now() WHERE webhook_id = $1',
    [pruned],
  );
  // Quarantined: opened, handled (marked; redriven with its refused bytes pruned).
  await send('NPPReceivePayment', { Amount: 'not money' }).expect(400);
  await send('NPPReceivePayment', { TransactionId: 'Q2', Amount: [] }).expect(400);
  await send('PayToReceivePayment', { Amount: {} }).expect(400);
  // A Webhookid that cannot be read: its quarantine events have no webhookId.
  await send('NPPReceivePayment', nppPayment(), 'not-a-webhook-id').expect(400);
  const [, second, third] = await bed.database.query<{ id: string }>(
    'SELECT id::text FROM quarantined_deliveries ORDER BY id',
  );
  expect(await markHandled(bed.database.db, second!.id, 'marked', 'a test', () => new Date())).toBe(
    true,
  );
  expect(await markHandled(bed.database.db, third!.id, 'redriven', '', () => new Date())).toBe(
    true,
  );
  await bed.database.query('UPDATE quarantined_deliveries SET pruned_at = now() WHERE id = $1', [
    third!.id,
  ]);
}

describe('every event the feed renders, against its schema', () => {
  let events: RenderedEvent[] = [];
  beforeAll(async () => {
    await storeOneOfEverything();
    events = await pulledEvents();
  });

  it('when one delivery of each kind is stored, then the feed renders every event type the catalogue lists', () => {
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(FEED_EVENT_TYPES));
    expect(Object.keys(catalogue.types).sort()).toEqual([...FEED_EVENT_TYPES].sort());
    // The edges were reached: null fields, a body as bytes, a pruned body, a handled quarantine.
    const data = events.map((e) => e.data);
    expect(data.some((d) => d.fields?.date_time_local === null)).toBe(true);
    expect(data.some((d) => typeof d.payloadBase64 === 'string')).toBe(true);
    expect(data.some((d) => d.payload === null && d.fields === null)).toBe(true);
    expect(data.some((d) => d.payload === null && d.fields?.handling === 'redriven')).toBe(true);
    expect(data.some((d) => d.webhookId === null && d.fields?.webhook_id_header)).toBe(true);
  });

  it('when each rendered event is validated against its type, closed to unknown fields, then none has an error', () => {
    const failures = events.flatMap((event) =>
      validatorOf(
        strict,
        event.type,
      )(event).map((error) => `${event.type} ${error.instancePath} ${error.message}`),
    );
    expect(failures).toEqual([]);
    expect(events.length).toBeGreaterThan(15);
  });

  it('when a rendered event is mutated (an amount as a number, a missing field, a date-time without its offset, a wrong type), then validation fails where it was mutated', () => {
    const payment = events.find((e) => e.type === 'payment.received' && e.data.fields?.amount);
    expect(payment).toBeDefined();
    const mutated = (change: (event: RenderedEvent) => void) => {
      const copy = structuredClone(payment!);
      change(copy);
      return validatorOf(
        published,
        'payment.received',
      )(copy).map((error) => `${error.instancePath} ${error.message}`);
    };
    expect(mutated(() => {})).toEqual([]);
    expect(
      mutated((e) => {
        e.data.fields!.amount = Number(e.data.fields!.amount);
      }),
    ).toContain('/data/fields/amount must be string');
    expect(
      mutated((e) => {
        delete e.data.fields!.transaction_id;
      }),
    ).toContain("/data/fields must have required property 'transaction_id'");
    expect(
      mutated((e) => {
        delete (e as Partial<RenderedEvent>).data;
      }),
    ).toContain(" must have required property 'data'");
    expect(
      mutated((e) => {
        e.data.fields!.date_time_local = '2024-06-14T16:45:09';
      }),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^\/data\/fields\/date_time_local /)]));
    expect(
      mutated((e) => {
        e.type = 'payto_payment.received';
      }),
    ).toContain('/type must be equal to constant');
    // Both bodies at once is neither form.
    expect(
      mutated((e) => {
        e.data.payloadBase64 = 'AA==';
      }),
    ).toContain('/data must match exactly one schema in oneOf');
    // A field the catalogue does not describe: allowed by the published (open) schema, refused
    // by the closed one the test above uses.
    const extra = structuredClone(payment!);
    extra.data.fields!.undescribed = 'x';
    expect(validatorOf(published, 'payment.received')(extra)).toEqual([]);
    expect(validatorOf(strict, 'payment.received')(extra).map((e) => e.message)).toEqual([
      'must NOT have additional properties',
    ]);
  });
});

describe('GET /feed/schema', () => {
  it('when asked without the feed token, then 401, for the catalogue and for a type', async () => {
    await request(app).get('/feed/schema').expect(401);
    await request(app).get('/feed/schema/payment.received').expect(401);
    await request(app).get('/feed/schema/nope').set('Authorization', 'Bearer wrong').expect(401);
  });

  it('when asked with the token, then the whole catalogue, then each type, with a strong ETag a revalidation answers 304 to', async () => {
    const all = await auth(request(app).get('/feed/schema')).expect(200);
    expect(all.headers['content-type']).toMatch(/^application\/json/);
    expect(all.headers['cache-control']).toBe('private, no-cache');
    expect(all.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(all.body).toEqual({ version: 'v1', types: JSON.parse(JSON.stringify(catalogue.types)) });

    const again = await auth(request(app).get('/feed/schema'))
      .set('If-None-Match', all.headers.etag as string)
      .expect(304);
    expect(again.text).toBe('');

    for (const type of FEED_EVENT_TYPES) {
      const one = await auth(request(app).get(`/feed/schema/${type}`)).expect(200);
      expect(one.headers['content-type']).toMatch(/^application\/schema\+json/);
      expect(JSON.parse(one.text)).toEqual(all.body.types[type]);
      expect(one.headers.etag).not.toBe(all.headers.etag);
      await auth(request(app).get(`/feed/schema/${type}`))
        .set('If-None-Match', `"other", ${one.headers.etag as string}`)
        .expect(304);
    }
  });

  it('when asked for a type the feed does not have, then 404 naming the types it has', async () => {
    const res = await auth(request(app).get('/feed/schema/payment.refunded')).expect(404);
    expect(res.body.error).toContain('payment.received');
    await auth(request(app).get('/feed/schema/payment.received/extra')).expect(404);
  });

  it('when a catalogue version is named, then the one served answers and another is a 404 naming the one served', async () => {
    const v1 = await auth(request(app).get('/feed/schema?version=v1')).expect(200);
    expect(v1.body.version).toBe('v1');
    await auth(request(app).get('/feed/schema/payment.received?version=v1')).expect(200);
    const v2 = await auth(request(app).get('/feed/schema?version=v2')).expect(404);
    expect(v2.body.error).toBe('no catalogue version v2; this feed serves v1');
    await auth(request(app).get('/feed/schema/payment.received?version=v0')).expect(404);
  });
});
