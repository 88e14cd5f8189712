import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOperatorConfig } from '../../../src/cli/config.ts';
import { PROVIDER_COMMANDS } from '../../../src/platform/cli/commands.ts';
import { runCli } from '../../../src/platform/cli/run-cli.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { ProviderError } from '../../../src/platform/client/protocol/provider-error.ts';
import {
  refundStoredPayment,
  type RefundDeps,
} from '../../../src/platform/refunds/refund-stored-payment.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import {
  CREDENTIALS,
  startTestSandbox,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import { runMain } from '../../support/receiver-process.ts';
import {
  paymentStoredThroughSandbox,
  sandboxProviderClient,
} from '../../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

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
  kind: 'after-action' | 'endpoint-error' | 'not-ok';
  count: number;
  answer?: 'status' | 'hang' | 'drop' | 'oversized' | 'unreadable' | 'not-ok';
  status?: number;
}

async function storedPayment(dialect: 'interface' | 'public', amount = '40.00') {
  const sandbox = await startTestSandbox({ dialect });
  const { transactionId } = await paymentStoredThroughSandbox(database.db, sandbox, { amount });
  await sandbox.call('POST', '/sandbox/clock', { body: { seconds: LATER_MS / 1000 } });
  return { sandbox, transactionId };
}

function refunder(
  sandbox: TestSandbox,
  options: {
    timeoutMs?: number;
    offsetMs?: number;
    client?: ReturnType<typeof sandboxProviderClient>;
    lock?: RefundDeps['lock'];
  } = {},
) {
  const deps: RefundDeps = {
    db: withProviderTables(database.db),
    client:
      options.client ??
      sandboxProviderClient(sandbox.url, { timeoutMs: options.timeoutMs ?? 2000 }),
    logger: createLogger('silent'),
    now: () => new Date(Date.now() + LATER_MS + (options.offsetMs ?? 0)),
    ...(options.lock && { lock: options.lock }),
  };
  // `null`: no amount, i.e. all that is left.
  return (callerReference: string, amount: string | null = '40.00') =>
    refundStoredPayment(deps, {
      transactionId: lastTransactionId,
      callerReference,
      ...(amount !== null && { amount }),
    });
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

/**
 * The resume refused. Run 1: the platform makes the refund, then answers 500 to it and its
 * retries, and its status look-up finds nothing: the row is in doubt. Run 2, the same command:
 * the resume is refused (429 on every attempt, 400, 401, 403, or HTTP 200 with a non-Ok status),
 * which proves nothing about run 1's request. Run 3: a new caller reference asks for all that is
 * left. Run 4: the same command as runs 1 and 2, the platform answering again. Counted: what the
 * sandbox paid (its own record of refunds made) against the ledger.
 */
const RESUME_REFUSALS: { name: string; faults: Fault[]; attempts: number }[] = [
  {
    name: '429 on every attempt',
    faults: [{ kind: 'endpoint-error', count: 3, status: 429 }],
    attempts: 3,
  },
  {
    name: '400 with nothing named (then the other dialect, 400 too)',
    faults: [{ kind: 'endpoint-error', count: 2, status: 400 }],
    attempts: 2,
  },
  { name: '401', faults: [{ kind: 'endpoint-error', count: 1, status: 401 }], attempts: 1 },
  { name: '403', faults: [{ kind: 'endpoint-error', count: 1, status: 403 }], attempts: 1 },
  { name: 'HTTP 200 with a non-Ok status', faults: [{ kind: 'not-ok', count: 1 }], attempts: 1 },
];

/** Run 1 of every row: made, then 500 to the request and both retries (3 attempts). */
const MADE_THEN_500: Fault[] = [
  { kind: 'after-action', count: 1, answer: 'status', status: 500 },
  { kind: 'endpoint-error', count: 2, status: 500 },
];
/** In a public platform, run 1's first attempt (interface spelling) is refused, then public. */
const firstRunAttempts = (dialect: 'interface' | 'public') => (dialect === 'interface' ? 3 : 4);

/** The fault table's figures, printed when the file ends (the closing note uses them). */
const FIGURES: Record<string, string | number>[] = [];
afterAll(() => {
  if (FIGURES.length > 0) console.log(`refund fault table:\n${JSON.stringify(FIGURES, null, 1)}`);
});

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

const cliEnvironment = (sandbox: TestSandbox): Record<string, string> => ({
  PROVIDER_BASE_URL: sandbox.url,
  PROVIDER_AUTH_URL: sandbox.url,
  PROVIDER_API_KEY: CREDENTIALS.apiKey,
  PROVIDER_TIMEOUT_MS: '5000',
  SIGNING_KEY_ALLOW_HTTP: 'true',
  DATABASE_URL: database.url,
  LOG_LEVEL: 'silent',
});

/** A client whose refund answers wait at a gate: the test chooses which run records first. */
function gated(client: ReturnType<typeof sandboxProviderClient>) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let answered = false;
  const refund: typeof client.refund = async (...args) => {
    const settled = await client.refund(...args).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    answered = true;
    await opened;
    if ('error' in settled) throw settled.error;
    return settled.value;
  };
  return { client: { ...client, refund }, open, answered: () => answered };
}

