import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { ProviderError } from '../../src/platform/client/protocol/provider-error.ts';
import { refundStoredPayment } from '../../src/platform/refunds/refund-stored-payment.ts';
import { withProviderTables } from '../../src/platform/storage/tables.ts';
import {
  CREDENTIALS,
  startTestSandbox,
  type TestSandbox,
} from '../../tools/sandbox/test/support.ts';
import { runMain } from '../support/receiver-process.ts';
import { paymentStoredThroughSandbox, sandboxProviderClient } from '../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

/**
 * Money moves once, whatever the platform answers. Each fault strikes AFTER the platform has
 * made the refund (its answer is replaced by a 5xx, a hang, a dropped connection, an oversized
 * or unreadable 2xx, a non-Ok 2xx), then the retries get other answers; then the same command
 * runs again. Against a sandbox strict to each description of the platform, through real HTTP,
 * counting what the sandbox paid out, not what our table says.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());
beforeEach(() => database.query('TRUNCATE webhook_deliveries, refunds CASCADE'));

const LATER_MS = 301_000;
const REFUND_PATH = '/receivables/v2/refund';

interface Fault {
  kind: 'after-action' | 'endpoint-error';
  count: number;
  answer?: 'status' | 'hang' | 'drop' | 'oversized' | 'unreadable' | 'not-ok';
  status?: number;
}

async function storedPayment(dialect: 'interface' | 'public') {
  const sandbox = await startTestSandbox({ dialect });
  const { transactionId } = await paymentStoredThroughSandbox(database.db, sandbox);
  await sandbox.call('POST', '/sandbox/clock', { body: { seconds: LATER_MS / 1000 } });
  return { sandbox, transactionId };
}

function refunder(sandbox: TestSandbox, options: { timeoutMs?: number; offsetMs?: number } = {}) {
  const deps = {
    db: withProviderTables(database.db),
    client: sandboxProviderClient(sandbox.url, { timeoutMs: options.timeoutMs ?? 2000 }),
    logger: createLogger('silent'),
    now: () => new Date(Date.now() + LATER_MS + (options.offsetMs ?? 0)),
  };
  return (callerReference: string, amount = '40.00') =>
    refundStoredPayment(deps, { transactionId: lastTransactionId, callerReference, amount });
}
let lastTransactionId = '';

async function arm(sandbox: TestSandbox, faults: Fault[]) {
  for (const fault of faults) {
    const answer = await sandbox.call('POST', '/sandbox/faults', {
      body: { ...fault, path: REFUND_PATH },
    });
    expect(answer.status, answer.text).toBe(200);
  }
}

/** What the sandbox paid out for the payment. */
async function platformRefunded(sandbox: TestSandbox, transactionId: string): Promise<string> {
  const answer = await sandbox.call('GET', `/sandbox/refunds?transactionId=${transactionId}`);
  return (answer.body as { refundedTotal: string }).refundedTotal;
}

/** What our table says was refunded (succeeded) and holds back (pending or unknown). */
async function ledger(transactionId: string) {
  const [row] = await database.query<{ refunded: string; reserved: string; rows: string }>(
    `SELECT coalesce(sum(amount) FILTER (WHERE state = 'succeeded'), 0)::numeric(12,2)::text AS refunded,
            coalesce(sum(amount) FILTER (WHERE state IN ('pending', 'unknown')), 0)::numeric(12,2)::text AS reserved,
            count(*)::text AS rows
       FROM refunds WHERE transaction_id = $1`,
    [transactionId],
  );
  return row!;
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'succeeded',
    (error: unknown) =>
      error instanceof ProviderError || (error as Error).name === 'RefundInDoubtError'
        ? ((error as Error & { refund?: { state: string } }).refund?.state ??
          (error as ProviderError).kind)
        : String(error),
  );

const STATUS_PATH = '/financial/v2/status/';

/**
 * The platform's status look-up answers "not found" for every reference, as one that does not
 * cover refunds would: no evidence either way, so a refund in doubt stays in doubt.
 */
async function lookUpFindsNothing(sandbox: TestSandbox) {
  const answer = await sandbox.call('POST', '/sandbox/faults', {
    body: { kind: 'endpoint-error', count: 100, status: 404, path: STATUS_PATH },
  });
  expect(answer.status, answer.text).toBe(200);
}

/** The fault table: what strikes after the refund was made, and what the first run records. */
const FAULTS: { name: string; faults: Fault[]; first: 'succeeded' | 'unknown' }[] = [
  ...[429, 408, 400].map((later) => ({
    name: `a 500 after the refund, then ${later} on every retry`,
    faults: [
      { kind: 'after-action' as const, count: 1, answer: 'status' as const, status: 500 },
      { kind: 'endpoint-error' as const, count: 3, status: later },
    ],
    first: 'unknown' as const,
  })),
  {
    name: 'a hang after the refund (the client times out), then the retry',
    faults: [{ kind: 'after-action', count: 1, answer: 'hang' }],
    first: 'succeeded',
  },
  {
    name: 'a dropped connection after the refund, then 429 on every retry',
    faults: [
      { kind: 'after-action', count: 1, answer: 'drop' },
      { kind: 'endpoint-error', count: 3, status: 429 },
    ],
    first: 'unknown',
  },
  {
    name: 'a 2xx over the size cap on every attempt',
    faults: [{ kind: 'after-action', count: 4, answer: 'oversized' }],
    first: 'unknown',
  },
  {
    name: 'an HTML 2xx, then 400 on every retry',
    faults: [
      { kind: 'after-action', count: 1, answer: 'unreadable' },
      { kind: 'endpoint-error', count: 3, status: 400 },
    ],
    first: 'unknown',
  },
  {
    name: 'a 2xx whose status is not Ok',
    faults: [{ kind: 'after-action', count: 1, answer: 'not-ok' }],
    first: 'unknown',
  },
];

