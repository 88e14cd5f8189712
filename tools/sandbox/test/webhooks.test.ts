import { describe, expect, it } from 'vitest';
import { decodeSignature, verifySignature } from '../../../src/receiver/signature.ts';
import { parsePublicKey } from '../../../src/receiver/signature.ts';
import type { Call } from '../core/client.ts';
import {
  eventually,
  startSubscriber,
  startTestSandbox,
  subscribe,
  type Received,
} from './support.ts';

const NPP_FIELDS = [
  'TransactionId',
  'DateTime',
  'Amount',
  'AccountNumber',
  'AccountName',
  'Bsb',
  'PayId',
  'PayIdName',
  'RemitterName',
  'SourceBsb',
  'SourceAccountNumber',
  'SourceAccountName',
  'PaymentDescription',
  'EndToEndId',
  'CreditorReferenceInformation',
  'ReconciliationRuleReference',
  'CategoryPurposeCode',
  'UltimateCreditorName',
  'USINumber',
  'USICreditorScheme',
  'LedgerAccountNumber',
  'LedgerUniqueReference',
  'ReceiptNumber',
];
const REJECTION_FIELDS = [
  'id',
  'batchId',
  'dateTime',
  'transactionType',
  'transactionCode',
  'status',
  'reason',
  'amount',
  'bsb',
  'accountNumber',
  'accountName',
  'payId',
  'payIdName',
  'lodgementRef',
  'endToEndId',
  'remitterName',
  'sourceBsb',
  'sourceAccountNumber',
  'sourceAccountName',
  'indicator',
  'withholdingTaxAmount',
  'nameOfUserSupplyingFile',
  'numberOfUserSupplyingFile',
  'descriptionOfEntriesOnFile',
  'ledgerAccountNumber',
  'ledgerUniqueReference',
];

async function verifies(call: Call, request: Received): Promise<boolean> {
  const key = await parsePublicKey((await call('GET', '/public/v1/certificate/public-key')).text);
  const signature = decodeSignature(request.headers['verification-signature'] as string);
  return signature !== undefined && verifySignature(request.body, signature, key);
}

const json = (request: Received) =>
  JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;

