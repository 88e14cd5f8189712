import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOperatorConfig } from '../../../src/cli/config.ts';
import { failureOf } from '../../../src/cli/exit-codes.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { todayAndYesterday } from '../../../src/lib/sydney-time.ts';
import { runRecoverCli } from '../../../src/platform/recovery/recover-cli.ts';
import { runRecovery } from '../../../src/platform/recovery/run-recovery.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import {
  CREDENTIALS,
  startTestSandbox,
  subscribe,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import {
  sandboxProviderClient,
  startSandboxReceiver,
  SUBSCRIPTION_SECRET,
} from '../../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Issue 24 item 6, through real HTTP (the sandbox, the real receiver): a run that spends its
 * resend budget stops on the page where it ran out, never saves its position past rows it did
 * not act on, and says so (ok: false). Before, it read on, counted those rows as "waiting",
 * saved its position past them and said ok: they came back only when the report wrapped round.
 */
const N = 12;
const MINUTE = 60_000;
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());
beforeEach(() =>
  database.query(
    'TRUNCATE webhook_deliveries, recovery_attempts, recovery_runs, recovery_progress CASCADE',
  ),
);

/** N payments the platform gave up on, in the report's order, and the receiver now up. */
async function paymentsGivenUp() {
  const sandbox = await startTestSandbox({ retryDelayMs: 20 });
  const port = await freePort();
  await subscribe(
    sandbox.call,
    `http://127.0.0.1:${port}/webhooks`,
    ['NPPReceivePayment'],
    SUBSCRIPTION_SECRET,
  );
  const webhookIds: string[] = [];
  for (let i = 0; i < N; i += 1) {
    const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: `${30 + i}.10` },
    });
    expect(answer.status, answer.text).toBe(200);
    webhookIds.push(...(answer.body as { webhookIds: string[] }).webhookIds);
  }
  const receiver = await startSandboxReceiver(database.db, sandbox.url, port);
  return { sandbox, webhookIds, receiver };
}

function recoverAt(sandbox: TestSandbox, at: number) {
  return runRecovery({
    db: withProviderTables(database.db),
    client: sandboxProviderClient(sandbox.url),
    logger: createLogger('silent'),
    days: todayAndYesterday(Date.now()),
    payto: false,
    now: () => new Date(at),
    pageSize: 4,
    pages: 2,
    policy: { maxAttempts: 3, spacingMs: 10 * MINUTE, maxResendsPerRun: 3 },
  });
}

/** Rows behind the saved position that were neither resent nor stored: skipped for the pass. */
async function skipped(webhookIds: string[]): Promise<number> {
  const [progress] = await database.query<{ next_skip: number }>(
    `SELECT max(next_skip) AS next_skip FROM recovery_progress WHERE report_kind = 'delivery'`,
  );
  const behind = webhookIds.slice(0, progress?.next_skip ?? 0);
  const [row] = await database.query<{ n: string }>(
    `SELECT count(*) AS n FROM unnest($1::bigint[]) AS id
      WHERE NOT EXISTS (SELECT 1 FROM recovery_attempts a WHERE a.webhook_id = id)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = id)`,
    [behind],
  );
  return Number(row?.n ?? 0);
}

async function recoverCli(sandbox: TestSandbox, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runRecoverCli(
    {
      argv,
      env: {
        DATABASE_URL: database.url,
        PROVIDER_BASE_URL: sandbox.url,
        PROVIDER_AUTH_URL: sandbox.url,
        PROVIDER_API_KEY: CREDENTIALS.apiKey,
        SIGNING_KEY_ALLOW_HTTP: 'true',
        LOG_LEVEL: 'silent',
      },
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      projectDir: process.cwd(),
    },
    loadOperatorConfig,
  ).catch((error: unknown) => {
    const failure = failureOf(error, 'recovery failed');
    err.push(failure.text);
    return failure.code;
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const missing = async () => N - (await database.count('webhook_deliveries'));

describe('the resend budget (issue 24 item 6)', () => {
  it('when a run spends its budget, then it stops on that page, saves no position past rows it did not act on, is not ok, and the next runs pick those rows up', async () => {
    const { sandbox, webhookIds, receiver } = await paymentsGivenUp();
    try {
      const start = Date.now();
      const first = await recoverAt(sandbox, start);
      await sandbox.sandbox.deps.engine.idle();
      expect(await skipped(webhookIds)).toBe(0);
      expect(first.ok).toBe(false);
      expect(first.needsAttention).toBe(true);
      expect(first.notifications).toMatchObject({ resent: 3, overBudget: 1, waiting: 0 });
      expect(first.reports?.find((r) => r.stoppedOnBudget)).toMatchObject({
        pagesRead: 1,
        resumesAtPage: 1,
        complete: false,
      });

      const perRun: number[] = [first.notifications.resent];
      for (let run = 1; run < N / 3; run += 1) {
        const next = await recoverAt(sandbox, start + run * MINUTE);
        await sandbox.sandbox.deps.engine.idle();
        expect(await skipped(webhookIds)).toBe(0);
        perRun.push(next.notifications.resent);
      }
      // Three a run, in report order, none skipped: after N/3 runs every payment is here.
      expect(perRun).toEqual([3, 3, 3, 3]);
      expect(await missing()).toBe(0);
      const last = await recoverAt(sandbox, start + 10 * MINUTE);
      expect(last.ok).toBe(true);
      expect(last.notifications).toMatchObject({ resent: 0, overBudget: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('when `recover --max-resends R` spends its budget, then it exits 1, says what is left for the next run, and the JSON says ok: false', async () => {
    const { sandbox, receiver } = await paymentsGivenUp();
    try {
      const { code, out, err } = await recoverCli(sandbox, ['--skip-payto', '--max-resends', '5']);
      expect(code, err).toBe(1);
      const summary = JSON.parse(out) as {
        ok: boolean;
        notifications: { resent: number; overBudget: number };
      };
      expect(summary.ok).toBe(false);
      expect(summary.notifications).toMatchObject({ resent: 5, overBudget: N - 5 });
      expect(err).toContain(
        `${N - 5} to resend left for the next run: the resend budget is spent (--max-resends)`,
      );
      expect(err).toMatch(
        /stopped where the resend budget ran out; the next run goes on from page 1/,
      );
    } finally {
      await receiver.close();
    }
  });

  it('when --max-resends is not a whole number from 1, then it exits 2 with the usage; --help names it', async () => {
    const { sandbox, receiver } = await paymentsGivenUp();
    try {
      const bad = await recoverCli(sandbox, ['--max-resends', '0']);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/^--max-resends must be a whole number from 1 to 1000000 \(got 0\)/);
      const help = await recoverCli(sandbox, ['--help']);
      expect(help.code).toBe(0);
      expect(help.out).toContain('--max-resends R');
      expect(await database.count('recovery_attempts')).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
