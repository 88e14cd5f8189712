import { describe, expect, it } from 'vitest';
import { CREDENTIALS, startTestSandbox, subscribe, startSubscriber } from './support.ts';
import {
  PAYID,
  basic,
  expectRefusal,
  newWallet,
  paidOut,
  refund,
  refundablePayment,
} from './scene.ts';

const interfaceSandbox = () => startTestSandbox({ dialect: 'interface' });

describe('the interface dialect: authentication', () => {
  it('when a call carries a bearer token or Basic mAccount:key, then 401; Basic API key alone is taken', async () => {
    const { call } = await interfaceSandbox();
    const token = await call('POST', '/au/security/oauth-v1/Token', {
      auth: basic(CREDENTIALS.mAccount, CREDENTIALS.apiKey),
    });
    expect(token.status).toBe(200);
    for (const auth of [
      `Bearer ${String(token.body.token)}`,
      basic(CREDENTIALS.mAccount, CREDENTIALS.apiKey),
      basic(CREDENTIALS.apiKey, 'x'),
      'none',
    ]) {
      const answer = await call('GET', '/mWallet/v1/search', { auth });
      expect(answer.status, auth).toBe(401);
      expect(answer.body.status).toBe('Unauthorized');
    }
    expect((await call('GET', '/mWallet/v1/search')).status).toBe(200);
  });
});

describe('the interface dialect: PayID enquiry', () => {
  it('when asked on v1, then 404; on v2, then camelCase with payIdStatus', async () => {
    const { call } = await interfaceSandbox();
    await call('POST', '/sandbox/payids', { body: PAYID });
    const v1 = await call('POST', '/receivables/v1/payid/payIdEnquiry', {
      body: { payId: PAYID.payId },
    });
    expect(v1.status).toBe(404);
    expect(v1.body.statusDescription).toBe('No such endpoint');
    const v2 = await call('POST', '/receivables/v2/payid/payIdEnquiry', {
      body: { payId: PAYID.payId },
    });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ payIdStatus: 'Enable', bankAccountNumber: '419001918' });
    expect(v2.body.Status).toBeUndefined();
  });

  it('when payId is missing or not text, then 400 naming it', async () => {
    const { call } = await interfaceSandbox();
    const path = '/receivables/v2/payid/payIdEnquiry';
    expectRefusal(
      await call('POST', path, { body: { PayId: PAYID.payId } }),
      'Validation failed: payId: is required',
    );
    expectRefusal(
      await call('POST', path, { body: { payId: 5 } }),
      'Validation failed: payId: must be text',
    );
  });
});

