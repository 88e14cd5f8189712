import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createProviderClient,
  type ProviderClientOptions,
} from '../../../src/platform/client/provider-client.ts';
import { ProviderError } from '../../../src/platform/client/protocol/provider-error.ts';
import { readDeliveryReport } from '../../../src/platform/client/report-pages.ts';
import { paytoDayStamp } from '../../../src/platform/client/requests/payto-report.ts';
import { sydneyDay } from '../../../src/lib/sydney-time.ts';
import {
  CREDENTIALS,
  eventually,
  startSubscriber,
  startTestSandbox,
  subscribe,
} from '../../../tools/sandbox/test/support.ts';

/**
 * Every endpoint of the client against the sandbox, through real HTTP on 127.0.0.1: one that
 * accepts every variant, and one strict to each description of the platform (the client's
 * dialect left at auto, as it ships).
 */
type SandboxDialect = 'any' | 'interface' | 'public';
let dialect: SandboxDialect = 'any';

async function setUp(overrides: Partial<ProviderClientOptions> = {}) {
  const sandbox = await startTestSandbox({ dialect });
  let signIns = 0;
  const counting: typeof fetch = (input, init) => {
    if (String(input).includes('/oauth-v1/Token')) signIns += 1;
    return fetch(input, init);
  };
  const client = createProviderClient({
    baseUrl: sandbox.url,
    authUrl: sandbox.url,
    apiKey: CREDENTIALS.apiKey,
    mAccount: CREDENTIALS.mAccount,
    timeoutMs: 5000,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    fetch: counting,
    ...overrides,
  });
  return { ...sandbox, client, signIns: () => signIns };
}

async function payment(
  call: Awaited<ReturnType<typeof setUp>>['call'],
  fields: Record<string, unknown>,
) {
  const answer = await call('POST', '/sandbox/payments', { body: fields });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { payment: { TransactionId: string }; webhookIds: string[] };
}

const advanceClock = async (call: Awaited<ReturnType<typeof setUp>>['call'], seconds: number) =>
  expect((await call('POST', '/sandbox/clock', { body: { seconds } })).status).toBe(200);

