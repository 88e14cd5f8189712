import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { readFeedPage } from '../../../src/feed/feed-page.ts';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import {
  eventually,
  feedDatabase,
  newWebhookSecret,
  startConsumer,
} from '../../support/feed-consumer.ts';
import { startFeedInstance } from '../../support/feed-relay-harness.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * Direct credits in the feed: one `direct_credit.received` event per record, written by the
 * statement that stores the batch, rendered like the other payment events in pull (HTTP page
 * and the `feed` view) and push (the relay).
 */

const bed = useTestbed();
let built: TestApp;
let feed: ReturnType<typeof feedDatabase>;
const running: { stop(): Promise<void> }[] = [];

beforeAll(() => {
  feed = feedDatabase(bed.database.url);
});
afterAll(() => feed.db.destroy());
beforeEach(() => {
  // Pause is shared state: the testbed un-pauses the endpoints before each test.
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

const send = (body: string, webhookId = freshWebhookId()) =>
  sendDelivery(built.app, {
    event: 'InboundDirectCredit',
    body,
    webhookId,
    signWith: bed.signer.privateKey,
  });

/** Two records, in the reverse of business-key order; long decimals and a leading-zero BatchId. */
const BATCH = `{"TotalCount":2,"TotalAmount":"12345678901.1235","DirectCreditDetails":[{"TransactionId":"D00100900002","BatchId":"0000000212749","DateTime":"2023-01-11T14:19:16.553","Amount":"12345678901.1234","AccountNumber":419001918,"RemitterName":"WIDGETS CO","LodgementRef":"INV 1"},{"TransactionId":"D00100900001","BatchId":"0000000212749","DateTime":"2023-07-11T09:00:00","Amount":0.0001,"WithholdingTaxAmount":"0.10"}]}`;

describe('direct credits in the outbox', () => {
  it('when a batch is stored, then each record is one direct_credit.received event, in the same transaction as its row', async () => {
    const webhookId = freshWebhookId();
    await send(BATCH, webhookId).expect(200);
    expect(
      await bed.database.query(
        'SELECT type, event_name, business_key, webhook_id::text FROM feed_events ORDER BY id',
      ),
    ).toEqual([
      {
        type: 'direct_credit.received',
        event_name: 'InboundDirectCredit',
        business_key: 'D00100900001',
        webhook_id: webhookId,
      },
      {
        type: 'direct_credit.received',
        event_name: 'InboundDirectCredit',
        business_key: 'D00100900002',
        webhook_id: webhookId,
      },
    ]);
    const [same] = await bed.database.query<{ xids: string }>(
      `SELECT count(DISTINCT x)::text AS xids FROM (
         SELECT xmin::text AS x FROM webhook_deliveries UNION ALL
         SELECT xmin::text FROM direct_credits UNION ALL
         SELECT xmin::text FROM direct_credit_batches UNION ALL
         SELECT xmin::text FROM feed_events) t`,
    );
    expect(same?.xids).toBe('1');
  });

  it('when a record comes again changed, then a conflict.detected event follows its direct_credit.received', async () => {
    await send(BATCH).expect(200);
    await send(BATCH.replace('"Amount":0.0001', '"Amount":5')).expect(200);
    expect(
      (
        await bed.database.query<{ type: string; business_key: string }>(
          'SELECT type, business_key FROM feed_events ORDER BY id',
        )
      ).map((e) => [e.type, e.business_key]),
    ).toEqual([
      ['direct_credit.received', 'D00100900001'],
      ['direct_credit.received', 'D00100900002'],
      ['conflict.detected', 'D00100900001'],
    ]);
  });
});

describe('the rendered event', () => {
  it('when read from the feed, then fields are the record with exact money, leading zeros and Sydney offsets; the SQL view agrees', async () => {
    const webhookId = freshWebhookId();
    await send(BATCH, webhookId).expect(200);
    await assignPositions(feed.db);
    const page = await readFeedPage(feed.db, { after: '0', limit: 10, maxBytes: 1 << 20 });
    expect(page.events).toHaveLength(2);
    const [first, second] = page.events.map(
      (e) =>
        JSON.parse(e.body) as {
          type: string;
          data: Record<string, unknown> & { fields: Record<string, unknown> };
        },
    );
    expect(first).toMatchObject({
      type: 'direct_credit.received',
      position: '1',
      data: {
        eventName: 'InboundDirectCredit',
        businessKey: 'D00100900001',
        webhookId,
        fields: {
          transaction_id: 'D00100900001',
          batch_id: '0000000212749',
          amount: '0.0001',
          withholding_tax_amount: '0.1',
          // July: standard time in Sydney.
          date_time_local: '2023-07-11T09:00:00+10:00',
          webhook_id: webhookId,
        },
      },
    });
    expect(second?.data.fields).toMatchObject({
      transaction_id: 'D00100900002',
      amount: '12345678901.1234',
      account_number: '419001918',
      // January: daylight saving time.
      date_time_local: '2023-01-11T14:19:16.553+11:00',
      date_time_text: '2023-01-11T14:19:16.553',
      lodgement_ref: 'INV 1',
    });
    // The payload is the whole batch as sent: its keys in its order, numbers exactly as written.
    expect(page.events[0]?.body).toContain(`"payload":${BATCH}`);
    expect(page.events[1]?.body).toContain(`"payload":${BATCH}`);
    expect(page.events[1]?.body).toMatch(/"Amount":0\.0001/);

    const rows = await bed.database.query<{ type: string; fields: Record<string, unknown> }>(
      'SELECT type, business_key, fields FROM feed WHERE position > 0 ORDER BY position',
    );
    expect(rows).toEqual([
      {
        type: 'direct_credit.received',
        business_key: 'D00100900001',
        fields: expect.objectContaining({ batch_id: '0000000212749', amount: 0.0001 }),
      },
      {
        type: 'direct_credit.received',
        business_key: 'D00100900002',
        fields: expect.objectContaining({ transaction_id: 'D00100900002' }),
      },
    ]);
  });

  it('when pushed by the relay, then the consumer gets each record as a signed direct_credit.received event', async () => {
    const secret = newWebhookSecret();
    const consumer = await startConsumer({ secret: secret.text });
    running.push({ stop: consumer.close });
    running.unshift(
      startFeedInstance({ databaseUrl: bed.database.url, url: consumer.url, secret: secret.key }),
    );
    await send(BATCH).expect(200);

    await eventually(() => consumer.accepted().length >= 2);
    expect(consumer.unverified()).toBe(0);
    expect(
      consumer
        .accepted()
        .map((e) => [e.type, e.key, (e.body.data as { fields: { amount: string } }).fields.amount])
        .sort(),
    ).toEqual([
      ['direct_credit.received', 'InboundDirectCredit/D00100900001', '0.0001'],
      ['direct_credit.received', 'InboundDirectCredit/D00100900002', '12345678901.1234'],
    ]);
  });
});