for (const dialect of ['interface', 'public'] as const) {
  describe(`refund faults against a platform that follows the ${dialect === 'interface' ? 'interface document' : 'public reference'}`, () => {
    for (const { name, faults, first } of FAULTS) {
      it(`when ${name}, then the first run records ${first}, the re-run never pays twice, and the sandbox's total equals the ledger's`, async () => {
        const { sandbox, transactionId } = await storedPayment(dialect);
        lastTransactionId = transactionId;
        await lookUpFindsNothing(sandbox);
        await arm(sandbox, faults);
        const refund = refunder(sandbox, { timeoutMs: 500 });
        expect(await outcome(refund('return-1'))).toBe(first);
        expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
        const afterFirst = await ledger(transactionId);
        // Never less held back than was paid: an unknown refund keeps its amount reserved.
        expect(Number(afterFirst.refunded) + Number(afterFirst.reserved)).toBe(40);
        // Another refund under a new reference finds nothing left.
        expect(await outcome(refund('return-2', '0.01'))).toBe('invalid-request');
        await sandbox.call('DELETE', '/sandbox/faults');
        const again = await refund('return-1');
        expect(again.refund.state).toBe('succeeded');
        expect(again.resumed || again.replayed).toBe(true);
        expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
        expect(await ledger(transactionId)).toEqual({
          refunded: '40.00',
          reserved: '0.00',
          rows: '1',
        });
      });
    }

    it('when the same caller reference is used twice after a success, then the second answers the record and sends nothing', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      lastTransactionId = transactionId;
      const refund = refunder(sandbox);
      const first = await refund('order-9', '15.00');
      const second = await refund('order-9', '15.00');
      expect(second).toMatchObject({ replayed: true, refund: { state: 'succeeded' } });
      expect(second.refund.refund_transaction_id).toBe(first.refund.refund_transaction_id);
      expect(await platformRefunded(sandbox, transactionId)).toBe('15.00');
      // The dialect the platform took is remembered on the row.
      expect(first.refund.dialect).toBe(dialect);
    });

    it('when two commands with the same caller reference run at once, then one refund is made', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      lastTransactionId = transactionId;
      const refund = refunder(sandbox);
      const results = await Promise.all([outcome(refund('order-3')), outcome(refund('order-3'))]);
      // The second finds the first in flight (refused, nothing sent) or, if it comes later,
      // already done (the record is answered): never a second refund.
      expect(results).toContain('succeeded');
      for (const result of results) expect(['succeeded', 'invalid-request']).toContain(result);
      expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
      expect(await ledger(transactionId)).toEqual({
        refunded: '40.00',
        reserved: '0.00',
        rows: '1',
      });
    });

    it('when the run is killed between the call and the record, then the same command resumes the same nonce at once and the platform pays once', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      await database.query(
        `UPDATE npp_payments SET received_at = received_at - interval '301 seconds'`,
      );
      // The platform refunds, then never answers: the process is killed while it waits.
      await arm(sandbox, [{ kind: 'after-action', count: 1, answer: 'hang' }]);
      const args = ['refund', '--transaction-id', transactionId, '--caller-reference', 'return-5'];
      const env = {
        PROVIDER_BASE_URL: sandbox.url,
        PROVIDER_AUTH_URL: sandbox.url,
        PROVIDER_API_KEY: CREDENTIALS.apiKey,
        PROVIDER_TIMEOUT_MS: '60000',
        SIGNING_KEY_ALLOW_HTTP: 'true',
        DATABASE_URL: database.url,
        LOG_LEVEL: 'silent',
      };
      const dying = runMain('provider', env, { args });
      await expect
        .poll(() => platformRefunded(sandbox, transactionId), { timeout: 15_000 })
        .toBe('40.00');
      dying.child.kill('SIGKILL');
      await dying.exited;
      expect(await ledger(transactionId)).toEqual({
        refunded: '0.00',
        reserved: '40.00',
        rows: '1',
      });
      const again = runMain('provider', env, { args });
      expect(await again.exited, again.output()).toBe(0);
      expect(again.output()).toContain('"resumed": true');
      expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
      expect(await ledger(transactionId)).toEqual({
        refunded: '40.00',
        reserved: '0.00',
        rows: '1',
      });
    });

    it('when a run is still waiting for the platform, then the same command is refused and sends nothing', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      lastTransactionId = transactionId;
      await arm(sandbox, [{ kind: 'after-action', count: 1, answer: 'hang' }]);
      const waiting = refunder(sandbox, { timeoutMs: 3000 })('return-6');
      await expect.poll(() => platformRefunded(sandbox, transactionId)).toBe('40.00');
      expect(await outcome(refunder(sandbox)('return-6'))).toBe('invalid-request');
      // The first run's retry gets the platform's first answer: one refund, recorded.
      expect((await waiting).refund.state).toBe('succeeded');
      expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
      expect(await ledger(transactionId)).toEqual({
        refunded: '40.00',
        reserved: '0.00',
        rows: '1',
      });
    });
  });
}