for (const sandboxDialect of ['any', 'interface', 'public'] as const)
  describe(`provider client against the sandbox (dialect ${sandboxDialect})`, () => {
    beforeEach(() => {
      dialect = sandboxDialect;
    });

    it('when signing in, then the JWT exp (60 minutes) is the expiry and the token is cached', async () => {
      const s = await setUp();
      const { expiresAt } = await s.client.signIn();
      const minutes = (Date.parse(expiresAt) - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(58);
      expect(minutes).toBeLessThanOrEqual(60);
      await s.client.signIn();
      expect(s.signIns()).toBe(1);
    });

    it('when the sign-in is refused (wrong key), then it is tried once and never again', async () => {
      const s = await setUp({ apiKey: 'wrong-key' });
      await expect(s.client.signIn()).rejects.toMatchObject({ kind: 'http', httpStatus: 401 });
      await expect(s.client.signIn()).rejects.toMatchObject({ kind: 'sign-in-refused' });
      await expect(s.client.signIn()).rejects.toMatchObject({ kind: 'sign-in-refused' });
      expect(s.signIns()).toBe(1);
    });

    it('when the PayTo report is asked for, then it carries Basic with the API key (as both descriptions say) and never signs in', async () => {
      const s = await setUp();
      const day = sydneyDay(Date.now());
      const report = await s.client.paytoReport({ date: paytoDayStamp(day) });
      // JSON rows carry the envelope; the public reference's CSV text has none.
      expect(report.problems).toEqual([]);
      if (dialect !== 'public') expect(report.envelope.status).toBe('Ok');
      await advanceClock(s.call, 61 * 60);
      await s.client.paytoReport({ date: paytoDayStamp(day) });
      expect(s.signIns()).toBe(0);
    });

    it('when a PayID is enquired, then its details come back; an invalid PayID is refused before sending', async () => {
      const s = await setUp();
      const registered = await s.call('POST', '/sandbox/payids', {
        body: { payId: 'shop@example.com.au', payIdName: 'Shop', bankAccountNumber: '12345678' },
      });
      expect(registered.status).toBe(200);
      const details = await s.client.payIdEnquiry({ payId: 'shop@example.com.au' });
      expect(details).toMatchObject({
        payIdName: 'Shop',
        bankAccountNumber: '12345678',
        payIdStatus: 'Enable',
      });
      const refused = await s.client
        .payIdEnquiry({ payId: 'not a payid' })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ kind: 'invalid-request', fieldErrors: [{ path: 'payId' }] });
    });

    it('when a wallet is searched and updated, then both answers are read (text booleans, money as decimal strings)', async () => {
      const s = await setUp();
      const created = await s.call('POST', '/sandbox/wallets', {
        body: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          mobile: '0412345678',
          balance: '12.50',
          pin: '1234',
        },
      });
      expect(created.status, created.text).toBe(200);
      const found = await s.client.walletSearch({ clientUniqueIdentifier: 'ADA@example.com' });
      expect(found.mWallets).toHaveLength(1);
      const wallet = found.mWallets[0]!;
      expect(wallet).toMatchObject({ isOnHold: false, financials: { actualBalance: '12.5' } });
      const updated = await s.client.walletUpdate({
        accountNumber: wallet.accountNumber!,
        pin: '1234',
        name: 'Ada King',
      });
      expect(updated.mWallet?.name).toBe('Ada King');
      await expect(
        s.client.walletUpdate({ accountNumber: wallet.accountNumber!, pin: '9999', name: 'X' }),
      ).rejects.toBeInstanceOf(ProviderError);
    });

    it('when a refund attempt meets a 500, then it is retried with the same UniqueReference and refunds once', async () => {
      const s = await setUp();
      const paid = await payment(s.call, { event: 'NPPReceivePayment', amount: '40.00' });
      await advanceClock(s.call, 301);
      await s.call('POST', '/sandbox/faults', {
        body: { kind: 'endpoint-error', count: 1, status: 500, path: '/receivables/v2/refund' },
      });
      const reference = `rf${randomUUID().replaceAll('-', '')}`;
      const request = {
        uniqueReference: reference,
        originalTransactionId: paid.payment.TransactionId,
        refundAmount: '15.00',
      };
      // Strict to the public reference, the first body (amount as text) is refused after the
      // 500: in doubt, the client does not switch dialects within the call; the same nonce sent
      // again learns the dialect from a clean refusal and gets the first result.
      const first = await s.client.refund(request).catch(async (error: unknown) => {
        expect(error).toMatchObject({ outcomeUnknown: true });
        return s.client.refund(request);
      });
      expect(first).toMatchObject({
        callerUniqueReference: reference,
        feeAmountIncludingGst: '0.66',
      });
      // Sent again (e.g. after a crash): the platform recognises the reference.
      const again = await s.client.refund(request);
      expect(again.transactionId).toBe(first.transactionId);
      // 25 of 40 still refundable: 30 is refused by the platform.
      await expect(
        s.client.refund({
          ...request,
          uniqueReference: `rf${randomUUID().replaceAll('-', '')}`,
          refundAmount: '30.00',
        }),
      ).rejects.toMatchObject({ kind: 'http', httpStatus: 400 });
    });

    it('when PayTo payments arrive, then the PayTo report lists them by transaction id with exact amounts', async () => {
      const s = await setUp();
      const paid = await payment(s.call, { event: 'PayToReceivePayment', amount: '99.95' });
      const report = await s.client.paytoReport({ date: paytoDayStamp(sydneyDay(Date.now())) });
      const receipt = report.receipts.find((r) => r.transactionId === paid.payment.TransactionId);
      expect(receipt?.amount).toBe('99.95');
    });

    it('when subscribing twice, then the second answer is a WebhookAlreadySubscribed error', async () => {
      const s = await setUp();
      const request = {
        eventName: 'NPPReceivePayment',
        targetUrl: 'https://receiver.example/webhooks/NPPReceivePayment',
        securityToken: 'Basic abc',
      };
      const created = await s.client.createSubscription(request);
      expect(created.envelope.status).toBe('Ok');
      await expect(s.client.createSubscription(request)).rejects.toMatchObject({
        status: 'WebhookAlreadySubscribed',
      });
    });

    it('when a delivery failed, then the delivery report shows it as Error and a resend delivers it again with the same Webhookid', async () => {
      const s = await setUp();
      const subscriber = await startSubscriber((_req, i) => (i < 2 ? 500 : 200));
      await subscribe(s.call, subscriber.url, ['NPPReceivePayment']);
      const paid = await payment(s.call, { event: 'NPPReceivePayment', amount: '5.00' });
      const webhookId = paid.webhookIds[0]!;
      await eventually(() => subscriber.received.length >= 2);
      let reported;
      for (let i = 0; i < 100; i += 1) {
        const rows = await readDeliveryReport(s.client, sydneyDay(Date.now()));
        reported = rows.find((row) => row.webhookId === webhookId);
        if (reported?.status === 'Error') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(reported).toMatchObject({
        webhookId,
        status: 'Error',
        eventName: 'NPPReceivePayment',
      });
      const answer = await s.client.resend({ webhookId });
      expect(answer.envelope.status).toBe('Ok');
      await eventually(() => subscriber.received.length === 3);
      expect(subscriber.received[2]!.headers.webhookid).toBe(webhookId);
      await expect(s.client.resend({ webhookId: '12345' })).rejects.toMatchObject({
        httpStatus: 400,
      });
    });
  });
