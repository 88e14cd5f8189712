import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { bodyBytes as capturedBytes } from '../../../src/capture/capture-body.ts';
import { loadCaptureFile } from '../../../tools/capture/capture-files.ts';
import { findEventModel } from '../../../src/receiver/events/registry.ts';
import { decodeBody } from '../../../src/receiver/delivery/decode-body.ts';
import { createDatabase } from '../../../src/lib/database/database.ts';
import {
  storeDeliveries,
  type DeliveryToStore,
} from '../../../src/receiver/storage/store-deliveries.ts';
import { createConfiguredKeySource } from '../../../src/receiver/verification/key-source.ts';
import { parsePublicKey } from '../../../src/receiver/verification/public-key.ts';
import { bodyBytes, freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { samplePayload, TYPED_ROW_CONTRACTS } from '../../../src/receiver/events/data-contract.ts';
import { nppPayment, rejectionRecord, sampleRow } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});

const send = (event: string, body: object | string, webhookId = freshWebhookId()) =>
  sendDelivery(built.app, { event, body, webhookId, signWith: bed.signer.privateKey });

const conflicts = () =>
  bed.database.query<Record<string, unknown>>(
    `SELECT table_name, event_name, business_key, first_webhook_id::text, webhook_id::text,
       record_index, differences FROM conflicts ORDER BY id`,
  );

const deliveryLine = () => built.logs.findLast((line) => 'outcome' in line) ?? {};

describe('every field of the contract in a typed column', () => {
  const captured = (name: string) =>
    fileURLToPath(new URL(`../../fixtures/captured/${name}.json`, import.meta.url));

  it.each([
    ['npp-receive-payment.every-field', 'npp_payments'],
    ['pay-to-receive-payment.every-field', 'payto_payments'],
    ['inbound-direct-credit-rejections.every-field', 'credit_rejections'],
    ['inbound-direct-credit.every-field', 'direct_credits'],
  ])('when %s is replayed, then every column of its %s row holds a value', async (file, table) => {
    const entry = loadCaptureFile(captured(file));
    if (!entry.ok) throw new Error(entry.problems.join('\n'));
    const key = await parsePublicKey(entry.delivery.publicKey);
    const app = buildTestApp({
      db: bed.database.db,
      keys: createConfiguredKeySource(key, Date.now),
    }).app;
    let req = request(app).post(`/webhooks/${entry.delivery.eventName}`);
    for (const [name, value] of Object.entries(entry.delivery.headers)) req = req.set(name, value);
    await req
      .serialize((data: unknown) => data as string)
      .send(capturedBytes(entry.delivery))
      .expect(200);

    const [row] = await bed.database.rows(table);
    const empty = Object.entries(row ?? {}).filter(([, value]) => value === null);
    expect(empty.map(([column]) => column)).toEqual([]);
    const [delivery] = await bed.database.query('SELECT warnings FROM webhook_deliveries');
    expect(delivery).toEqual({ warnings: [] });
  });

  it.each(TYPED_ROW_CONTRACTS.map((contract) => [contract.table, contract] as const))(
    "when %s is read from the catalogue, then it has a column of the contract's type for every field, and no other",
    async (table, contract) => {
      const columns = await bed.database.query<{ column: string; type: string; nullable: string }>(
        `SELECT column_name AS column, data_type AS type, is_nullable AS nullable
         FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1`,
        [table],
      );
      const byName = new Map(columns.map((column) => [column.column, column]));
      expect(
        contract.columns.map((c) => [
          c.column,
          byName.get(c.column)?.type,
          byName.get(c.column)?.nullable,
        ]),
      ).toEqual(contract.columns.map((c) => [c.column, c.sqlType, c.nullable ? 'YES' : 'NO']));
      expect(columns.map((column) => column.column).sort()).toEqual(
        [...contract.columns.map((c) => c.column), ...contract.deliveryColumns].sort(),
      );
    },
  );

  it.each(
    TYPED_ROW_CONTRACTS.flatMap((contract) =>
      contract.events.map((event) => [event, contract] as const),
    ),
  )(
    'when the sample %s is delivered, then every column of its row holds the example of its field',
    async (event, contract) => {
      await send(event, samplePayload(event) as object).expect(200);
      const [row] = await bed.database.rows(contract.table);
      const expected = sampleRow(event);
      expect(Object.fromEntries(contract.columns.map((c) => [c.column, row?.[c.column]]))).toEqual(
        Object.fromEntries(contract.columns.map((c) => [c.column, expected[c.key]])),
      );
      const [delivery] = await bed.database.query('SELECT warnings FROM webhook_deliveries');
      expect(delivery).toEqual({ warnings: [] });
    },
  );

  it('when the published USIScheme spelling is sent, then it fills usi_creditor_scheme', async () => {
    await send('NPPReceivePayment', nppPayment({ USIScheme: 'USI' })).expect(200);
    const [row] = await bed.database.query('SELECT usi_creditor_scheme FROM npp_payments');
    expect(row).toEqual({ usi_creditor_scheme: 'USI' });
  });
});