/** A sender lock that is always granted: the lock was lost (its connection cut) under a run. */
const lostLock: RefundDeps['lock'] = () => Promise.resolve({ release: () => Promise.resolve() });

async function attemptsOf(callerReference: string): Promise<number> {
  const [row] = await database.query<{ attempts: number }>(
    'SELECT attempts FROM refunds WHERE caller_reference = $1',
    [callerReference],
  );
  return row?.attempts ?? -1;
}

for (const dialect of ['interface', 'public'] as const) {
  describe(`a refund in doubt whose resume is refused, against a platform strict to the ${dialect === 'interface' ? 'interface document' : 'public reference'}`, () => {
    for (const refusal of RESUME_REFUSALS) {
      it(`when the resume meets ${refusal.name}, then the refund stays in doubt with its amount held, a new reference finds nothing left, and the re-run settles it: the sandbox pays 40.00 once`, async () => {
        const { sandbox, transactionId } = await storedPayment(dialect, '80.00');
        lastTransactionId = transactionId;
        await lookUpFindsNothing(sandbox);
        await arm(sandbox, MADE_THEN_500);
        const refund = refunder(sandbox, { timeoutMs: 1000 });
        expect(await outcome(refund('return-1'))).toBe('unknown');

        await arm(sandbox, refusal.faults);
        const resumed = await outcome(refund('return-1'));
        // What run 2 left armed (a fault the old client never reached) must not reach run 3.
        await sandbox.call('DELETE', '/sandbox/faults');
        await lookUpFindsNothing(sandbox);
        const afterResume = await ledger(transactionId);
        // Run 3: a new reference for the same amount, then one more for all that is left.
        const sameAmount = await outcome(refund('return-2', '40.00'));
        const paid = await platformRefunded(sandbox, transactionId);
        const afterNew = await ledger(transactionId);
        const allThatIsLeft = await outcome(refund('return-3', null));
        const paidAfterAll = await platformRefunded(sandbox, transactionId);
        FIGURES.push({
          dialect,
          row: `resume refused: ${refusal.name}`,
          run2: resumed,
          'run3 (new ref, 40.00)': sameAmount,
          sandboxPaid: paid,
          ledgerRefunded: afterNew.refunded,
          ledgerHeld: afterNew.reserved,
          'run3b (new ref, all that is left)': allThatIsLeft,
          sandboxPaidAfter3b: paidAfterAll,
        });
        expect(resumed).toBe('unknown');
        expect(afterResume).toEqual({ refunded: '0.00', reserved: '40.00', rows: '1' });
        expect(sameAmount).toBe('succeeded');
        expect(paid).toBe('80.00');
        expect(afterNew).toEqual({ refunded: '40.00', reserved: '40.00', rows: '2' });
        expect(allThatIsLeft).toBe('invalid-request');
        expect(paidAfterAll).toBe('80.00');

        await sandbox.call('DELETE', '/sandbox/faults');
        const again = await refund('return-1');
        expect(again).toMatchObject({ resumed: true, refund: { state: 'succeeded' } });
        expect(await platformRefunded(sandbox, transactionId)).toBe('80.00');
        expect(await ledger(transactionId)).toEqual({
          refunded: '80.00',
          reserved: '0.00',
          rows: '2',
        });
        // Every HTTP request counted: run 1's, run 2's, and run 4's one.
        expect(again.refund.attempts).toBe(firstRunAttempts(dialect) + refusal.attempts + 1);
      });
    }

    it('when the run is killed between the call and the record and the resume meets 429 on every attempt, then the CLI says the refund is still in doubt (exit 1), a new reference finds nothing left, and the re-run settles it', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect, '80.00');
      await database.query(
        `UPDATE npp_payments SET received_at = received_at - interval '301 seconds'`,
      );
      await lookUpFindsNothing(sandbox);
      await arm(sandbox, [{ kind: 'after-action', count: 1, answer: 'hang' }]);
      const env = cliEnvironment(sandbox);
      const refundArgs = (reference: string, amount?: string) => [
        'refund',
        '--transaction-id',
        transactionId,
        '--caller-reference',
        reference,
        ...(amount === undefined ? [] : ['--amount', amount]),
      ];
      const args = refundArgs('return-5', '40.00');
      const dying = runMain('provider', { ...env, PROVIDER_TIMEOUT_MS: '60000' }, { args });
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

      // The CLI's default policy: 4 attempts, each answered 429.
      await arm(sandbox, [{ kind: 'endpoint-error', count: 4, status: 429 }]);
      const resumed = await cli(args, env);
      await sandbox.call('DELETE', '/sandbox/faults');
      await lookUpFindsNothing(sandbox);
      const afterResume = await ledger(transactionId);
      const sameAmount = await cli(refundArgs('return-6', '40.00'), env);
      const paid = await platformRefunded(sandbox, transactionId);
      const afterNew = await ledger(transactionId);
      const allThatIsLeft = await cli(refundArgs('return-7'), env);
      const paidAfterAll = await platformRefunded(sandbox, transactionId);
      FIGURES.push({
        dialect,
        row: 'killed between the call and the record, then 429 on every attempt of the resume',
        run2: `exit ${resumed.code}`,
        'run3 (new ref, 40.00)': `exit ${sameAmount.code}`,
        sandboxPaid: paid,
        ledgerRefunded: afterNew.refunded,
        ledgerHeld: afterNew.reserved,
        'run3b (new ref, all that is left)': `exit ${allThatIsLeft.code}`,
        sandboxPaidAfter3b: paidAfterAll,
      });
      expect(resumed.code, resumed.err).toBe(1);
      expect(resumed.err).toContain('is still in doubt');
      expect(resumed.err).toContain('"inDoubt": true');
      expect(afterResume).toEqual({ refunded: '0.00', reserved: '40.00', rows: '1' });
      expect(sameAmount.code, sameAmount.err).toBe(0);
      expect(paid).toBe('80.00');
      expect(afterNew).toEqual({ refunded: '40.00', reserved: '40.00', rows: '2' });
      expect(allThatIsLeft.code, allThatIsLeft.err).toBe(2);
      expect(allThatIsLeft.err).toContain('nothing of 80.00 is left to refund');
      expect(paidAfterAll).toBe('80.00');

      await sandbox.call('DELETE', '/sandbox/faults');
      const again = await cli(args, env);
      expect(again.code, again.err).toBe(0);
      expect(again.out).toContain('"resumed": true');
      expect(await platformRefunded(sandbox, transactionId)).toBe('80.00');
      expect(await ledger(transactionId)).toEqual({
        refunded: '80.00',
        reserved: '0.00',
        rows: '2',
      });
    });

    it("when the platform's status look-up answers the refund's own record, then a refund in doubt is settled as made in the same run", async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      lastTransactionId = transactionId;
      await arm(sandbox, MADE_THEN_500);
      const made = await refunder(sandbox, { timeoutMs: 1000 })('return-8');
      expect(made.refund).toMatchObject({
        state: 'succeeded',
        attempts: firstRunAttempts(dialect),
      });
      expect(made.refund.refund_transaction_id).not.toBeNull();
      expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
      expect(await ledger(transactionId)).toEqual({
        refunded: '40.00',
        reserved: '0.00',
        rows: '1',
      });
    });

    for (const first of ['success', 'refusal'] as const) {
      it(`when two runs race on one reference after a lost lock and the ${first} is recorded first, then the row ends as the platform answered (succeeded) with every attempt counted`, async () => {
        const { sandbox, transactionId } = await storedPayment(dialect);
        lastTransactionId = transactionId;
        await lookUpFindsNothing(sandbox);
        await arm(sandbox, MADE_THEN_500);
        expect(await outcome(refunder(sandbox, { timeoutMs: 1000 })('return-7'))).toBe('unknown');

        // Run A resumes and the platform answers it (the same nonce: the first result again).
        const a = gated(sandboxProviderClient(sandbox.url, { timeoutMs: 1000 }));
        const runA = outcome(refunder(sandbox, { client: a.client, lock: lostLock })('return-7'));
        await expect.poll(a.answered).toBe(true);
        // Run B, its lock lost too, resumes the same row as read before A recorded: refused.
        await arm(sandbox, [{ kind: 'endpoint-error', count: 3, status: 429 }]);
        const b = gated(sandboxProviderClient(sandbox.url, { timeoutMs: 1000 }));
        const runB = outcome(refunder(sandbox, { client: b.client, lock: lostLock })('return-7'));
        await expect.poll(b.answered).toBe(true);
        const [one, other] = first === 'success' ? [a, b] : [b, a];
        one.open();
        await (first === 'success' ? runA : runB);
        other.open();
        const results = { a: await runA, b: await runB };
        expect(results.a).toBe('succeeded');
        const [row] = await database.query<{ state: string; attempts: number }>(
          `SELECT state, attempts FROM refunds WHERE caller_reference = 'return-7'`,
        );
        expect(row).toEqual({ state: 'succeeded', attempts: firstRunAttempts(dialect) + 1 + 3 });
        expect(await platformRefunded(sandbox, transactionId)).toBe('40.00');
        expect(await ledger(transactionId)).toEqual({
          refunded: '40.00',
          reserved: '0.00',
          rows: '1',
        });
      });
    }

    it('when a success took two attempts, then the row counts both', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      lastTransactionId = transactionId;
      await arm(sandbox, [{ kind: 'endpoint-error', count: 1, status: 503 }]);
      // Pinned to the platform's dialect: a 503 to the other one would leave it in doubt.
      const client = sandboxProviderClient(sandbox.url, { dialect });
      const made = await refunder(sandbox, { client })('return-9');
      expect(made.refund.state).toBe('succeeded');
      expect(await attemptsOf('return-9')).toBe(2);
    });

    it('when a refund asks for more than is left, then the message says how much in two decimals', async () => {
      const { sandbox, transactionId } = await storedPayment(dialect);
      lastTransactionId = transactionId;
      const refund = refunder(sandbox);
      await refund('order-1', '20.00');
      await expect(refund('order-2', '30.00')).rejects.toThrow(
        'more than the 20.00 not yet refunded',
      );
      await expect(refund('order-1', '25')).rejects.toThrow(
        'differs from the 20.00 asked for earlier',
      );
    });
  });
}
