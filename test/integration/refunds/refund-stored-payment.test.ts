import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import type { ProviderClientOptions } from '../../../src/platform/client/provider-client.ts';
import { ProviderError } from '../../../src/platform/client/protocol/provider-error.ts';
import { refundStoredPayment } from '../../../src/platform/refunds/refund-stored-payment.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import {
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

/** Refunds of payments the receiver stored, against the sandbox, through real HTTP. */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());
beforeEach(() => database.query('TRUNCATE webhook_deliveries, refunds CASCADE'));

const LATER = 301_000;

async function storedPayment(fields: Record<string, unknown> = {}) {
  const sandbox = await startTestSandbox();
  const receiver = await startSandboxReceiver(database.db, sandbox.url);
  await subscribe(
    sandbox.call,
    `${receiver.url}/webhooks`,
    ['NPPReceivePayment'],
    SUBSCRIPTION_SECRET,
  );
  const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
    body: { event: 'NPPReceivePayment', amount: '40.00', ...fields },
  });
  await receiver.close();
  const transactionId = (answer.body as { payment: { TransactionId: string } }).payment
    .TransactionId;
  expect(await database.count('npp_payments')).toBe(1);
  return { sandbox, transactionId };
}

function refunder(
  sandbox: TestSandbox,
  offsetMs = LATER,
  client: Partial<ProviderClientOptions> = {},
) {
  const deps = {
    db: withProviderTables(database.db),
    client: sandboxProviderClient(sandbox.url, client),
    logger: createLogger('silent'),
    now: () => new Date(Date.now() + offsetMs),
  };
  // Each command names its refund; a test that repeats a command passes the same reference.
  return (input: { transactionId: string; amount?: string; callerReference?: string }) =>
    refundStoredPayment(deps, { callerReference: `order-${randomUUID()}`, ...input });
}

const platformRefunds = (sandbox: TestSandbox) => sandbox.sandbox.deps.store.state.refunds.length;
const advancePlatformClock = (sandbox: TestSandbox) =>
  sandbox.call('POST', '/sandbox/clock', { body: { seconds: LATER / 1000 } });

describe('refund of a stored payment', () => {
  it('when the payment is less than 5 minutes old, then it is refused before anything is sent or stored', async () => {
    const { sandbox, transactionId } = await storedPayment();
    const error = await refunder(sandbox, 0)({ transactionId }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'invalid-request',
      fieldErrors: [{ path: 'transactionId' }],
    });
    expect(await database.count('refunds')).toBe(0);
    expect(platformRefunds(sandbox)).toBe(0);
  });

  it('when the payer account is not known, then it is refused before anything is sent', async () => {
    const { sandbox, transactionId } = await storedPayment({
      SourceBsb: '',
      SourceAccountNumber: '',
    });
    await expect(refunder(sandbox)({ transactionId })).rejects.toMatchObject({
      kind: 'invalid-request',
    });
    expect(await database.count('refunds')).toBe(0);
  });

  it('when no such payment is stored, then it is refused', async () => {
    const sandbox = await startTestSandbox();
    await expect(refunder(sandbox)({ transactionId: 'NOPE1' })).rejects.toMatchObject({
      kind: 'invalid-request',
    });
  });

  it('when refunded in parts, then each succeeds up to the amount, and more than what is left is refused before sending', async () => {
    const { sandbox, transactionId } = await storedPayment();
    await advancePlatformClock(sandbox);
    const refund = refunder(sandbox);
    const first = await refund({ transactionId, amount: '15.00' });
    expect(first.refund).toMatchObject({
      state: 'succeeded',
      amount: '15.00',
      fee_amount_including_gst: '0.66',
    });
    expect(first.refund.refund_transaction_id).toMatch(/^\d+$/);
    await expect(refund({ transactionId, amount: '25.01' })).rejects.toMatchObject({
      fieldErrors: [{ path: 'amount' }],
    });
    const rest = await refund({ transactionId });
    expect(rest.refund).toMatchObject({ state: 'succeeded', amount: '25.00' });
    await expect(refund({ transactionId })).rejects.toBeInstanceOf(ProviderError);
    expect(platformRefunds(sandbox)).toBe(2);
    expect(await database.count('refunds')).toBe(2);
  });

  it('when the answer to a processed refund is lost, then the retry carries the same UniqueReference and the platform refunds once', async () => {
    const { sandbox, transactionId } = await storedPayment();
    await advancePlatformClock(sandbox);
    let dropped = false;
    const losingFirstAnswer: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!dropped && String(input).endsWith('/receivables/v2/refund')) {
        dropped = true;
        await response.body?.cancel();
        throw new TypeError('fetch failed: connection reset after the request was sent');
      }
      return response;
    };
    const result = await refunder(sandbox, LATER, { fetch: losingFirstAnswer })({
      transactionId,
      amount: '10.00',
    });
    expect(dropped).toBe(true);
    expect(result.refund.state).toBe('succeeded');
    expect(platformRefunds(sandbox)).toBe(1);
    expect(sandbox.sandbox.deps.store.state.refunds[0]?.uniqueReference).toBe(
      result.refund.unique_reference,
    );
  });

  it('when the platform never answers, then the refund is left unknown with its amount reserved, and running again resumes it with the same reference', async () => {
    const { sandbox, transactionId } = await storedPayment();
    await advancePlatformClock(sandbox);
    await sandbox.call('POST', '/sandbox/faults', {
      body: { kind: 'endpoint-error', count: 3, status: 503, path: '/receivables/v2/refund' },
    });
    const refund = refunder(sandbox);
    const failed = await refund({
      transactionId,
      amount: '40.00',
      callerReference: 'return-77',
    }).catch((e: unknown) => e);
    // In doubt, not refused: the platform's last answer rides along.
    expect(failed).toMatchObject({
      name: 'RefundInDoubtError',
      refund: { state: 'unknown', attempts: 3 },
      lastAnswer: { kind: 'http', httpStatus: 503, attempts: 3, outcomeUnknown: true },
    });
    const [unknown] = await database.rows<{ state: string; unique_reference: string }>('refunds');
    expect(unknown?.state).toBe('unknown');
    // The reserved amount cannot be refunded again under another reference...
    await expect(refund({ transactionId, amount: '1.00' })).rejects.toMatchObject({
      fieldErrors: [{ path: 'amount' }],
    });
    // ...but running it again resumes the same refund.
    const resumed = await refund({ transactionId, callerReference: 'return-77' });
    expect(resumed).toMatchObject({
      resumed: true,
      refund: { state: 'succeeded', unique_reference: unknown?.unique_reference },
    });
    expect(platformRefunds(sandbox)).toBe(1);
  });

  it('when two refunds of the whole payment start at once, then exactly one is sent', async () => {
    const { sandbox, transactionId } = await storedPayment();
    await advancePlatformClock(sandbox);
    const refund = refunder(sandbox);
    const outcomes = await Promise.allSettled([
      refund({ transactionId, amount: '40.00' }),
      refund({ transactionId, amount: '40.00' }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(platformRefunds(sandbox)).toBe(1);
    expect(await database.count('refunds')).toBe(1);
  });
});
