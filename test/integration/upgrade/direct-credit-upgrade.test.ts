import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TypedRow } from '../../../src/receiver/events/data-contract.ts';
import { eventModel } from '../../support/event-models.ts';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { readFeedPage } from '../../../src/feed/feed-page.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createMigrator, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { feedDatabase } from '../../support/feed-consumer.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * An upgraded deployment: a database at the migration before direct credits were modelled,
 * holding InboundDirectCredit deliveries the previous version stored as unmodelled (its exact
 * INSERT columns, and the feed events its statement wrote), then `migrateToLatest`. Every batch
 * the receiver now accepts becomes typed rows exactly as the receiver writes them; odd values
 * become null with warnings; nothing is lost and the migration never fails.
 */

const PREVIOUS = '2026-11-22T04-00-00_recovery-and-refunds';
let database: TestDatabase;
let digestsBefore: Record<string, unknown>[];

beforeAll(async () => {
  database = await createTestDatabase(async (db) => {
    const { error } = await createMigrator(db).migrateTo(PREVIOUS);
    if (error) throw error;
  });
  await writeDeliveriesTheOldWay();
  digestsBefore = await digests();
  await migrateToLatest(database.db, createLogger('silent'));
});
afterAll(() => database.drop());

const PUBLISHED_RECORD = {
  TransactionId: 'D00100537784',
  BatchId: '0000000212749',
  DateTime: '2020-01-13T14:21:50.553',
  Bsb: '802-985',
  AccountNumber: 419001918,
  AccountName: 'ACME RECEIVABLES',
  TransactionCode: '50',
  Amount: 1000.1,
  LodgementRef: 'INV 9001',
  RemitterName: 'WIDGETS CO',
  NameOfUserSupplyingFile: 'WIDGETS BANK',
  NumberOfUserSupplyingFile: '123079',
  DescriptionOfEntriesOnFile: 'PAYMENTS',
  Indicator: 'W',
  WithholdingTaxAmount: 12.5,
  SourceBsb: '123-123',
  SourceAccountNumber: '0099887766',
  ReceiptNumber: '5678200',
};

/** Raw text, so that numbers are stored exactly as the platform wrote them. */
const BODIES: Record<number, { event: string; body: string | null; raw?: string }> = {
  // The published shape; a dd/MM/yyyy date-time, an odd withholding tax amount.
  101: {
    event: 'InboundDirectCredit',
    body: `{"TotalCount":2,"TotalAmount":1040.60,"DirectCreditDetails":[${JSON.stringify(PUBLISHED_RECORD).replace('1000.1', '1000.10')},{"TransactionId":"D00100537785","BatchId":"0000000212749","DateTime":"13/01/2020 2:21:50 PM","AccountNumber":"0419001918","Amount":"40.5000","WithholdingTaxAmount":"n/a","ReceiptNumber":5678201,"LodgementRef":""}]}`,
  },
  // Posted under the URL's spelling; a zoned date-time with 7 fraction digits; TotalCount wrong.
  102: {
    event: 'inbounddirectcredit',
    body: `{"TotalCount":3,"TotalAmount":"7.00","DirectCreditDetails":[{"TransactionId":"D00100537786","DateTime":"2020-01-13T03:21:50.1234567Z","Amount":7}]}`,
  },
  // A record without its TransactionId: the receiver would refuse the batch; it stays raw.
  103: {
    event: 'InboundDirectCredit',
    body: `{"TotalCount":2,"TotalAmount":3,"DirectCreditDetails":[{"TransactionId":"D00100537790","Amount":1},{"Amount":2}]}`,
  },
  // Not the batch shape: stays raw.
  104: { event: 'InboundDirectCredit', body: `[{"TransactionId":"D00100537791","Amount":1}]` },
  // A known TransactionId with another Amount (a conflict), and a record of odd values.
  105: {
    event: 'InboundDirectCredit',
    body: `{"TotalCount":"2","TotalAmount":1e300,"DirectCreditDetails":[{"TransactionId":"D00100537784","Amount":999},{"TransactionId":"D00100537787","Amount":"0.0001","DateTime":"2020-02-30T10:00:00","BatchId":12.5,"AccountNumber":{},"Indicator":true,"ReceiptNumber":"  "}]}`,
  },
  // jsonb could not hold the body: only the raw bytes exist; it stays raw.
  106: {
    event: 'InboundDirectCredit',
    body: null,
    raw: `{"DirectCreditDetails":[{"TransactionId":"D00100537792","Amount":1,"RemitterName":"A\\u0000B"}]}`,
  },
};
// The same bytes as 102 under a third spelling: renaming both would make one body twice.
BODIES[107] = { event: 'INBOUNDDIRECTCREDIT', body: BODIES[102]?.body ?? null };