describe('subscriptions and deliveries', () => {
  it('when an NPP payment arrives, then each subscriber gets it signed over the exact bytes, with its token and a Webhookid', async () => {
    const { call } = await startTestSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment'], 'Basic c2VjcmV0');
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '12.34' },
    });
    expect(created.status).toBe(200);
    const [webhookId] = created.body.webhookIds as string[];
    expect(subscriber.received).toHaveLength(1);
    const [request] = subscriber.received as [Received];
    expect(request.path).toBe('/NPPReceivePayment');
    expect(request.headers).toMatchObject({
      authorisation: 'Basic c2VjcmV0',
      webhookid: webhookId,
      'content-type': 'application/json',
    });
    expect(webhookId).toMatch(/^[1-9]\d{0,18}$/);
    expect(await verifies(call, request)).toBe(true);
    const body = json(request);
    expect(Object.keys(body)).toEqual(expect.arrayContaining([...NPP_FIELDS, 'RefundDetails']));
    expect(body).toMatchObject({
      Amount: '12.34',
      TransactionId: (created.body.payment as Record<string, unknown>).TransactionId,
    });
    expect(Number.isInteger(body.ReceiptNumber)).toBe(true);
    expect(created.body.deliveries).toEqual([
      expect.objectContaining({ webhookId, status: 'Sent', retryCount: 0, lastResponseCode: 200 }),
    ]);
  });

  it('when a PayTo payment and rejections arrive, then their bodies carry every field of their shape', async () => {
    const { call } = await startTestSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['PayToReceivePayment', 'NPPCreditRejections']);
    await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'PayToReceivePayment', amount: '5.00' },
    });
    await call('POST', '/sandbox/rejections?wait=true', {
      body: {
        event: 'NPPCreditRejections',
        records: [{ amount: '1.10' }, { amount: '2.20', reason: 'Closed account' }],
      },
    });
    const [payTo, rejections] = subscriber.received as [Received, Received];
    expect(Object.keys(json(payTo))).toEqual(
      expect.arrayContaining([...NPP_FIELDS, 'MmsId', 'InitiatingPartyName', 'NPPInstructionId']),
    );
    const records = JSON.parse(rejections.body.toString('utf8')) as Record<string, unknown>[];
    expect(records).toHaveLength(2);
    for (const record of records)
      expect(Object.keys(record).sort()).toEqual([...REJECTION_FIELDS].sort());
    expect(records[1]).toMatchObject({ amount: 2.2, reason: 'Closed account', status: 'Rejected' });
    const ids = [payTo, rejections].map((r) => r.headers.webhookid);
    expect(new Set(ids).size).toBe(2);
  });

  it('when the subscriber answers 500 and then 200, then the same bytes and Webhookid are retried once and the report says Sent', async () => {
    const { call } = await startTestSandbox({ retryDelayMs: 200 });
    const subscriber = await startSubscriber((_r, index) => (index === 0 ? 500 : 200));
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const started = Date.now();
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const [first, retry] = subscriber.received as [Received, Received];
    expect(subscriber.received).toHaveLength(2);
    expect(retry.body.equals(first.body)).toBe(true);
    expect(retry.headers.webhookid).toBe(first.headers.webhookid);
    expect(created.body.deliveries).toEqual([
      expect.objectContaining({ status: 'Sent', retryCount: 1, lastResponseCode: 200 }),
    ]);
  });

  it('when the subscriber answers anything but 200 twice (here 201 then 400), then it is given up after one retry: Error', async () => {
    const { call } = await startTestSandbox({ retryDelayMs: 50 });
    const subscriber = await startSubscriber((_r, index) => (index === 0 ? 201 : 400));
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(created.body.deliveries).toEqual([
      expect.objectContaining({ status: 'Error', retryCount: 1, lastResponseCode: 400 }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(subscriber.received).toHaveLength(2);
  });

  it('when the subscriber does not answer in time, then the attempt fails and is retried', async () => {
    const { call } = await startTestSandbox({ retryDelayMs: 50, deliveryTimeoutMs: 300 });
    const subscriber = await startSubscriber((_r, index) => (index === 0 ? 'hang' : 200));
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(created.body.deliveries).toEqual([
      expect.objectContaining({ status: 'Sent', retryCount: 1 }),
    ]);
    const log = await call(
      'GET',
      `/sandbox/deliveries?webhookId=${(created.body.webhookIds as string[])[0]}`,
    );
    const [entry] = log.body.deliveries as {
      attempts: { error?: string; responseCode?: number }[];
    }[];
    expect(entry?.attempts[0]?.error).toContain('no answer within 300 ms');
    expect(entry?.attempts[1]?.responseCode).toBe(200);
  });

  it('when singleObject is asked for one NPPCreditRejections record, then the body is that object (the public example)', async () => {
    const { call } = await startTestSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPCreditRejections']);
    const two = await call('POST', '/sandbox/rejections', {
      body: {
        event: 'NPPCreditRejections',
        singleObject: true,
        records: [{ amount: '1' }, { amount: '2' }],
      },
    });
    expect(two.status).toBe(400);
    await call('POST', '/sandbox/rejections?wait=true', {
      body: { event: 'NPPCreditRejections', singleObject: true, records: [{ amount: '1.50' }] },
    });
    expect(subscriber.received).toHaveLength(1);
    expect(json(subscriber.received[0]!)).toMatchObject({ amount: 1.5, status: 'Rejected' });
  });

  it('when there are no subscribers and ?wait=true, then the answer comes at once even while another delivery awaits its retry', async () => {
    const { call } = await startTestSandbox({ retryDelayMs: 60_000 });
    const subscriber = await startSubscriber(() => 500);
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    await call('POST', '/sandbox/payments', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    const started = Date.now();
    const unsubscribed = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'PayToReceivePayment', amount: '1.00' },
    });
    expect(unsubscribed.body.deliveries).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('when a subscription is Off or for another event, then it gets nothing', async () => {
    const { call } = await startTestSandbox();
    const subscriber = await startSubscriber();
    await call('POST', '/subscriptions/v1/create', {
      body: {
        eventName: 'NPPReceivePayment',
        targetUrl: `${subscriber.url}/off`,
        subscriptionStatus: 'Off',
      },
    });
    await subscribe(call, subscriber.url, ['PayToReceivePayment']);
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(created.body.webhookIds).toEqual([]);
    expect(subscriber.received).toHaveLength(0);
  });

  it('when a subscription is repeated or invalid, then it is refused and not added', async () => {
    const { call } = await startTestSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const again = await call('POST', '/subscriptions/v1/create', {
      body: { eventName: 'NPPReceivePayment', targetUrl: `${subscriber.url}/NPPReceivePayment` },
    });
    expect(again.body.status).toBe('WebhookAlreadySubscribed');
    for (const body of [
      { eventName: 'Nope', targetUrl: 'http://x' },
      { eventName: 'NPPReceivePayment', targetUrl: 'ftp://x/y' },
      { eventName: 'NPPReceivePayment' },
    ]) {
      expect((await call('POST', '/subscriptions/v1/create', { body })).status).toBe(400);
    }
    await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(subscriber.received).toHaveLength(1);
  });

  it('when the delivery report is asked for the day, then it lists each notification without its payload; resend delivers it again', async () => {
    const { call } = await startTestSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '3.00' },
    });
    const [webhookId] = created.body.webhookIds as [string];
    const day = String((created.body.payment as Record<string, string>).DateTime).slice(0, 10);
    const report = await call('GET', `/subscriptions/v1/report/${day}`);
    expect(report.body.notifications).toEqual([
      {
        webhookId,
        eventName: 'NPPReceivePayment',
        url: `${subscriber.url}/NPPReceivePayment`,
        status: 'Sent',
        retryCount: 0,
        lastResponseCode: 200,
        dateTime: expect.stringMatching(/^\d{1,2}\/\d{1,2}\/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M$/),
        lastRetryDateTime: null,
      },
    ]);
    expect((await call('GET', '/subscriptions/v1/report/2001-01-01')).body.notifications).toEqual(
      [],
    );
    expect((await call('GET', '/subscriptions/v1/report/20010101')).status).toBe(400);

    expect((await call('POST', `/subscriptions/v2/resend/${webhookId}`)).body.status).toBe('Ok');
    await eventually(() => subscriber.received.length === 2);
    const [first, resent] = subscriber.received as [Received, Received];
    expect(resent.headers.webhookid).toBe(webhookId);
    expect(resent.body.equals(first.body)).toBe(true);
    expect((await call('POST', '/subscriptions/v2/resend/12345')).status).toBe(400);
    expect((await call('POST', '/subscriptions/v2/resend/12a')).status).toBe(400);
  });
});
