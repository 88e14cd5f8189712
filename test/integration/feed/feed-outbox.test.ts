import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { readFeedPage } from '../../../src/feed/feed-page.ts';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { feedDatabase } from '../../support/feed-consumer.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
let built: TestApp;
let feed: ReturnType<typeof feedDatabase>;

beforeAll(() => {
  feed = feedDatabase(bed.database.url);
});
afterAll(() => feed.db.destroy());
beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});

const events = () =>
  bed.database.query<{
    type: string;
    event_name: string;
    business_key: string;
    webhook_id: string;
  }>('SELECT type, event_name, business_key, webhook_id::text FROM feed_events ORDER BY id');
const send = (body: unknown, options: { event?: string; webhookId?: string } = {}) =>
  sendDelivery(built.app, {
    body: JSON.stringify(body),
    signWith: bed.signer.privateKey,
    ...options,
  });

describe('the outbox, written by the store statement', () => {
  it('when a payment is stored, then one payment.received event exists, written in the same transaction as the delivery', async () => {
    const payment = nppPayment();
    const webhookId = freshWebhookId();
    await send(payment, { webhookId }).expect(200);

    expect(await events()).toEqual([
      {
        type: 'payment.received',
        event_name: 'NPPReceivePayment',
        business_key: payment.TransactionId,
        webhook_id: webhookId,
      },
    ]);
    // Same transaction id (xmin) on the delivery, its typed row and its event: one commit.
    const [same] = await bed.database.query<{ xids: string }>(
      `SELECT count(DISTINCT x)::text AS xids FROM (
         SELECT xmin::text AS x FROM webhook_deliveries UNION ALL
         SELECT xmin::text FROM npp_payments UNION ALL SELECT xmin::text FROM feed_events) t`,
    );
    expect(same?.xids).toBe('1');
  });

  it('when the same delivery, or its body under a new Webhookid, comes again, then no event is added', async () => {
    const body = nppPayment();
    const webhookId = freshWebhookId();
    await send(body, { webhookId }).expect(200);
    await send(body, { webhookId }).expect(200);
    await send(body).expect(200);
    expect(await events()).toHaveLength(1);
  });

  it('when a TransactionId comes again with other content, then a conflict.detected event follows the payment under the same key', async () => {
    const first = nppPayment();
    await send(first).expect(200);
    await send({ ...first, Amount: 999 }).expect(200);

    const rows = await events();
    expect(rows.map((e) => [e.type, e.business_key])).toEqual([
      ['payment.received', first.TransactionId],
      ['conflict.detected', first.TransactionId],
    ]);
  });

  it('when a TransactionId comes again with the same content, then no event is added', async () => {
    const first = nppPayment();
    await send(first).expect(200);
    await send({ ...first, Unknown: 'extra field, same typed row' }).expect(200);
    expect(await events()).toHaveLength(1);
  });

  it('when rejections, a PayTo payment and an unmodelled event are stored, then each business record is one event', async () => {
    // Within one delivery, events follow business-key order.
    const records = [rejectionRecord({ id: 'RJ-B' }), rejectionRecord({ id: 'RJ-A' })];
    await send(records, { event: 'NPPCreditRejections' }).expect(200);
    const payTo = nppPayment({ MmsId: 'MMS1' });
    await send(payTo, { event: 'PayToReceivePayment' }).expect(200);
    const unmodelledId = freshWebhookId();
    await send({ Anything: 1 }, { event: 'NppReturn', webhookId: unmodelledId }).expect(200);

    expect((await events()).map((e) => [e.type, e.event_name, e.business_key])).toEqual([
      ['credit_rejection.received', 'NPPCreditRejections', 'RJ-A'],
      ['credit_rejection.received', 'NPPCreditRejections', 'RJ-B'],
      ['payto_payment.received', 'PayToReceivePayment', payTo.TransactionId],
      ['event.unmodelled', 'NppReturn', unmodelledId],
    ]);
  });

  it('when a delivery is refused, then a forged one leaves no event, and an authenticated one the schema refuses leaves only its quarantine event, no payment', async () => {
    await sendDelivery(built.app, { body: JSON.stringify(nppPayment()), signature: 'AAAA' }).expect(
      401,
    );
    expect(await events()).toEqual([]);
    await send({ Amount: 'not money' }).expect(400);
    // Money may be waiting for a person: the ledger is told (issue: quarantine visible).
    expect((await events()).map((e) => e.type)).toEqual(['quarantine.opened']);
  });
});

