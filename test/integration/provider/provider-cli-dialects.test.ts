import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyDay } from '../../../src/lib/sydney-time.ts';
import {
  CREDENTIALS,
  startTestSandbox,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import { paymentStoredThroughSandbox } from '../../support/provider-sandbox.ts';
import { runMain } from '../../support/receiver-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Every `npm run provider` command, run as an operator runs it (its own process, configured by
 * the environment, PROVIDER_DIALECT left at auto), against a sandbox strict to one description
 * of the platform and then to the other, through real HTTP. Each must succeed (exit 0).
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

async function provider(env: Record<string, string>, args: string[], extra = {}) {
  const running = runMain('provider', { ...env, ...extra }, { args });
  const code = await running.exited;
  return { code, output: running.output() };
}

async function platformWithHistory(dialect: 'interface' | 'public') {
  const sandbox = await startTestSandbox({ dialect });
  const paid = await paymentStoredThroughSandbox(database.db, sandbox, { amount: '25.00' });
  // Both payments before the clock moves, so both reports are of the day they happened (the
  // sandbox's clock, moved 5 minutes, may be past Sydney midnight already).
  const day = sydneyDay(Date.now());
  await sandbox.call('POST', '/sandbox/payments', {
    body: { event: 'PayToReceivePayment', amount: '12.34' },
  });
  // Refunds wait 5 minutes after a payment: both sides' clocks are moved past that.
  await sandbox.call('POST', '/sandbox/clock', { body: { seconds: 301 } });
  await database.query(
    `UPDATE npp_payments SET received_at = received_at - interval '301 seconds'`,
  );
  await sandbox.call('POST', '/sandbox/payids', {
    body: { payId: 'shop@example.com.au', payIdName: 'Shop', bankAccountNumber: '12345678' },
  });
  const wallet = await sandbox.call('POST', '/sandbox/wallets', {
    body: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      mobile: '0412345678',
      balance: '1.00',
      pin: '0421',
    },
  });
  expect(wallet.status, wallet.text).toBe(200);
  return {
    sandbox,
    day,
    transactionId: paid.transactionId,
    webhookId: paid.webhookId,
    walletNumber: (wallet.body as { accountNumber: string }).accountNumber,
  };
}

const environment = (sandbox: TestSandbox): Record<string, string> => ({
  PROVIDER_BASE_URL: sandbox.url,
  PROVIDER_AUTH_URL: sandbox.url,
  PROVIDER_API_KEY: CREDENTIALS.apiKey,
  PROVIDER_MACCOUNT: CREDENTIALS.mAccount,
  PROVIDER_TIMEOUT_MS: '5000',
  SIGNING_KEY_ALLOW_HTTP: 'true',
  DATABASE_URL: database.url,
  LOG_LEVEL: 'silent',
});

for (const dialect of ['interface', 'public'] as const) {
  describe(`npm run provider against a platform strict to the ${dialect === 'interface' ? 'interface document' : 'public reference'}`, () => {
    it(
      'when every command is run from the CLI, then each succeeds',
      { timeout: 120_000 },
      async () => {
        const platform = await platformWithHistory(dialect);
        const env = environment(platform.sandbox);
        const today = platform.day;
        const commands: [string, string[], Record<string, string>?, RegExp?][] = [
          ['token', [], {}, /expiresAt/],
          ['payid-enquiry', ['--pay-id', 'shop@example.com.au'], {}, /"payIdName": "Shop"/],
          ['wallet-search', ['--identifier', 'ada@example.com'], {}, /Ada Lovelace/],
          // No --name: the public reference requires one, and the client sends the current name.
          [
            'wallet-update',
            ['--account-number', platform.walletNumber, '--nick-name', 'Ada'],
            { WALLET_PIN: '0421' },
            /"nickName": "Ada"/,
          ],
          [
            'refund',
            [
              '--transaction-id',
              platform.transactionId,
              '--caller-reference',
              `rma-${dialect}`,
              '--amount',
              '5.00',
            ],
            {},
            /"state": "succeeded"/,
          ],
          [
            'refund',
            [
              '--transaction-id',
              platform.transactionId,
              '--caller-reference',
              `rma-${dialect}`,
              '--amount',
              '5.00',
            ],
            {},
            /"replayed": true/,
          ],
          [
            'refunds',
            ['--transaction-id', platform.transactionId],
            {},
            /"caller_reference": "rma-/,
          ],
          ['payto-report', ['--date', today], {}, /"count": 1/],
          [
            'subscriptions',
            [
              '--event',
              'PayToReceivePayment',
              '--target-url',
              'https://merchant.example/webhooks/PayToReceivePayment',
            ],
            { SUBSCRIPTION_SECURITY_TOKEN: 'Basic c2VjcmV0' },
            /PayToReceivePayment/,
          ],
          ['delivery-report', ['--date', today], {}, new RegExp(platform.webhookId)],
          ['resend', ['--webhook-id', platform.webhookId], {}, /"status": "Ok"/],
        ];
        for (const [command, args, extra, expected] of commands) {
          const { code, output } = await provider(env, [command, ...args], extra);
          expect(code, `${command}: ${output}`).toBe(0);
          if (expected) expect(output, command).toMatch(expected);
        }
        const paid = await platform.sandbox.call(
          'GET',
          `/sandbox/refunds?transactionId=${platform.transactionId}`,
        );
        expect((paid.body as { refundedTotal: string }).refundedTotal).toBe('5.00');
      },
    );
  });
}
