import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxClock } from '../core/clock.ts';
import { createStateSaver, loadState, saveState } from '../state/state-file.ts';
import { createStore } from '../state/store.ts';
import { startTestSandbox } from './support.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempFile = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-state-'));
  dirs.push(dir);
  return path.join(dir, 'nested', 'state.json');
};

describe('state file', () => {
  it('when the state is saved and loaded into a new sandbox, then wallets, payments, refunds and the clock carry on', async () => {
    const file = tempFile();
    const first = await startTestSandbox();
    const wallet = (
      await first.call('POST', '/sandbox/wallets', {
        body: { name: 'Jane', email: 'j@x.com', mobile: '0412345678' },
      })
    ).body;
    const payment = (
      await first.call('POST', '/sandbox/payments', {
        body: { event: 'NPPReceivePayment', amount: '10.00' },
      })
    ).body.payment as Record<string, string>;
    await first.call('POST', '/sandbox/clock', { body: { seconds: 300 } });
    const refund = {
      UniqueReference: 'u1',
      originalTransactionId: payment.TransactionId,
      refundAmount: '4.00',
    };
    const refunded = (await first.call('POST', '/receivables/v2/refund', { body: refund })).body;
    await saveState(file, first.sandbox.deps.store.state);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const state = await loadState(file);
    const second = await startTestSandbox({
      store: createStore(state),
      clock: createSandboxClock(Date.now, state.clockOffsetMs),
    });
    const found = await second.call(
      'GET',
      `/mWallet/v1/search?clientUniqueIdentifier=${String(wallet.accountNumber)}`,
    );
    expect(found.body.mWallets).toEqual([
      expect.objectContaining({ accountNumber: wallet.accountNumber, name: 'Jane' }),
    ]);
    // The same UniqueReference answers the saved result; the remaining amount is still 6.00.
    expect(
      (await second.call('POST', '/receivables/v2/refund', { body: refund })).body.transactionId,
    ).toBe(refunded.transactionId);
    expect(
      (
        await second.call('POST', '/receivables/v2/refund', {
          body: { ...refund, UniqueReference: 'u2', refundAmount: '6.01' },
        })
      ).status,
    ).toBe(400);
    // The clock offset came back, and new ids follow the saved ones.
    expect(second.sandbox.deps.clock.offsetMs()).toBe(300_000);
    const next = (
      await second.call('POST', '/sandbox/payments', {
        body: { event: 'NPPReceivePayment', amount: '1.00' },
      })
    ).body.payment as Record<string, string>;
    expect(BigInt(next.ReceiptNumber!)).toBeGreaterThan(BigInt(payment.ReceiptNumber!));
  });

  it('when the file does not exist, then the state is empty; when it is not a state file, then loading fails', async () => {
    const file = tempFile();
    expect((await loadState(file)).wallets).toEqual([]);
    await saveState(file, { version: 2 } as never);
    await expect(loadState(file)).rejects.toThrow('not a sandbox state file');
  });

  it('when a delivery was pending at save time, then it is loaded as Error (it will not finish now)', async () => {
    const file = tempFile();
    const store = createStore();
    store.state.notifications.push({
      webhookId: '1',
      eventName: 'E',
      subscriptionId: 's',
      url: 'http://x',
      body: '{}',
      createdAtMs: 0,
      status: 'Pending',
      retryCount: 0,
      lastResponseCode: 0,
      attempts: [],
    });
    await saveState(file, store.state);
    expect((await loadState(file)).notifications[0]?.status).toBe('Error');
  });

  it('when changes come in a burst, then the saver writes once after them and again on flush', async () => {
    const file = tempFile();
    const store = createStore();
    const saver = createStateSaver(file, () => store.state, 50);
    store.onChange(() => saver.schedule());
    for (let i = 0; i < 20; i += 1)
      store.add('subscriptions', {
        subscriptionId: String(i),
        eventName: 'E',
        targetUrl: 'http://x',
        subscriptionStatus: 'On',
        createdAtMs: 0,
      });
    await saver.flush();
    expect(JSON.parse(readFileSync(file, 'utf8')).subscriptions).toHaveLength(20);
  });
});
