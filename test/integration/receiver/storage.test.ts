import { beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { bodyBytes, freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const RECEIVED_AT = new Date('2026-11-22T01:02:03.456Z');

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({
    db: bed.database.db,
    publicKey: bed.signer.publicKey,
    now: () => RECEIVED_AT,
    // The test client plays the load balancer, whose X-Request-Id is kept.
    trustProxy: 'loopback',
  });
});

describe('a stored delivery (checks 8-9)', () => {
  it('when an NPPReceivePayment is accepted, then the exact bytes, hash, payload and metadata are stored', async () => {
    // Formatting the platform might use: indentation, a big precise amount, unicode.
    const text = `{\n  "TransactionId": "TXEXACT1",\n  "Amount": 12345678901.1234,\n  "DateTime": "2023-08-11T14:19:16.1234567",\n  "RemitterName": "Zoë Müller"\n}`;
    const webhookId = '9223372036854775807';
    const res = await sendDelivery(built.app, {
      body: text,
      webhookId,
      signWith: bed.signer.privateKey,
      headers: { 'X-Request-Id': 'lb-req-1', 'User-Agent': 'Monoova-Webhooks' },
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'Ok',
      statusDescription: 'Delivery stored',
      durationMs: expect.any(Number),
    });
    expect(res.headers['x-request-id']).toBe('lb-req-1');
    const [row] = await bed.database.query<Record<string, unknown>>(
      `SELECT webhook_id, event_name, modelled, received_at, body_sha256, raw_body,
              delivery_body_json(raw_body)->>'Amount' AS amount_text, payload, headers, request_id, content_type, signing_key_fingerprint
       FROM webhook_deliveries`,
    );
    expect(row).toMatchObject({
      webhook_id: webhookId,
      event_name: 'NPPReceivePayment',
      modelled: true,
      received_at: RECEIVED_AT,
      body_sha256: createHash('sha256').update(text).digest('hex'),
      amount_text: '12345678901.1234',
      // Stored once, as the bytes: no jsonb copy (2026-11-24T09).
      payload: null,
      request_id: 'lb-req-1',
      content_type: 'application/json',
      signing_key_fingerprint: expect.stringMatching(/^[0-9a-f]{16,}$/),
    });
    expect((row?.raw_body as Buffer).equals(Buffer.from(text))).toBe(true);
    expect(row?.headers).toMatchObject({ webhookid: webhookId, 'user-agent': 'Monoova-Webhooks' });
    expect(row?.headers).toHaveProperty('verification-signature');
  });

  it('when a payment is stored, then its amount is exact numeric and its time is Sydney wall-clock with the text kept', async () => {
    const body = nppPayment({
      TransactionId: 'TXTYPED1',
      Amount: '1000000.0001',
      DateTime: '20/10/2020 12:00:01 AM',
      ReceiptNumber: '000123',
      RefundDetails: { InboundAmount: 20, RefundAmount: '5.5', RefundId: 'RF1' },
    });
    await sendDelivery(built.app, { body, signWith: bed.signer.privateKey }).expect(200);

    const [payment] = await bed.database.query(
      `SELECT transaction_id, amount::text AS amount, date_time_local, date_time_text, receipt_number,
              refund_inbound_amount::text AS refund_inbound_amount, refund_amount::text AS refund_amount,
              refund_id, received_at, pg_typeof(amount)::text AS amount_type
       FROM npp_payments`,
    );
    expect(payment).toMatchObject({
      transaction_id: 'TXTYPED1',
      amount: '1000000.0001',
      amount_type: 'numeric',
      date_time_local: '2020-10-20 00:00:01',
      date_time_text: '20/10/2020 12:00:01 AM',
      receipt_number: '000123',
      refund_inbound_amount: '20',
      refund_amount: '5.5',
      refund_id: 'RF1',
      received_at: RECEIVED_AT,
    });
  });

  it('when an InboundDirectCreditRejections batch is accepted, then one row per record is stored', async () => {
    const records = [
      rejectionRecord({ id: 'R1', amount: 1.5 }),
      rejectionRecord({ id: 'R2' }),
      rejectionRecord({ id: 'R3' }),
    ];
    const webhookId = freshWebhookId();
    await sendDelivery(built.app, {
      event: 'InboundDirectCreditRejections',
      body: records,
      webhookId,
      signWith: bed.signer.privateKey,
    }).expect(200);

    const rows = await bed.database.query(
      `SELECT event_name, rejection_id, webhook_id, amount::text AS amount, date_time_local, date_time_text
       FROM credit_rejections ORDER BY rejection_id`,
    );
    expect(rows).toEqual([
      {
        event_name: 'InboundDirectCreditRejections',
        rejection_id: 'R1',
        webhook_id: webhookId,
        amount: '1.5',
        date_time_local: '2020-10-20 00:00:01',
        date_time_text: '20/10/2020 12:00:01 AM',
      },
      expect.objectContaining({ rejection_id: 'R2', amount: '10' }),
      expect.objectContaining({ rejection_id: 'R3' }),
    ]);
  });

  it('when NPPCreditRejections sends a single object (the published example), then it is stored as one rejection', async () => {
    await sendDelivery(built.app, {
      event: 'NPPCreditRejections',
      body: rejectionRecord({ id: 'NPP-R1' }),
      signWith: bed.signer.privateKey,
    }).expect(200);
    const rows = await bed.database.query('SELECT event_name, rejection_id FROM credit_rejections');
    expect(rows).toEqual([{ event_name: 'NPPCreditRejections', rejection_id: 'NPP-R1' }]);
  });

  it('when the same rejection id arrives for two different events, then both are kept (unique per event)', async () => {
    for (const event of ['NPPCreditRejections', 'InboundDirectCreditRejections']) {
      // Bodies differ (as real ones would), so body deduplication does not apply.
      const body = [rejectionRecord({ id: 'SHARED', transactionType: event })];
      await sendDelivery(built.app, { event, body, signWith: bed.signer.privateKey }).expect(200);
    }
    expect(await bed.database.count('credit_rejections')).toBe(2);
  });

  it('when a rejection batch is larger than one statement can carry, then every record is stored', async () => {
    const records = Array.from({ length: 2500 }, (_, i) => rejectionRecord({ id: `BULK${i}` }));
    await sendDelivery(built.app, {
      event: 'InboundDirectCreditRejections',
      body: records,
      signWith: bed.signer.privateKey,
    }).expect(200);
    expect(await bed.database.count('credit_rejections')).toBe(2500);
  });

  it('when the event name is another case of a modelled one, then it is stored under the canonical name', async () => {
    await sendDelivery(built.app, {
      event: 'nppreceivepayment',
      body: nppPayment(),
      signWith: bed.signer.privateKey,
    }).expect(200);
    const [row] = await bed.database.query('SELECT event_name FROM webhook_deliveries');
    expect(row).toEqual({ event_name: 'NPPReceivePayment' });
    expect(await bed.database.count('npp_payments')).toBe(1);
  });

  it('when an unmodelled event arrives, then it is kept raw with its payload and no typed rows', async () => {
    const body = { PaymentAgreementId: 'PA1', Amount: 'anything at all', Nested: { deep: [1, 2] } };
    await sendDelivery(built.app, {
      event: 'NppReturn',
      body,
      signWith: bed.signer.privateKey,
    }).expect(200);

    const rows = await bed.database.query(
      'SELECT event_name, modelled, delivery_body_json(raw_body) AS payload FROM webhook_deliveries',
    );
    expect(rows).toEqual([{ event_name: 'NppReturn', modelled: false, payload: body }]);
    expect(await bed.database.count('npp_payments')).toBe(0);
    expect(await bed.database.count('credit_rejections')).toBe(0);
  });

  it('when an unmodelled body holds a NUL character, then it is stored with raw bytes and a null payload (never a 500)', async () => {
    const text = '{"note":"a\\u0000b","lone":"\\ud800"}';
    await sendDelivery(built.app, {
      event: 'NppReturn',
      body: text,
      signWith: bed.signer.privateKey,
    }).expect(200);
    const [row] = await bed.database.query<{ payload: unknown; raw_body: Buffer; json: unknown }>(
      'SELECT payload, raw_body, delivery_body_json(raw_body) AS json FROM webhook_deliveries',
    );
    expect(row?.payload).toBeNull();
    // jsonb cannot hold it: SQL reads null, and the query does not fail.
    expect(row?.json).toBeNull();
    expect(row?.raw_body.toString()).toBe(text);
  });

  it('when the body starts with a UTF-8 byte-order mark, then it is accepted and the mark is kept in the raw bytes', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bodyBytes(nppPayment())]);
    await sendDelivery(built.app, { body: bytes, signWith: bed.signer.privateKey }).expect(200);
    const [row] = await bed.database.query<{ raw_body: Buffer }>(
      'SELECT raw_body FROM webhook_deliveries',
    );
    expect(row?.raw_body.equals(bytes)).toBe(true);
  });

  it('when the body is not valid UTF-8 (Windows-1252 text), then it is stored with the exact bytes and the log flags it', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"TransactionId":"TX1252","Amount":5,"RemitterName":"JOS'),
      Buffer.from([0xc9]), // É in Windows-1252, invalid on its own in UTF-8
      Buffer.from('"}'),
    ]);
    await sendDelivery(built.app, { body: bytes, signWith: bed.signer.privateKey }).expect(200);
    const [row] = await bed.database.query<{ raw_body: Buffer }>(
      'SELECT raw_body FROM webhook_deliveries',
    );
    expect(row?.raw_body.equals(bytes)).toBe(true);
    expect(built.logs.find((line) => line.outcome === 'stored')).toMatchObject({
      bodyNotUtf8: true,
    });
  });
});
