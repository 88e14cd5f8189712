import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { todayAndYesterday } from '../../../src/lib/sydney-time.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { runRecovery, type RecoveryOptions } from '../../../src/platform/recovery/run-recovery.ts';
import {
  startTestSandbox,
  subscribe,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import {
  sandboxProviderClient,
  startSandboxReceiver,
  SUBSCRIPTION_SECRET,
} from '../../support/provider-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Recovery end to end, through real HTTP: the sandbox (the platform) delivers to a receiver
 * that is down, gives up after its one retry, and recovery gets every notification back.
 */
const SECRET = SUBSCRIPTION_SECRET;
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());
beforeEach(() =>
  database.query(
    'TRUNCATE webhook_deliveries, quarantined_deliveries, recovery_attempts, recovery_runs, payto_unmatched_receipts CASCADE',
  ),
);

async function startReceiver(port: number, sandboxUrl: string): Promise<() => Promise<void>> {
  const receiver = await startSandboxReceiver(database.db, sandboxUrl, port);
  return receiver.close;
}

/** A sandbox subscribed to a receiver port where nothing listens yet. */
async function platformWithReceiverDown(events = ['NPPReceivePayment']) {
  const sandbox = await startTestSandbox({ retryDelayMs: 50 });
  const port = await freePort();
  await subscribe(sandbox.call, `http://127.0.0.1:${port}/webhooks`, events, SECRET);
  return { sandbox, port };
}

async function makePayments(sandbox: TestSandbox, count: number, event = 'NPPReceivePayment') {
  const webhookIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
      body: { event, amount: `${10 + i}.25` },
    });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as { webhookIds: string[]; deliveries?: { status: string }[] };
    webhookIds.push(...body.webhookIds);
    for (const delivery of body.deliveries ?? []) expect(delivery.status).toBe('Error');
  }
  return webhookIds;
}

function recover(sandbox: TestSandbox, extra: Partial<RecoveryOptions> = {}) {
  return runRecovery({
    db: withProviderTables(database.db),
    client: sandboxProviderClient(sandbox.url, {
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    }),
    logger: createLogger('silent'),
    days: todayAndYesterday(Date.now()),
    ...extra,
  });
}

async function storedCount(): Promise<number> {
  return database.count('webhook_deliveries');
}