describe('the interface dialect: wallets', () => {
  it('when searched by `identifier`, then the parameter is ignored (every wallet); by clientUniqueIdentifier, found with text flags, ABN and maximumBalance', async () => {
    const { call } = await interfaceSandbox();
    const jane = await newWallet(call);
    await newWallet(call, { email: 'bob@example.com', mobile: '0400000000' });
    const ignored = await call('GET', '/mWallet/v1/search?identifier=jane%40example.com');
    expect(ignored.body.mWallets).toHaveLength(2);
    const found = await call('GET', '/mWallet/v1/search?clientUniqueIdentifier=jane%40example.com');
    const wallets = found.body.mWallets as Record<string, unknown>[];
    expect(wallets.map((w) => w.accountNumber)).toEqual([jane.accountNumber]);
    expect(wallets[0]).toMatchObject({
      isOnHold: 'false',
      isClosed: 'false',
      isStolen: 'false',
      isRegistered: 'true',
      ABN: '',
      financials: expect.objectContaining({ maximumBalance: 10000 }),
    });
  });

  it('when the pin is a JSON number, then 400 `pin: must be text`; lower-case email and abn are not read', async () => {
    const { call } = await interfaceSandbox();
    const wallet = await newWallet(call, { pin: '0123' });
    const update = (body: Record<string, unknown>) =>
      call('POST', '/mWallet/v1/update', {
        body: { accountNumber: wallet.accountNumber, ...body },
      });
    const numeric = await update({ pin: 123 });
    expectRefusal(numeric, 'Validation failed: pin: must be text');
    expect(numeric.body.errorCode).toBe('ValidationError');
    expectRefusal(await update({}), 'Validation failed: pin: is required');
    // `phone` with the public `email`: Email is missing, as the interface reads it.
    expectRefusal(
      await update({ pin: '0123', phone: '0499 111 222', email: 'new@example.com' }),
      'Validation failed: Email: phone and Email must be given together',
    );
    const ignored = await update({ pin: '0123', abn: '51 824 753 556' });
    expect(ignored.status).toBe(200);
    expect((ignored.body.mWallet as Record<string, unknown>).ABN).toBe('');
  });

  it('when the update is in the interface shape, then it is made and answered with accountNumber and mWallet', async () => {
    const { call } = await interfaceSandbox();
    const wallet = await newWallet(call, { pin: '0123' });
    const answer = await call('POST', '/mWallet/v1/update', {
      body: {
        accountNumber: wallet.accountNumber,
        pin: '0123',
        phone: '0499 111 222',
        Email: 'New@Example.com',
        ABN: '51 824 753 556',
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.accountNumber).toBe(wallet.accountNumber);
    expect(answer.body.mWallet).toMatchObject({
      email: 'new@example.com',
      contactPhone: '0499111222',
      ABN: '51824753556',
      isOnHold: 'false',
    });
  });
});

describe('the interface dialect: refund', () => {
  it('when refundAmount is a JSON number, then 400 `refundAmount: must be text` and nothing is refunded', async () => {
    const { call } = await interfaceSandbox();
    const id = await refundablePayment(call);
    expectRefusal(
      await refund(call, { UniqueReference: 'r-1', originalTransactionId: id, refundAmount: 40 }),
      'Validation failed: refundAmount: must be text',
    );
    expectRefusal(
      await refund(call, { UniqueReference: 'r-1', refundAmount: '40.00' }),
      'Validation failed: originalTransactionId: is required (or paymentInitiationUid, for PayTo)',
    );
    expect((await paidOut(call, id)).refunds).toEqual([]);
  });

  it('when only the lower-case uniqueReference is sent, then it is refunded without a nonce, and a repeat refunds again', async () => {
    const { call, sandbox } = await interfaceSandbox();
    const id = await refundablePayment(call);
    const body = { uniqueReference: 'lost', originalTransactionId: id, refundAmount: '40.00' };
    const first = await refund(call, body);
    const second = await refund(call, body);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.transactionId).not.toBe(first.body.transactionId);
    expect(first.body.callerUniqueReference).toBe('');
    const paid = await paidOut(call, id);
    expect(paid.refunds.map((r) => [r.uniqueReference, r.amount])).toEqual([
      [null, '40.00'],
      [null, '40.00'],
    ]);
    expect(paid.refundedTotal).toBe('80.00');
    // Stored with no nonce at all, not an empty one a later request could match.
    expect(sandbox.deps.store.state.refunds[0]).not.toHaveProperty('uniqueReference');
  });

  it('when UniqueReference is repeated, then the first result comes back and one refund is made', async () => {
    const { call } = await interfaceSandbox();
    const id = await refundablePayment(call);
    const body = { UniqueReference: 'once', originalTransactionId: id, refundAmount: '40.00' };
    const first = await refund(call, body);
    const again = await refund(call, body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      callerUniqueReference: 'once',
      feeAmountIncludingGst: 0.66,
    });
    expect(Number.isInteger(first.body.transactionId)).toBe(true);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    expect(await paidOut(call, id)).toMatchObject({
      refunds: [{ uniqueReference: 'once', originalTransactionId: id, amount: '40.00' }],
      refundedTotal: '40.00',
    });
  });

  it('when a PayTo payment is named by paymentInitiationUid, then it is refunded', async () => {
    const { call } = await interfaceSandbox();
    const paid = await call('POST', '/sandbox/payments', {
      body: { event: 'PayToReceivePayment', amount: '19.99' },
    });
    await call('POST', '/sandbox/clock', { body: { seconds: 300 } });
    const payment = paid.body.payment as Record<string, string>;
    const answer = await refund(call, {
      UniqueReference: 'p-1',
      paymentInitiationUid: payment.paymentInitiationUid,
      refundAmount: '19.99',
    });
    expect(answer.status, answer.text).toBe(200);
    expect((await paidOut(call, payment.TransactionId!)).refundedTotal).toBe('19.99');
  });
});

describe('the interface dialect: PayTo report and subscriptions', () => {
  it('when the caller accepts only CSV, then 406; JSON is answered, and the public filters are ignored', async () => {
    const { call } = await interfaceSandbox();
    await call('POST', '/sandbox/payments', {
      body: { event: 'PayToReceivePayment', amount: '10.00', DateTime: '2024-03-05T09:00:00' },
    });
    const path = '/paytoreceivables/v1/report/20240305000000';
    const csv = await call('GET', path, { headers: { Accept: 'text/csv' } });
    expect(csv.status).toBe(406);
    expect(csv.body.status).toBe('NotAcceptable');
    const json = await call('GET', `${path}?transactionType=DE`, {
      headers: { Accept: 'application/json' },
    });
    expect(json.status).toBe(200);
    expect(json.body.ndeFileDetails).toHaveLength(1);
  });

  it('when a subscription is created and delivered, then the answers are as today (subscriptionId, text webhookId)', async () => {
    const { call } = await interfaceSandbox();
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const paid = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    const day = String((paid.body.payment as Record<string, string>).DateTime).slice(0, 10);
    const report = await call('GET', `/subscriptions/v1/report/${day}`);
    const [row] = report.body.notifications as Record<string, unknown>[];
    expect(typeof row?.webhookId).toBe('string');
    expect(row?.lastRetryDateTime).toBeNull();
  });
});