const NPP = `{"TransactionId":"N-OLD-9","Amount":"25.0000","DateTime":"2020-01-13T09:00:00","RemitterName":"PAT"}`;

async function writeDeliveriesTheOldWay(): Promise<void> {
  // The previous version's store statement: the delivery, then its feed event.
  const delivery = async (
    id: number,
    event: string,
    modelled: boolean,
    raw: string,
    payload: string | null,
  ) => {
    await database.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
         raw_body, payload, content_type, headers, request_id, remote_address,
         signing_key_fingerprint, warnings)
       VALUES ($1, $2, $3, $7, $4, $5, $6::jsonb, 'application/json', '{}', 'r', '127.0.0.1',
         'fp', '[]')`,
      [
        id,
        event,
        modelled,
        sha256(raw),
        Buffer.from(raw),
        payload,
        new Date(Date.UTC(2026, 10, 20, 1, 0, id)),
      ],
    );
  };
  await delivery(100, 'NPPReceivePayment', true, NPP, NPP);
  await database.query(
    `INSERT INTO npp_payments (transaction_id, webhook_id, amount, date_time_local, date_time_text,
       remitter_name, received_at)
     VALUES ('N-OLD-9', 100, 25, '2020-01-13 09:00:00', '2020-01-13T09:00:00', 'PAT', now())`,
  );
  await feedEvent('payment.received', 'NPPReceivePayment', 'N-OLD-9', 100);
  for (const [id, { event, body, raw }] of Object.entries(BODIES)) {
    await delivery(Number(id), event, false, raw ?? body ?? '', body);
    await feedEvent('event.unmodelled', event, id, Number(id));
  }
}

let position = 0;
async function feedEvent(type: string, event: string, key: string, webhookId: number) {
  position += 1;
  await database.query(
    `INSERT INTO feed_events (type, event_name, business_key, webhook_id, conflict_id, position)
     VALUES ($1, $2, $3, $4, NULL, $5)`,
    [type, event, key, webhookId, position],
  );
}

const digests = () =>
  database.query(
    `SELECT webhook_id::text, encode(sha256(raw_body), 'hex') AS raw, payload::text AS payload
     FROM webhook_deliveries ORDER BY webhook_id`,
  );

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What the receiver itself writes for a body: its model's rows, under column names. */
function receiverRows(body: string) {
  const parsed = eventModel('InboundDirectCredit').parse(JSON.parse(body));
  if (!parsed.ok || parsed.typed.kind !== 'direct-credits') throw new Error('refused');
  const rows = parsed.typed.rows.map((row: TypedRow<'direct_credits'>) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
        key === 'dateTimeLocal' && value !== null ? trimFraction(value) : value,
      ]),
    ),
  );
  return { rows, batch: parsed.typed.batch, warningPaths: parsed.warnings.map((w) => w.path) };
}

/** Postgres prints a timestamp's fraction without trailing zeros. */
const trimFraction = (local: string) => local.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

describe('upgrading a database with unmodelled InboundDirectCredit deliveries', () => {
  it('when migrated, then each accepted batch becomes exactly the rows the receiver writes (first record of a key wins)', async () => {
    const stored = await database.query<Record<string, unknown>>(
      'SELECT * FROM direct_credits ORDER BY transaction_id',
    );
    expect(stored.map((row) => [row.transaction_id, row.webhook_id])).toEqual([
      ['D00100537784', '101'],
      ['D00100537785', '101'],
      ['D00100537786', '102'],
      ['D00100537787', '105'],
    ]);
    const expected = new Map<string, Record<string, unknown>>();
    for (const id of [101, 102, 105]) {
      for (const row of receiverRows(BODIES[id]?.body ?? '').rows) {
        const key = String(row.transaction_id);
        if (!expected.has(key)) expected.set(key, { ...row, webhook_id: String(id) });
      }
    }
    for (const row of stored) {
      const { received_at: receivedAt, ...columns } = row;
      expect(receivedAt).toBeInstanceOf(Date);
      expect(columns).toEqual(expected.get(String(row.transaction_id)));
    }
    // Spelled out, the values that matter most.
    expect(stored[0]).toMatchObject({
      batch_id: '0000000212749',
      account_number: '419001918',
      amount: '1000.1',
      withholding_tax_amount: '12.5',
      source_account_number: '0099887766',
      date_time_local: '2020-01-13 14:21:50.553',
    });
    expect(stored[1]).toMatchObject({
      date_time_local: '2020-01-13 14:21:50',
      account_number: '0419001918',
      amount: '40.5',
      withholding_tax_amount: null,
      receipt_number: '5678201',
    });
    expect(stored[2]).toMatchObject({ date_time_local: '2020-01-13 14:21:50.123456' });
    expect(stored[3]).toMatchObject({
      amount: '0.0001',
      date_time_local: null,
      date_time_text: '2020-02-30T10:00:00',
      batch_id: null,
      account_number: null,
      indicator: null,
      receipt_number: null,
    });
  });

  it('when migrated, then the accepted deliveries are modelled under the canonical name with the warnings the receiver records; the others stay raw', async () => {
    const deliveries = await database.query<{
      webhook_id: string;
      event_name: string;
      modelled: boolean;
      warnings: { path: string }[];
    }>(
      'SELECT webhook_id::text, event_name, modelled, warnings FROM webhook_deliveries ORDER BY 1',
    );
    const summary = deliveries.map((d) => [d.webhook_id, d.event_name, d.modelled]);
    expect(summary).toEqual([
      ['100', 'NPPReceivePayment', true],
      ['101', 'InboundDirectCredit', true],
      ['102', 'InboundDirectCredit', true],
      ['103', 'InboundDirectCredit', false],
      ['104', 'InboundDirectCredit', false],
      ['105', 'InboundDirectCredit', true],
      ['106', 'InboundDirectCredit', false],
      // Same bytes as 102: keeps its spelling; its record is 102's, already stored.
      ['107', 'INBOUNDDIRECTCREDIT', true],
    ]);
    for (const id of [101, 102, 105]) {
      const delivery = deliveries.find((d) => d.webhook_id === String(id));
      expect(
        delivery?.warnings.map((w) => w.path),
        String(id),
      ).toEqual(receiverRows(BODIES[id]?.body ?? '').warningPaths);
    }
    expect(deliveries.find((d) => d.webhook_id === '105')?.warnings).toContainEqual({
      path: 'DirectCreditDetails[1].DateTime',
      message:
        'DirectCreditDetails[1].DateTime could not be read when the upgrade modelled this delivery; the text is kept',
    });
    expect(deliveries.find((d) => d.webhook_id === '102')?.warnings).toEqual([
      { path: 'TotalCount', message: 'TotalCount is 3 but DirectCreditDetails holds 1 records' },
    ]);
  });

  it('when migrated, then each batch keeps its totals as the receiver reads them', async () => {
    expect(
      await database.query(
        'SELECT webhook_id::text, total_count, total_amount, record_count FROM direct_credit_batches ORDER BY 1',
      ),
    ).toEqual([
      { webhook_id: '101', total_count: 2, total_amount: '1040.6', record_count: 2 },
      { webhook_id: '102', total_count: 3, total_amount: '7', record_count: 1 },
      { webhook_id: '105', total_count: 2, total_amount: null, record_count: 2 },
      { webhook_id: '107', total_count: 3, total_amount: '7', record_count: 1 },
    ]);
    for (const id of [101, 102, 105]) {
      const { batch } = receiverRows(BODIES[id]?.body ?? '');
      const [row] = await database.query(
        'SELECT total_count, total_amount, record_count FROM direct_credit_batches WHERE webhook_id = $1',
        [id],
      );
      expect(row).toEqual({
        total_count: batch.totalCount,
        total_amount: batch.totalAmount,
        record_count: batch.recordCount,
      });
    }
  });

  it('when migrated, then a TransactionId re-sent with other content is a recorded conflict, the first row standing', async () => {
    expect(
      await database.query(
        `SELECT table_name, event_name, business_key, first_webhook_id::text, webhook_id::text,
           record_index, differences FROM conflicts`,
      ),
    ).toEqual([
      {
        table_name: 'direct_credits',
        event_name: 'InboundDirectCredit',
        business_key: 'D00100537784',
        first_webhook_id: '101',
        webhook_id: '105',
        record_index: 0,
        differences: expect.arrayContaining([{ field: 'amount', first: 1000.1, second: 999 }]),
      },
    ]);
  });

  it('when migrated, then payments_received includes the direct credits beside the NPP payment', async () => {
    expect(
      await database.query(
        `SELECT event_name, transaction_id, amount, remittance_information, date_time
         FROM payments_received ORDER BY transaction_id`,
      ),
    ).toEqual([
      expect.objectContaining({
        event_name: 'InboundDirectCredit',
        transaction_id: 'D00100537784',
        amount: '1000.1',
        remittance_information: 'INV 9001',
        // 14:21:50.553 on 13 January in Sydney (daylight saving time, +11:00).
        date_time: new Date('2020-01-13T03:21:50.553Z'),
      }),
      expect.objectContaining({ transaction_id: 'D00100537785', remittance_information: null }),
      expect.objectContaining({ transaction_id: 'D00100537786' }),
      expect.objectContaining({ transaction_id: 'D00100537787', date_time: null }),
      expect.objectContaining({ event_name: 'NPPReceivePayment', transaction_id: 'N-OLD-9' }),
    ]);
  });

  it('when migrated, then nothing is lost: every delivery with its bytes and payload, every old feed event, and new events for the backfilled records', async () => {
    expect(await digests()).toEqual(digestsBefore);
    const events = await database.query<{
      type: string;
      business_key: string;
      position: string | null;
    }>('SELECT type, business_key, position::text FROM feed_events ORDER BY id');
    expect(events.slice(0, 8).every((e) => e.position !== null)).toBe(true);
    expect(events.slice(8)).toEqual([
      { type: 'direct_credit.received', business_key: 'D00100537784', position: null },
      { type: 'direct_credit.received', business_key: 'D00100537785', position: null },
      { type: 'direct_credit.received', business_key: 'D00100537786', position: null },
      { type: 'direct_credit.received', business_key: 'D00100537787', position: null },
      { type: 'conflict.detected', business_key: 'D00100537784', position: null },
    ]);

    // The assigner numbers them after everything already in the feed; they render in full.
    const feed = feedDatabase(database.url);
    try {
      await assignPositions(feed.db);
      const page = await readFeedPage(feed.db, { after: '8', limit: 10, maxBytes: 1 << 20 });
      const bodies = page.events.map(
        (e) => JSON.parse(e.body) as { type: string; position: string; data: { fields: unknown } },
      );
      expect(bodies.map((b) => [b.type, b.position])).toEqual([
        ['direct_credit.received', '9'],
        ['direct_credit.received', '10'],
        ['direct_credit.received', '11'],
        ['direct_credit.received', '12'],
        ['conflict.detected', '13'],
      ]);
      expect(bodies[0]?.data.fields).toMatchObject({
        transaction_id: 'D00100537784',
        batch_id: '0000000212749',
        amount: '1000.1',
        date_time_local: '2020-01-13T14:21:50.553+11:00',
      });
    } finally {
      await feed.db.destroy();
    }
  });
});
