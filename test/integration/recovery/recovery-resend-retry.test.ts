import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { todayAndYesterday } from '../../../src/lib/sydney-time.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { runRecovery } from '../../../src/platform/recovery/run-recovery.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import type { TcpProxy } from '../../../tools/common/tcp-proxy.ts';
import {
  startTestSandbox,
  subscribe,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import { proxyDatabase } from '../../support/proxied-database.ts';
import {
  sandboxProviderClient,
  startSandboxReceiver,
  SUBSCRIPTION_SECRET,
} from '../../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Issue 24 item 5, through real HTTP: the sandbox (the platform) and the real receiver, whose
 * database sits behind a proxy a test can cut. A resend that fails (its delivery meets a
 * database blip here, or the platform answers the resend call 5xx) is asked again at the next
 * run, one interval later, not after the 10-minute spacing. Recovery's own database stays up.
 */
const N = 5;
const MINUTE = 60_000;
const policy = { maxAttempts: 3, spacingMs: 10 * MINUTE, maxResendsPerRun: 1000 };
let database: TestDatabase;
let proxy: TcpProxy;
let receiverDb: Db;
beforeAll(async () => {
  database = await createTestDatabase();
  let viaProxy: string;
  ({ proxy, url: viaProxy } = await proxyDatabase(database));
  receiverDb = createDatabase({ url: viaProxy, poolMax: 4, connectionTimeoutMs: 1000 });
});
afterAll(async () => {
  await receiverDb?.destroy();
  await proxy?.close();
  await database?.drop();
});
beforeEach(() =>
  database.query(
    'TRUNCATE webhook_deliveries, recovery_attempts, recovery_runs, recovery_progress CASCADE',
  ),
);

/** N payments the platform gave up on while nothing listened on the receiver's port. */
async function paymentsGivenUp(): Promise<{ sandbox: TestSandbox; port: number }> {
  const sandbox = await startTestSandbox({ retryDelayMs: 20 });
  const port = await freePort();
  await subscribe(
    sandbox.call,
    `http://127.0.0.1:${port}/webhooks`,
    ['NPPReceivePayment'],
    SUBSCRIPTION_SECRET,
  );
  for (let i = 0; i < N; i += 1) {
    const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: `${20 + i}.50` },
    });
    expect(answer.status, answer.text).toBe(200);
  }
  return { sandbox, port };
}

function recoverAt(sandbox: TestSandbox, at: number) {
  return runRecovery({
    db: withProviderTables(database.db),
    // No retry inside the client: one 5xx is one failed resend call.
    client: sandboxProviderClient(sandbox.url, {
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    }),
    logger: createLogger('silent'),
    days: todayAndYesterday(Date.now()),
    payto: false,
    now: () => new Date(at),
    policy,
  });
}

const missing = async () => N - (await database.count('webhook_deliveries'));

describe('a failed resend is asked again at the next run (issue 24 item 5)', () => {
  it('when the resent deliveries meet a database blip at the receiver, then the next run (one interval later) resends them and none is missing', async () => {
    const { sandbox, port } = await paymentsGivenUp();
    const receiver = await startSandboxReceiver(receiverDb, sandbox.url, port);
    try {
      const start = Date.now();
      proxy.cut();
      const first = await recoverAt(sandbox, start);
      expect(first.notifications).toMatchObject({ resent: N, failed: 0 });
      await sandbox.sandbox.deps.engine.idle();
      // Each resent delivery was answered 500 (database unreachable); the platform gave up.
      expect(await missing()).toBe(N);
      proxy.restore();

      const next = await recoverAt(sandbox, start + 5 * MINUTE);
      await sandbox.sandbox.deps.engine.idle();
      expect(next.notifications).toMatchObject({ resent: N, retried: N, waiting: 0 });
      expect(await missing()).toBe(0);
      // What the report said at each resend is recorded; the limit counts both resends.
      const attempts = await database.query<{ report_retry_count: number; n: string }>(
        `SELECT report_retry_count, count(*) AS n FROM recovery_attempts
          GROUP BY report_retry_count ORDER BY report_retry_count`,
      );
      expect(attempts).toEqual([
        { report_retry_count: 1, n: String(N) },
        { report_retry_count: 2, n: String(N) },
      ]);
    } finally {
      proxy.restore();
      await receiver.close();
    }
  });

  it('when the platform answers the resend call 503 once, then the next run resends and none is missing', async () => {
    const { sandbox, port } = await paymentsGivenUp();
    const receiver = await startSandboxReceiver(receiverDb, sandbox.url, port);
    try {
      await sandbox.call('POST', '/sandbox/faults', {
        body: { kind: 'endpoint-error', count: N, status: 503, path: '/subscriptions/v2/resend' },
      });
      const start = Date.now();
      const first = await recoverAt(sandbox, start);
      expect(first.notifications).toMatchObject({ resent: 0, failed: N });
      await sandbox.sandbox.deps.engine.idle();
      expect(await missing()).toBe(N);

      const next = await recoverAt(sandbox, start + 5 * MINUTE);
      await sandbox.sandbox.deps.engine.idle();
      expect(next.notifications).toMatchObject({ resent: N, retried: N, waiting: 0 });
      expect(next.ok).toBe(true);
      expect(await missing()).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('when every resent delivery fails (the receiver stays down), then the quick retries stay within the limit and then count as failed', async () => {
    const { sandbox } = await paymentsGivenUp();
    const start = Date.now();
    const resent: number[] = [];
    let last;
    for (let run = 0; run < policy.maxAttempts + 1; run += 1) {
      last = await recoverAt(sandbox, start + run * MINUTE);
      resent.push(last.notifications.resent);
      await sandbox.sandbox.deps.engine.idle();
    }
    expect(resent).toEqual([N, N, N, 0]);
    expect(last?.notifications).toMatchObject({ failed: N, waiting: 0 });
    expect(await database.count('recovery_attempts')).toBe(N * policy.maxAttempts);
  });
});
