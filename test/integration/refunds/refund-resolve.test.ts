import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOperatorConfig } from '../../../src/cli/config.ts';
import { PROVIDER_COMMANDS } from '../../../src/platform/cli/commands.ts';
import { runCli } from '../../../src/platform/cli/run-cli.ts';
import {
  CREDENTIALS,
  startTestSandbox,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import { paymentStoredThroughSandbox } from '../../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The operator's way out of a refund in doubt (`npm run provider -- refund-resolve`), in process
 * against a real database and the sandbox over real HTTP: a refund answered HTTP 200 with a
 * non-Ok status stays `unknown` for ever otherwise (no answer settles it, and the platform's
 * status look-up finds nothing). The decision is recorded with who and on what evidence; a
 * row not in doubt is refused.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());
beforeEach(() => database.query('TRUNCATE webhook_deliveries, refunds CASCADE'));

const REFUND_PATH = '/receivables/v2/refund';

async function cli(argv: string[], env: Record<string, string> = {}) {
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

async function platform() {
  const sandbox = await startTestSandbox({ dialect: 'public' });
  const { transactionId } = await paymentStoredThroughSandbox(database.db, sandbox);
  await sandbox.call('POST', '/sandbox/clock', { body: { seconds: 301 } });
  await database.query(
    `UPDATE npp_payments SET received_at = received_at - interval '301 seconds'`,
  );
  const env = {
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_AUTH_URL: sandbox.url,
    PROVIDER_API_KEY: CREDENTIALS.apiKey,
    PROVIDER_DIALECT: 'public',
    PROVIDER_TIMEOUT_MS: '5000',
    SIGNING_KEY_ALLOW_HTTP: 'true',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
  };
  const refund = (reference: string, amount?: string) =>
    cli(
      [
        'refund',
        '--transaction-id',
        transactionId,
        '--caller-reference',
        reference,
        ...(amount === undefined ? [] : ['--amount', amount]),
      ],
      env,
    );
  const resolve = (reference: string, outcome: string, extra: string[] = []) =>
    cli(
      [
        'refund-resolve',
        '--caller-reference',
        reference,
        '--outcome',
        outcome,
        '--by',
        'Ada Operator',
        '--evidence',
        'bank statement 2026-11-28 line 14',
        ...extra,
      ],
      env,
    );
  return { sandbox, transactionId, env, refund, resolve };
}

async function arm(sandbox: TestSandbox, fault: Record<string, unknown>) {
  const answer = await sandbox.call('POST', '/sandbox/faults', {
    body: { path: REFUND_PATH, ...fault },
  });
  expect(answer.status, answer.text).toBe(200);
}

async function paid(sandbox: TestSandbox, transactionId: string): Promise<string> {
  const answer = await sandbox.call('GET', `/sandbox/refunds?transactionId=${transactionId}`);
  return (answer.body as { refundedTotal: string }).refundedTotal;
}

async function row(reference: string) {
  const [found] = await database.query<Record<string, unknown>>(
    `SELECT state, attempts, resolved_by, resolution_evidence, resolved_at IS NOT NULL AS resolved
       FROM refunds WHERE caller_reference = $1`,
    [reference],
  );
  return found;
}

describe('npm run provider -- refund-resolve', () => {
  it('when --help is asked, then it names every option and exits 0', async () => {
    const help = await cli(['refund-resolve', '--help']);
    expect(help.code).toBe(0);
    for (const option of ['--caller-reference', '--outcome', '--by', '--evidence']) {
      expect(help.out).toContain(option);
    }
  });

  it('when a refund refused on HTTP 200 with a non-Ok status (nothing paid) is resolved not-paid with evidence, then its amount is released, recorded with who and why, and the same command answers that record', async () => {
    const { sandbox, transactionId, refund, resolve } = await platform();
    await arm(sandbox, { kind: 'not-ok', count: 2 });
    const first = await refund('return-1');
    expect(first.code, first.err).toBe(1);
    expect(first.err).toContain('still in doubt');
    // Run again: still in doubt, the way it stayed for ever before the operator step.
    expect((await refund('return-1')).err).toContain('still in doubt');
    expect(await row('return-1')).toMatchObject({ state: 'unknown', attempts: 2 });

    const resolved = await resolve('return-1', 'not-paid');
    expect(resolved.code, resolved.err).toBe(0);
    expect(await row('return-1')).toEqual({
      state: 'failed',
      attempts: 2,
      resolved_by: 'Ada Operator',
      resolution_evidence: 'bank statement 2026-11-28 line 14',
      resolved: true,
    });
    const replay = await refund('return-1');
    expect(replay.code).toBe(1);
    expect(replay.err).toContain('recorded as not paid by Ada Operator');
    const next = await refund('return-2');
    expect(next.code, next.err).toBe(0);
    expect(await paid(sandbox, transactionId)).toBe('40.00');
  });

  it('when a refund the platform made (answered non-Ok) is resolved paid, then it counts as refunded and nothing more can be refunded', async () => {
    const { sandbox, transactionId, refund, resolve } = await platform();
    await arm(sandbox, { kind: 'after-action', count: 1, answer: 'not-ok' });
    await sandbox.call('POST', '/sandbox/faults', {
      body: { kind: 'endpoint-error', count: 10, status: 404, path: '/financial/v2/status/' },
    });
    expect((await refund('return-3')).code).toBe(1);
    const resolved = await resolve('return-3', 'paid');
    expect(resolved.code, resolved.err).toBe(0);
    expect(await row('return-3')).toMatchObject({ state: 'succeeded', resolved: true });
    const more = await refund('return-4');
    expect(more.code).toBe(2);
    expect(more.err).toContain('nothing of 40.00 is left to refund');
    expect(await paid(sandbox, transactionId)).toBe('40.00');
  });

  it('when the refund is not in doubt or not known, then it is refused with exit 1 and nothing changes; bad usage exits 2', async () => {
    const { refund, resolve } = await platform();
    expect((await refund('return-5', '10.00')).code).toBe(0);
    const settled = await resolve('return-5', 'not-paid');
    expect(settled.code).toBe(1);
    expect(settled.err).toContain('the refund is succeeded, not in doubt');
    expect(await row('return-5')).toMatchObject({ state: 'succeeded', resolved_by: null });
    const unknown = await resolve('no-such-return', 'paid');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no refund was asked for under this reference');
    expect((await resolve('return-5', 'maybe')).code).toBe(2);
    expect((await cli(['refund-resolve', '--caller-reference', 'return-5'])).code).toBe(2);
  });

  it('when a resolution is written without a name or evidence, or on a refund in doubt, then the database refuses it', async () => {
    const { sandbox, refund } = await platform();
    await arm(sandbox, { kind: 'not-ok', count: 1 });
    await refund('return-6');
    await expect(
      database.query(
        `UPDATE refunds SET state = 'failed', resolved_by = 'x' WHERE caller_reference = 'return-6'`,
      ),
    ).rejects.toThrow(/refunds_resolution_complete/);
    await expect(
      database.query(
        `UPDATE refunds SET resolved_by = 'x', resolved_at = now(), resolution_evidence = 'y'
          WHERE caller_reference = 'return-6'`,
      ),
    ).rejects.toThrow(/refunds_resolution_complete/);
  });
});
