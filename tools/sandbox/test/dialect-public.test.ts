import { describe, expect, it } from 'vitest';
import { CREDENTIALS, startSubscriber, startTestSandbox, subscribe } from './support.ts';
import {
  PAYID,
  basic,
  expectRefusal,
  newWallet,
  paidOut,
  refund,
  refundablePayment,
} from './scene.ts';

const publicSandbox = () => startTestSandbox({ dialect: 'public' });

describe('the public dialect: authentication and PayID enquiry', () => {
  it('when a call carries a bearer token, then 401; Basic API key alone is taken', async () => {
    const { call } = await publicSandbox();
    const token = await call('POST', '/au/security/oauth-v1/Token', {
      auth: basic(CREDENTIALS.mAccount, CREDENTIALS.apiKey),
    });
    const bearer = await call('GET', '/paytoreceivables/v1/report/20240305000000', {
      auth: `Bearer ${String(token.body.token)}`,
    });
    expect(bearer.status).toBe(401);
    expect((await call('GET', '/paytoreceivables/v1/report/20240305000000')).status).toBe(200);
  });

  it('when asked on v2, then 404; on v1, then PascalCase with Status', async () => {
    const { call } = await publicSandbox();
    await call('POST', '/sandbox/payids', { body: PAYID });
    const v2 = await call('POST', '/receivables/v2/payid/payIdEnquiry', {
      body: { payId: PAYID.payId },
    });
    expect(v2.status).toBe(404);
    const v1 = await call('POST', '/receivables/v1/payid/payIdEnquiry', {
      body: { payId: PAYID.payId },
    });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ status: 'Ok', Status: 'Enable', PayIdName: 'Shop' });
    expect(v1.body.payIdStatus).toBeUndefined();
  });
});