describe('recovery against the sandbox and the real receiver', () => {
  it('when 20 payments were given up while the receiver was down, then one recovery run stores all 20 exactly once and a second run resends nothing', async () => {
    const { sandbox, port } = await platformWithReceiverDown();
    const webhookIds = await makePayments(sandbox, 20);
    expect(await storedCount()).toBe(0);
    const stopReceiver = await startReceiver(port, sandbox.url);
    try {
      const first = await recover(sandbox);
      expect(first.notifications).toMatchObject({
        seen: 20,
        resent: 20,
        failed: 0,
        alreadyStored: 0,
      });
      expect(first.ok).toBe(true);
      await sandbox.sandbox.deps.engine.idle();
      const stored = await database.query<{ webhook_id: string }>(
        'SELECT webhook_id FROM webhook_deliveries ORDER BY webhook_id',
      );
      expect(stored.map((row) => row.webhook_id)).toEqual([...webhookIds].sort());
      expect(await database.count('npp_payments')).toBe(20);

      const second = await recover(sandbox);
      expect(second.notifications).toMatchObject({
        seen: 20,
        alreadyStored: 20,
        resent: 0,
        failed: 0,
      });
      expect(await database.count('recovery_attempts')).toBe(20);
      expect(await database.count('recovery_runs')).toBe(2);
      expect(await storedCount()).toBe(20);
    } finally {
      await stopReceiver();
    }
  });

  it('when the receiver stays down, then each notification is resent at most maxAttempts times (a failed resend delivery is asked again at the next run), then counted as failed', async () => {
    const { sandbox } = await platformWithReceiverDown();
    await makePayments(sandbox, 2);
    let now = Date.now();
    const options = {
      now: () => new Date(now),
      policy: { maxAttempts: 2, spacingMs: 60_000, maxResendsPerRun: 100 },
    };
    expect((await recover(sandbox, options)).notifications).toMatchObject({ resent: 2 });
    await sandbox.sandbox.deps.engine.idle();
    // The report shows each resent delivery failed: asked again now, not after the spacing.
    now += 1_000;
    expect((await recover(sandbox, options)).notifications).toMatchObject({
      resent: 2,
      retried: 2,
      waiting: 0,
    });
    await sandbox.sandbox.deps.engine.idle();
    now += 1_000;
    const last = await recover(sandbox, options);
    expect(last.notifications).toMatchObject({ resent: 0, failed: 2 });
    expect(last.ok).toBe(false);
    expect(await database.count('recovery_attempts')).toBe(4);
    expect(await storedCount()).toBe(0);
  });

  it('when the platform refuses the resend, then the failure is recorded with its status and the run is not ok', async () => {
    const { sandbox } = await platformWithReceiverDown();
    await makePayments(sandbox, 1);
    await sandbox.call('POST', '/sandbox/faults', {
      body: { kind: 'endpoint-error', count: 5, status: 503, path: '/subscriptions/v2/resend' },
    });
    const summary = await recover(sandbox);
    expect(summary.notifications).toMatchObject({ resent: 0, failed: 1 });
    expect(summary.ok).toBe(false);
    const [attempt] = await database.rows<{ outcome: string; http_status: number }>(
      'recovery_attempts',
    );
    expect(attempt).toMatchObject({ outcome: 'failed', http_status: 503 });
  });

  it('when a notification was quarantined here, then it is not resent', async () => {
    const { sandbox } = await platformWithReceiverDown();
    const [webhookId] = await makePayments(sandbox, 1);
    await database.query(
      `INSERT INTO quarantined_deliveries (event_name, webhook_id_header, webhook_id, received_at, body_sha256, raw_body, headers, reasons)
       VALUES ('NPPReceivePayment', $1::text, $1::bigint, now(), repeat('a', 64), '\\x00', '{}', '[]')`,
      [webhookId],
    );
    const summary = await recover(sandbox);
    expect(summary.notifications).toMatchObject({ seen: 1, quarantined: 1, resent: 0 });
    expect(await database.count('recovery_attempts')).toBe(0);
  });

  it('when the delivery report cannot be read, then the run reports the error, records nothing and is not ok', async () => {
    const { sandbox } = await platformWithReceiverDown();
    await sandbox.call('POST', '/sandbox/faults', {
      body: { kind: 'endpoint-error', count: 100, status: 500, path: '/subscriptions/v1/report' },
    });
    const summary = await recover(sandbox, { payto: false });
    expect(summary.errors).toHaveLength(2);
    expect(summary.ok).toBe(false);
    expect(await database.count('recovery_attempts')).toBe(0);
  });

  it('when a PayTo receipt has no stored PayToReceivePayment, then it is recorded for an operator; a delivered one is matched', async () => {
    const sandbox = await startTestSandbox({ retryDelayMs: 50 });
    const port = await freePort();
    const stopReceiver = await startReceiver(port, sandbox.url);
    try {
      // Made before anyone subscribed to PayTo: no webhook will ever bring it.
      const missed = await sandbox.call('POST', '/sandbox/payments?wait=true', {
        body: { event: 'PayToReceivePayment', amount: '80.00' },
      });
      const missedId = (missed.body as { payment: { TransactionId: string } }).payment
        .TransactionId;
      await subscribe(
        sandbox.call,
        `http://127.0.0.1:${port}/webhooks`,
        ['PayToReceivePayment'],
        SECRET,
      );
      await makePaytoPaymentDelivered(sandbox);
      const summary = await recover(sandbox);
      expect(summary.payto).toMatchObject({ receipts: 2, matched: 1, unmatched: 1 });
      expect(summary.ok).toBe(true);
      expect(summary.needsAttention).toBe(true);
      const findings = await database.rows<{
        transaction_id: string;
        amount: string;
        resolved_at: Date | null;
      }>('payto_unmatched_receipts');
      expect(findings).toEqual([
        expect.objectContaining({ transaction_id: missedId, amount: '80', resolved_at: null }),
      ]);
    } finally {
      await stopReceiver();
    }
  });
});

async function makePaytoPaymentDelivered(sandbox: TestSandbox): Promise<void> {
  const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
    body: { event: 'PayToReceivePayment', amount: '20.00' },
  });
  const body = answer.body as { deliveries: { status: string }[] };
  expect(body.deliveries.map((d) => d.status)).toEqual(['Sent']);
}
