import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.ts';
import { toolExitCode } from '../../common/run-tool.ts';
import { triggerOptions } from '../trigger/options.ts';
import { runTrigger } from '../trigger/trigger.ts';
import { startReceiver } from './receiver.ts';
import { startTestSandbox, subscribe } from './support.ts';

const SECRET = 'Basic dHJpZ2dlci1zZWNyZXQ=';
const EVENTS = [
  'NPPReceivePayment',
  'PayToReceivePayment',
  'InboundDirectCredit',
  'NPPCreditRejections',
  'InboundDirectCreditRejections',
];
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

/** `trigger <event>` with `options` (by commander's names) against `url`: its exit code and lines. */
async function trigger(url: string, event: string, options: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = await toolExitCode(
    (async () =>
      runTrigger(
        { ...triggerOptions(event, { sandbox: url, ...options }, {}), waitMs: 10_000 },
        (line) => lines.push(line),
      ))(),
    'trigger failed',
    (line) => lines.push(line),
  );
  return { code, text: lines.join('\n') };
}

/** A sandbox whose five events are subscribed by a real receiver on a test database. */
async function sandboxAndReceiver(secret = SECRET) {
  const sandbox = await startTestSandbox({ retryDelayMs: 60_000 });
  const receiver = await startReceiver(database.db, `${sandbox.url}${PUBLIC_KEY_PATH}`, [SECRET]);
  await subscribe(sandbox.call, `${receiver.url}/webhooks`, EVENTS, secret);
  return { sandbox, receiver };
}

describe('npm run sandbox -- trigger', () => {
  it('when each event is triggered, then the real receiver stores it and its answer is printed with the Webhookid', async () => {
    const { sandbox, receiver } = await sandboxAndReceiver();
    try {
      const npp = await trigger(sandbox.url, 'npp-payment', {
        amount: '125.50',
        payer: 'Jane Citizen',
        reference: 'INV-77',
      });
      expect(npp.code, npp.text).toBe(0);
      expect(npp.text).toMatch(/NPPReceivePayment SBX\d+: 125\.50 from Jane Citizen/);
      expect(npp.text).toMatch(
        new RegExp(`→ ${receiver.url}/webhooks/NPPReceivePayment {2}Webhookid \\d+\\n {2}200 \\{`),
      );
      for (const event of [
        'payto-receipt',
        'direct-credit',
        'npp-rejection',
        'InboundDirectCreditRejections',
      ]) {
        const run = await trigger(sandbox.url, event, { payer: 'Ann Payer', reason: 'Closed' });
        expect(run.code, `${event}: ${run.text}`).toBe(0);
        expect(run.text).toMatch(/Webhookid \d+\n {2}200 /);
      }
      const refund = await trigger(sandbox.url, 'refund-settlement', {
        amount: '80.00',
        refundAmount: '30.00',
      });
      expect(refund.code, refund.text).toBe(0);
      expect(refund.text).toMatch(/80\.00 from .*, 30\.00 refunded \(RefundId RF\d+\)/);
    } finally {
      await receiver.close();
    }
    const stored = await database.query<{ event_name: string; n: string }>(
      'SELECT event_name, count(*) AS n FROM webhook_deliveries GROUP BY event_name ORDER BY event_name',
    );
    expect(Object.fromEntries(stored.map((row) => [row.event_name, Number(row.n)]))).toEqual({
      InboundDirectCredit: 1,
      InboundDirectCreditRejections: 1,
      NPPCreditRejections: 1,
      NPPReceivePayment: 2,
      PayToReceivePayment: 1,
    });
    const payments = await database.query<{ amount: string; refund_amount: string | null }>(
      'SELECT amount, refund_amount FROM npp_payments ORDER BY amount',
    );
    expect(payments).toEqual([
      { amount: '80', refund_amount: '30' },
      { amount: '125.5', refund_amount: '0' },
    ]);
  });

  it('when the receiver refuses the delivery, then its 401 and body are printed and the exit code is 1', async () => {
    const { sandbox, receiver } = await sandboxAndReceiver('Basic d3Jvbmc=');
    try {
      const run = await trigger(sandbox.url, 'npp-payment');
      expect(run.code, run.text).toBe(1);
      expect(run.text).toMatch(/Webhookid \d+\n {2}401 \{/);
      expect(run.text).toContain('1 of 1 deliveries not answered 200');
    } finally {
      await receiver.close();
    }
  });

  it('when nothing is subscribed, then it says how to subscribe and exits 1; no sandbox there: 2; a bad amount: 2', async () => {
    const { url } = await startTestSandbox();
    const unsubscribed = await trigger(url, 'npp-payment');
    expect(unsubscribed.code).toBe(1);
    expect(unsubscribed.text).toContain('nothing is subscribed to NPPReceivePayment');

    const nowhere = await trigger('http://127.0.0.1:1', 'npp-payment');
    expect(nowhere.code).toBe(2);
    expect(nowhere.text).toBe(
      'no sandbox at http://127.0.0.1:1: start one with npm run sandbox (or give --sandbox <url>)',
    );

    const bad = await trigger(url, 'npp-payment', { amount: '1.234' });
    expect(bad.code).toBe(2);
    expect(bad.text).toContain('--amount: not an amount');
    const unknown = await trigger(url, 'chargeback');
    expect(unknown.code).toBe(2);
    expect(unknown.text).toContain('unknown event: chargeback');
  });
});
