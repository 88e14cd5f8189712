import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOperatorConfig } from '../../../src/cli/config.ts';
import { PROVIDER_COMMANDS } from '../../../src/platform/cli/commands.ts';
import { runCli } from '../../../src/platform/cli/run-cli.ts';
import { CREDENTIALS, startTestSandbox } from '../../../tools/sandbox/test/support.ts';
import { paymentStoredThroughSandbox } from '../../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The public reference documents its 400 with no body. Against a platform strict to it whose
 * 400s say nothing (the sandbox with `bare400`), the client's first request in the interface
 * spelling is refused with an empty 400: a first-attempt 400 with nothing in doubt proves
 * nothing was done, so the client sends the public spelling once, and `wallet-update` and
 * `refund` succeed. Run as an operator runs them (PROVIDER_DIALECT left at auto), in process,
 * over real HTTP.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

async function cli(argv: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    'provider',
    PROVIDER_COMMANDS,
    {
      argv,
      env,
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      projectDir: process.cwd(),
    },
    loadOperatorConfig,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('a platform strict to the public reference whose 400s carry no body', () => {
  it('when wallet-update and refund are sent in the interface spelling first, then each falls back once and succeeds', async () => {
    const sandbox = await startTestSandbox({ dialect: 'public', bare400: true });
    // The platform's 400 really is bare.
    const bare = await sandbox.call('POST', '/receivables/v2/refund', { body: {} });
    expect(bare.status).toBe(400);
    expect(bare.text).toBe('');

    const { transactionId } = await paymentStoredThroughSandbox(database.db, sandbox);
    await sandbox.call('POST', '/sandbox/clock', { body: { seconds: 301 } });
    await database.query(
      `UPDATE npp_payments SET received_at = received_at - interval '301 seconds'`,
    );
    const wallet = await sandbox.call('POST', '/sandbox/wallets', {
      body: { name: 'Ada Lovelace', email: 'ada@example.com', mobile: '0412345678', pin: '0421' },
    });
    expect(wallet.status, wallet.text).toBe(200);
    const env = {
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_AUTH_URL: sandbox.url,
      PROVIDER_API_KEY: CREDENTIALS.apiKey,
      PROVIDER_MACCOUNT: CREDENTIALS.mAccount,
      PROVIDER_TIMEOUT_MS: '5000',
      SIGNING_KEY_ALLOW_HTTP: 'true',
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
    };

    const update = await cli(
      [
        'wallet-update',
        '--account-number',
        (wallet.body as { accountNumber: string }).accountNumber,
        '--nick-name',
        'Ada',
      ],
      { ...env, WALLET_PIN: '0421' },
    );
    expect(update.code, update.err).toBe(0);
    expect(update.out).toContain('"nickName": "Ada"');

    const refund = await cli(
      [
        'refund',
        '--transaction-id',
        transactionId,
        '--caller-reference',
        'rma-1',
        '--amount',
        '5.00',
      ],
      env,
    );
    expect(refund.code, refund.err).toBe(0);
    expect(refund.out).toContain('"state": "succeeded"');
    // The refused interface request and the public one: both counted.
    const [row] = await database.query<{ dialect: string; attempts: number }>(
      `SELECT dialect, attempts FROM refunds WHERE caller_reference = 'rma-1'`,
    );
    expect(row).toEqual({ dialect: 'public', attempts: 2 });
    const paid = await sandbox.call('GET', `/sandbox/refunds?transactionId=${transactionId}`);
    expect((paid.body as { refundedTotal: string }).refundedTotal).toBe('5.00');
  });
});