describe('the body key is per event', () => {
  it('when the same bytes are posted for two events, then there are two deliveries', async () => {
    const body = JSON.stringify(nppPayment());
    await send('NPPReceivePayment', body).expect(200);
    await send('PayToReceivePayment', body).expect(200);
    expect(built.logs.filter((line) => line.outcome === 'stored')).toHaveLength(2);
    expect(await bed.database.count('webhook_deliveries')).toBe(2);
    expect(await bed.database.count('npp_payments')).toBe(1);
    expect(await bed.database.count('payto_payments')).toBe(1);
  });

  it('when a known body comes again for the same event under a new Webhookid, then it is a duplicate', async () => {
    const body = JSON.stringify([rejectionRecord()]);
    const first = freshWebhookId();
    await send('InboundDirectCreditRejections', body, first).expect(200);
    await send('InboundDirectCreditRejections', body).expect(200);
    expect(deliveryLine()).toMatchObject({ outcome: 'duplicate', replayOf: first });
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  });
});

describe('conflicts are never silent', () => {
  it('when a TransactionId comes again under a new Webhookid with another Amount, then 200, the first row stands and the conflict is recorded, counted and warned', async () => {
    const first = freshWebhookId();
    const second = freshWebhookId();
    const body = nppPayment({ Amount: '10.5000' });
    await send('NPPReceivePayment', body, first).expect(200);
    await send('NPPReceivePayment', { ...body, Amount: 11, RemitterName: 'Other' }, second).expect(
      200,
    );

    expect(await bed.database.query('SELECT amount, webhook_id::text FROM npp_payments')).toEqual([
      { amount: '10.5', webhook_id: first },
    ]);
    expect(await bed.database.count('webhook_deliveries')).toBe(2);
    expect(await conflicts()).toEqual([
      {
        table_name: 'npp_payments',
        event_name: 'NPPReceivePayment',
        business_key: body.TransactionId,
        first_webhook_id: first,
        webhook_id: second,
        record_index: 0,
        differences: [
          { field: 'amount', first: 10.5, second: 11 },
          { field: 'remitter_name', first: 'Jane Citizen', second: 'Other' },
        ],
      },
    ]);
    expect(deliveryLine()).toMatchObject({ level: 40, outcome: 'stored', conflicts: 1 });
    const metrics = await request(built.app).get('/metrics');
    expect(metrics.text).toMatch(/webhook_conflicts_total\{event="NPPReceivePayment"\} 1/);
  });

  it('when the same payment is re-sent unchanged under a new Webhookid, then no conflict and the line stays at info', async () => {
    const body = nppPayment();
    await send('NPPReceivePayment', body).expect(200);
    // Other key order and an equal amount in another form are the same content.
    await send('NPPReceivePayment', { ...body, Amount: '125.50' }).expect(200);
    expect(await conflicts()).toEqual([]);
    expect(deliveryLine()).toMatchObject({ level: 30, typedRowsAlreadyStored: 1 });
    expect(deliveryLine()).not.toHaveProperty('conflicts');
  });

  it('when one body holds a rejection id twice with different amounts, then the first is stored and the second is a conflict within that delivery', async () => {
    const webhookId = freshWebhookId();
    const records = [
      rejectionRecord({ id: 'R1', amount: 5 }),
      rejectionRecord({ id: 'R2' }),
      rejectionRecord({ id: 'R1', amount: 6 }),
    ];
    await send('NPPCreditRejections', records, webhookId).expect(200);
    expect(
      await bed.database.query('SELECT rejection_id, amount FROM credit_rejections ORDER BY 1'),
    ).toEqual([
      { rejection_id: 'R1', amount: '5' },
      { rejection_id: 'R2', amount: '10' },
    ]);
    expect(await conflicts()).toEqual([
      expect.objectContaining({
        table_name: 'credit_rejections',
        event_name: 'NPPCreditRejections',
        business_key: 'R1',
        first_webhook_id: webhookId,
        webhook_id: webhookId,
        record_index: 2,
        differences: [{ field: 'amount', first: 5, second: 6 }],
      }),
    ]);
  });

  it('when a rejection id and a PayTo TransactionId come again with other content, then each is recorded against its table', async () => {
    const rejection = rejectionRecord();
    const payTo = nppPayment({ MmsId: 'MMS-1' });
    await send('InboundDirectCreditRejections', [rejection]).expect(200);
    await send('PayToReceivePayment', payTo).expect(200);
    await send('InboundDirectCreditRejections', [{ ...rejection, reason: 'Closed' }]).expect(200);
    await send('PayToReceivePayment', { ...payTo, MmsId: 'MMS-2' }).expect(200);
    expect((await conflicts()).map((c) => [c.table_name, c.differences])).toEqual([
      ['credit_rejections', [{ field: 'rejection_reason', first: null, second: 'Closed' }]],
      ['payto_payments', [{ field: 'mms_id', first: 'MMS-1', second: 'MMS-2' }]],
    ]);
  });

  it('when two statements insert one key with different content at the same moment, then the loser records the conflict in a follow-up', async () => {
    const other = createDatabase({ url: bed.database.url, poolMax: 2 });
    try {
      const body = nppPayment();
      const winner = toStore('NPPReceivePayment', body);
      const loser = toStore('NPPReceivePayment', { ...body, Amount: 99 });
      let losing: Promise<unknown> = Promise.resolve();
      await other.transaction().execute(async (trx) => {
        await storeDeliveries(trx, [winner]);
        // The loser's INSERT waits on the winner's uncommitted key, with a snapshot that can
        // never see it.
        losing = storeDeliveries(bed.database.db, [loser]);
        await waitForALockWait();
      });
      expect(await losing).toEqual([
        { inserted: true, typedRowsInserted: 0, typedRowsAlreadyStored: 1, conflicts: 1 },
      ]);
      expect(await conflicts()).toEqual([
        expect.objectContaining({
          first_webhook_id: winner.delivery.webhookId,
          webhook_id: loser.delivery.webhookId,
          differences: [{ field: 'amount', first: 125.5, second: 99 }],
        }),
      ]);
    } finally {
      await other.destroy();
    }
  });
});

function toStore(eventName: string, body: object): DeliveryToStore {
  const raw = bodyBytes(body);
  const decoded = decodeBody(raw, 'application/json', findEventModel(eventName));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.problems));
  return {
    delivery: {
      webhookId: freshWebhookId(),
      eventName,
      receivedAt: new Date(),
      bodySha256: createHash('sha256').update(raw).digest('hex'),
      rawBody: raw,
      contentType: 'application/json',
      headers: {},
      requestId: null,
      remoteAddress: null,
      signingKeyFingerprint: null,
    },
    typed: decoded.typed,
  };
}

async function waitForALockWait(): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const [row] = await bed.database.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if ((row?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the second statement never waited on the first');
}