describe('the public dialect: wallets', () => {
  it('when searched by clientUniqueIdentifier, then it is ignored; by identifier, found with JSON booleans, no ABN, no maximumBalance', async () => {
    const { call } = await publicSandbox();
    const jane = await newWallet(call, { isOnHold: true });
    await newWallet(call, { email: 'bob@example.com', mobile: '0400000000' });
    const ignored = await call(
      'GET',
      '/mWallet/v1/search?clientUniqueIdentifier=jane%40example.com',
    );
    expect(ignored.body.mWallets).toHaveLength(2);
    const found = await call('GET', '/mWallet/v1/search?identifier=jane%40example.com');
    const [wallet] = found.body.mWallets as Record<string, unknown>[];
    expect(wallet).toMatchObject({
      accountNumber: jane.accountNumber,
      isOnHold: true,
      isClosed: false,
      isStolen: false,
      isRegistered: true,
    });
    expect(wallet).not.toHaveProperty('ABN');
    expect(wallet?.financials).not.toHaveProperty('maximumBalance');
    expect(wallet?.financials).toHaveProperty('actualBalance', 0);
  });

  it('when the pin is text or the name is missing, then 400 naming it; Email and ABN are not read', async () => {
    const { call } = await publicSandbox();
    const wallet = await newWallet(call, { pin: '0123' });
    const update = (body: Record<string, unknown>) =>
      call('POST', '/mWallet/v1/update', {
        body: { accountNumber: wallet.accountNumber, name: 'Jane Citizen', ...body },
      });
    expectRefusal(await update({ pin: '0123' }), 'Validation failed: pin: must be a number');
    expectRefusal(
      await call('POST', '/mWallet/v1/update', {
        body: { accountNumber: wallet.accountNumber, pin: 123 },
      }),
      'Validation failed: name: is required',
    );
    const ignored = await update({ pin: 123, Email: 'x@example.com', ABN: '51824753556' });
    expect(ignored.status).toBe(200);
    expect(ignored.body.mWallet).toMatchObject({ email: 'jane@example.com' });
    expect(ignored.body.mWallet).not.toHaveProperty('ABN');
  });

  it('when the update is in the public shape (pin and phone as numbers), then it is made and answered without a top-level accountNumber', async () => {
    const { call } = await publicSandbox();
    const wallet = await newWallet(call, { pin: '0123' });
    const answer = await call('POST', '/mWallet/v1/update', {
      body: {
        accountNumber: wallet.accountNumber,
        pin: 123,
        name: 'Jane Q Citizen',
        phone: 499111222,
        email: 'New@Example.com',
        abn: '51 824 753 556',
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).not.toHaveProperty('accountNumber');
    expect(answer.body.mWallet).toMatchObject({
      accountNumber: wallet.accountNumber,
      name: 'Jane Q Citizen',
      contactPhone: '0499111222',
      email: 'new@example.com',
      isOnHold: false,
    });
  });
});

describe('the public dialect: refund', () => {
  it.each([
    [
      'refundAmount as text',
      { uniqueReference: 'r', refundAmount: '40.00' },
      'Validation failed: refundAmount: must be a number',
    ],
    [
      'the nonce spelled UniqueReference',
      { UniqueReference: 'r', refundAmount: 40 },
      'Validation failed: uniqueReference: is required',
    ],
    [
      'a refundReference of 19 characters',
      { uniqueReference: 'r', refundAmount: 40, refundReference: 'r'.repeat(19) },
      'Validation failed: refundReference: must be 1-18 characters',
    ],
    [
      'an amount with 3 decimals',
      { uniqueReference: 'r', refundAmount: 40.005 },
      'Validation failed: refundAmount: must be a decimal amount with at most 2 places',
    ],
  ])(
    'when the request has %s, then 400 naming the field and nothing is refunded',
    async (_name, given, description) => {
      const { call } = await publicSandbox();
      const id = await refundablePayment(call);
      expectRefusal(await refund(call, { originalTransactionId: id, ...given }), description);
      expect((await paidOut(call, id)).refunds).toEqual([]);
    },
  );

  it('when a PayTo payment is named only by paymentInitiationUid, then 400: originalTransactionId is required', async () => {
    const { call } = await publicSandbox();
    expectRefusal(
      await refund(call, { uniqueReference: 'p', paymentInitiationUid: 'abc', refundAmount: 1 }),
      'Validation failed: originalTransactionId: is required',
    );
  });

  it('when the refund is in the public shape, then it is made once: integer transactionId, number fees, a repeat answers the same', async () => {
    const { call } = await publicSandbox();
    const id = await refundablePayment(call);
    const body = { uniqueReference: 'r-1', originalTransactionId: id, refundAmount: 40 };
    const first = await refund(call, body);
    expect(first.status, first.text).toBe(200);
    expect(first.text).toMatch(/"transactionId":\d+[,}]/);
    expect(first.body).toMatchObject({
      callerUniqueReference: 'r-1',
      feeAmountExcludingGst: 0.6,
      feeAmountIncludingGst: 0.66,
      feeAmountGstComponent: 0.06,
    });
    const again = await refund(call, body);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    expect(await paidOut(call, id)).toMatchObject({
      refunds: [{ uniqueReference: 'r-1', amount: '40.00' }],
      refundedTotal: '40.00',
    });
  });
});

describe('the public dialect: PayTo report', () => {
  it('when asked for JSON, then 406; otherwise text/plain CSV with the header row and CRLF, filtered by transactionType and transactionCode', async () => {
    const { call } = await publicSandbox();
    const paid = await call('POST', '/sandbox/payments', {
      body: {
        event: 'PayToReceivePayment',
        amount: '10.00',
        DateTime: '2024-03-05T09:00:00',
        PaymentDescription: 'a, "quoted" one',
      },
    });
    const payment = paid.body.payment as Record<string, string>;
    const path = '/paytoreceivables/v1/report/20240305000000';
    const json = await call('GET', path, { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(406);
    const csv = await call('GET', path);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toMatch(/^Transaction ID,Batch Id,DateTime,/);
    expect(lines[1]).toContain(`${payment.TransactionId},`);
    expect(lines[1]).toContain(',"a, ""quoted"" one",');
    expect(lines.slice(2)).toEqual(['']);
    const rows = async (query: string) =>
      (await call('GET', `${path}?${query}`, { headers: { Accept: 'text/plain' } })).text
        .split('\r\n')
        .filter(Boolean).length - 1;
    expect(await rows('transactionType=NPP&transactionCode=50')).toBe(1);
    expect(await rows('transactionType=DE')).toBe(0);
    expect(await rows('transactionCode=99')).toBe(0);
  });
});

describe('the public dialect: subscriptions', () => {
  it('when a subscription is created, then it answers an integer id, dateTime, eventName and targetUrl', async () => {
    const { call } = await publicSandbox();
    const answer = await call('POST', '/subscriptions/v1/create', {
      body: { eventName: 'NPPReceivePayment', targetUrl: 'http://127.0.0.1:9/hook' },
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(/"id":\d+[,}]/);
    expect(answer.body).toMatchObject({
      status: 'Ok',
      eventName: 'NPPReceivePayment',
      targetUrl: 'http://127.0.0.1:9/hook',
      dateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
    expect(answer.body).not.toHaveProperty('subscriptionId');
  });

  it('when the delivery report is read, then webhookId is a JSON integer with every digit (even above 2^53) and lastRetryDateTime a string', async () => {
    const { call, sandbox } = await publicSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const paid = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    const [webhookId] = paid.body.webhookIds as string[];
    // A Webhookid a double cannot hold (2^63 - 1), as the platform's may be.
    const [sent] = sandbox.deps.store.state.notifications;
    sandbox.deps.store.state.notifications.push({
      ...sent!,
      webhookId: '9223372036854775807',
    });
    const day = String((paid.body.payment as Record<string, string>).DateTime).slice(0, 10);
    const report = await call('GET', `/subscriptions/v1/report/${day}`);
    expect(report.status).toBe(200);
    expect(report.text).toContain(`"webhookId":${webhookId},`);
    expect(report.text).toContain('"webhookId":9223372036854775807,');
    const [row] = report.body.notifications as Record<string, unknown>[];
    expect(typeof row?.webhookId).toBe('number');
    expect(row?.lastRetryDateTime).toBe('');
    expect(report.body).toMatchObject({ status: 'Ok', durationMs: expect.any(Number) });
  });
});