describe('the normalised event body', () => {
  it('when a payment is read from the feed, then amounts are exact decimal strings, date-times carry the Sydney offset, and the payload is exact', async () => {
    const webhookId = freshWebhookId();
    // Exact in the payload: numbers as the sender wrote them, not as a double would round them.
    const raw = `{"TransactionId":"TXEXACT1","DateTime":"2023-01-11T14:19:16","Amount":12345678901.1234,"RefundDetails":{"RefundAmount":"0.10"}}`;
    await sendDelivery(built.app, { body: raw, webhookId, signWith: bed.signer.privateKey }).expect(
      200,
    );
    await assignPositions(feed.db);
    const page = await readFeedPage(feed.db, { after: '0', limit: 10, maxBytes: 1 << 20 });
    expect(page.events).toHaveLength(1);
    const text = page.events[0]?.body ?? '';
    // The body as the platform sent it: its keys in its order, every number exactly as sent.
    expect(text).toContain(`"payload":${raw}`);
    const body = JSON.parse(text) as { data: { fields: Record<string, unknown> } } & Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({
      id: expect.stringMatching(/^evt_\d+$/),
      type: 'payment.received',
      position: '1',
      data: { eventName: 'NPPReceivePayment', businessKey: 'TXEXACT1', webhookId },
    });
    expect(body.data.fields).toMatchObject({
      transaction_id: 'TXEXACT1',
      amount: '12345678901.1234',
      refund_amount: '0.1',
      // January: daylight saving time in Sydney.
      date_time_local: '2023-01-11T14:19:16+11:00',
      webhook_id: webhookId,
    });
    expect(page.next).toBe('1');

    // The same event for SQL consumers, through the `feed` view.
    const [row] = await bed.database.query<{ type: string; fields: { amount: number } }>(
      'SELECT type, fields, payload FROM feed WHERE position > 0 ORDER BY position',
    );
    expect(row).toMatchObject({
      type: 'payment.received',
      fields: { transaction_id: 'TXEXACT1' },
      payload: { TransactionId: 'TXEXACT1', RefundDetails: { RefundAmount: '0.10' } },
    });
  });

  it('when a body holds what a strict JSON parser refuses (a NUL, a lone surrogate), then its event carries the exact bytes as payloadBase64, in the view a null payload', async () => {
    const raw = '{"Note":"a\\u0000b","Lone":"\\ud800"}';
    await sendDelivery(built.app, {
      event: 'NppReturn',
      body: raw,
      signWith: bed.signer.privateKey,
    }).expect(200);
    await assignPositions(feed.db);
    const page = await readFeedPage(feed.db, { after: '0', limit: 10, maxBytes: 1 << 20 });
    const body = JSON.parse(page.events[0]?.body ?? '{}') as {
      data: { payload?: unknown; payloadBase64?: string };
    };
    expect(body.data.payload).toBeUndefined();
    expect(Buffer.from(body.data.payloadBase64 ?? '', 'base64').toString()).toBe(raw);
    const [row] = await bed.database.query('SELECT type, payload FROM feed WHERE position > 0');
    expect(row).toEqual({ type: 'event.unmodelled', payload: null });
  });

  it('when a delivery was stored by a release that kept a jsonb copy, then its event still carries that payload', async () => {
    const webhookId = freshWebhookId();
    await send({ Note: 'old', Amount: 1.5 }, { event: 'NppReturn', webhookId }).expect(200);
    // As releases before 2026-11-24T09 wrote it: the jsonb copy beside the bytes.
    await bed.database.query(
      `UPDATE webhook_deliveries SET payload = '{"Note": "old", "Amount": 1.50, "Old": true}'
       WHERE webhook_id = $1`,
      [webhookId],
    );
    await assignPositions(feed.db);
    const page = await readFeedPage(feed.db, { after: '0', limit: 10, maxBytes: 1 << 20 });
    expect(page.events[0]?.body).toContain(
      '"payload":{"Old": true, "Note": "old", "Amount": 1.50}',
    );
    const [row] = await bed.database.query('SELECT payload FROM feed WHERE position > 0');
    expect(row).toEqual({ payload: { Old: true, Note: 'old', Amount: 1.5 } });
  });
});
