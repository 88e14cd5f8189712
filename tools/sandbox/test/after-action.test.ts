import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { createHeldAnswers, OVERSIZED_BYTES, UNREADABLE_HTML } from '../core/after-action.ts';
import type { Call } from '../core/client.ts';
import { closeServer } from '../core/close-server.ts';
import { startTestSandbox } from './support.ts';
import { REFUND_PATH, newWallet, paidOut, refund, refundablePayment } from './scene.ts';

const arm = async (call: Call, body: Record<string, unknown>) => {
  const answer = await call('POST', '/sandbox/faults', { body });
  expect(answer.status, answer.text).toBe(200);
  return answer;
};

const body = (id: string, nonce: string) => ({
  UniqueReference: nonce,
  originalTransactionId: id,
  refundAmount: '40.00',
});

describe('after-action faults: the refund is made, the answer is not the real one', () => {
  it.each([
    ['status', {}, 500, 'InternalServerError'],
    ['status', { status: 503 }, 503, 'Error'],
    ['not-ok', {}, 200, 'Error'],
  ])(
    'when armed with answer %s %o, then HTTP %i with status %s, and the refund was made',
    async (answer, extra, httpStatus, status) => {
      const { call } = await startTestSandbox();
      const id = await refundablePayment(call);
      await arm(call, { kind: 'after-action', path: REFUND_PATH, answer, ...extra });
      const answered = await refund(call, body(id, 'r-1'));
      expect(answered.status).toBe(httpStatus);
      expect(answered.body.status).toBe(status);
      expect(answered.body.transactionId).toBeUndefined();
      if (answer === 'not-ok') expect(answered.body.statusDescription).toBe('Unexpected error');
      expect(await paidOut(call, id)).toMatchObject({
        refunds: [{ uniqueReference: 'r-1', amount: '40.00' }],
        refundedTotal: '40.00',
      });
      // The client's retry with the same nonce gets the first result; nothing more is paid.
      const retry = await refund(call, body(id, 'r-1'));
      expect(retry.status).toBe(200);
      expect((await paidOut(call, id)).refundedTotal).toBe('40.00');
    },
  );

  it('when armed with answer oversized, then HTTP 200 JSON of exactly 2 MiB holding the real answer', async () => {
    const { call } = await startTestSandbox();
    const id = await refundablePayment(call);
    await arm(call, { kind: 'after-action', answer: 'oversized' });
    const answered = await refund(call, body(id, 'r-1'));
    expect(answered.status).toBe(200);
    expect(answered.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Buffer.byteLength(answered.text)).toBe(OVERSIZED_BYTES);
    expect(answered.body).toMatchObject({ status: 'Ok', callerUniqueReference: 'r-1' });
    expect((await paidOut(call, id)).refundedTotal).toBe('40.00');
  });

  it('when armed with answer unreadable, then HTTP 200 text/html, and the refund was made', async () => {
    const { call } = await startTestSandbox();
    const id = await refundablePayment(call);
    await arm(call, { kind: 'after-action', answer: 'unreadable' });
    const answered = await refund(call, body(id, 'r-1'));
    expect(answered.status).toBe(200);
    expect(answered.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answered.text).toBe(UNREADABLE_HTML);
    expect((await paidOut(call, id)).refundedTotal).toBe('40.00');
  });

  it('when armed with answer drop, then the connection closes without an answer, and the refund was made', async () => {
    const { call } = await startTestSandbox();
    const id = await refundablePayment(call);
    await arm(call, { kind: 'after-action', answer: 'drop' });
    await expect(refund(call, body(id, 'r-1'))).rejects.toThrow();
    expect((await paidOut(call, id)).refundedTotal).toBe('40.00');
  });

  it('when armed with answer hang, then no answer comes, the refund was made, and closing the sandbox drops the connection', async () => {
    const { call, sandbox } = await startTestSandbox();
    const id = await refundablePayment(call);
    await arm(call, { kind: 'after-action', answer: 'hang' });
    await expect(
      call('POST', REFUND_PATH, { body: body(id, 'r-1'), timeoutMs: 300 }),
    ).rejects.toThrow();
    expect((await paidOut(call, id)).refundedTotal).toBe('40.00');
    await arm(call, { kind: 'after-action', answer: 'hang' });
    const hung = call('POST', REFUND_PATH, { body: body(id, 'r-2') });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    sandbox.close();
    await expect(hung).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('when an after-action fault meets a wallet update, then the update is made (the next search shows it)', async () => {
    const { call } = await startTestSandbox({ dialect: 'interface' });
    const wallet = await newWallet(call, { pin: '0123' });
    await arm(call, { kind: 'after-action', path: '/mWallet/v1/update', answer: 'status' });
    const answered = await call('POST', '/mWallet/v1/update', {
      body: { accountNumber: wallet.accountNumber, pin: '0123', name: 'Jane Renamed' },
    });
    expect(answered.status).toBe(500);
    expect(answered.body.errorCode).toBe('InternalServerError');
    const search = await call(
      'GET',
      `/mWallet/v1/search?clientUniqueIdentifier=${wallet.accountNumber}`,
    );
    expect((search.body.mWallets as Record<string, unknown>[])[0]?.name).toBe('Jane Renamed');
  });

  it('when an after-action fault meets the public CSV report, then the CSV is replaced too', async () => {
    const { call } = await startTestSandbox({ dialect: 'public' });
    await arm(call, { kind: 'after-action', answer: 'not-ok' });
    const answered = await call('GET', '/paytoreceivables/v1/report/20240305000000');
    expect(answered.status).toBe(200);
    expect(answered.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answered.body.status).toBe('Error');
  });
});

describe('held answers', () => {
  it('when an answer is held, then its connection is dropped after the limit', async () => {
    const held = createHeldAnswers(100);
    const server = createServer((_req, res) => held.hold(res as unknown as Response));
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const started = Date.now();
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    await closeServer(server);
  });
});

describe('faults in the order armed', () => {
  it('when [after-action 500 ×1, endpoint-error 429 ×3] are armed on the refund, then the 1st refund is made and answered 500, the next three are refused 429 without acting, the 5th is made', async () => {
    const { call } = await startTestSandbox();
    const id = await refundablePayment(call);
    await arm(call, { kind: 'after-action', path: REFUND_PATH, answer: 'status', count: 1 });
    await arm(call, { kind: 'endpoint-error', path: REFUND_PATH, status: 429, count: 3 });
    const statuses: number[] = [];
    for (const nonce of ['a', 'b', 'c', 'd', 'e'])
      statuses.push((await refund(call, { ...body(id, nonce), refundAmount: '10.00' })).status);
    expect(statuses).toEqual([500, 429, 429, 429, 200]);
    const paid = await paidOut(call, id);
    expect(paid.refunds.map((r) => r.uniqueReference)).toEqual(['a', 'e']);
    expect(paid.refundedTotal).toBe('20.00');
  });

  it('when [endpoint-error 408 ×1, after-action not-ok ×1] are armed, then the first request is refused 408 and the second is made and answered not-ok', async () => {
    const { call } = await startTestSandbox();
    const id = await refundablePayment(call);
    await arm(call, { kind: 'endpoint-error', status: 408 });
    await arm(call, { kind: 'after-action', answer: 'not-ok' });
    const first = await refund(call, body(id, 'a'));
    expect(first.status).toBe(408);
    expect(first.body.status).toBe('RequestTimeout');
    expect((await paidOut(call, id)).refunds).toEqual([]);
    const second = await refund(call, body(id, 'b'));
    expect([second.status, second.body.status]).toEqual([200, 'Error']);
    expect((await paidOut(call, id)).refundedTotal).toBe('40.00');
    expect((await call('GET', '/sandbox/faults')).body.armed).toEqual([]);
  });

  it('when an after-action fault is armed, then it is listed with its answer; without or with an unknown answer, 400', async () => {
    const { call } = await startTestSandbox();
    const armed = await arm(call, { kind: 'after-action', answer: 'hang', count: 2 });
    expect(armed.body).toMatchObject({
      kind: 'after-action',
      remaining: 2,
      status: 500,
      answer: 'hang',
      armed: [{ kind: 'after-action', remaining: 2, status: 500, answer: 'hang' }],
    });
    for (const bad of [
      { kind: 'after-action' },
      { kind: 'after-action', answer: 'explode' },
      { kind: 'endpoint-error', answer: 'hang', status: 600 },
    ]) {
      expect((await call('POST', '/sandbox/faults', { body: bad })).status).toBe(400);
    }
  });
});

describe('GET /sandbox/refunds', () => {
  it('when refunds were made on two payments, then the filter keeps one payment and the total is exact', async () => {
    const { call } = await startTestSandbox();
    const one = await refundablePayment(call, '1.00');
    const two = await refundablePayment(call, '1.00');
    for (const [id, nonce, amount] of [
      [one, 'a', '0.10'],
      [one, 'b', '0.20'],
      [two, 'c', '0.70'],
    ] as const)
      expect(
        (
          await refund(call, {
            UniqueReference: nonce,
            originalTransactionId: id,
            refundAmount: amount,
          })
        ).status,
      ).toBe(200);
    const paid = await paidOut(call, one);
    expect(paid.refundedTotal).toBe('0.30');
    expect(paid.refunds).toEqual([
      {
        uniqueReference: 'a',
        originalTransactionId: one,
        amount: '0.10',
        at: expect.stringMatching(/Z$/),
      },
      { uniqueReference: 'b', originalTransactionId: one, amount: '0.20', at: expect.any(String) },
    ]);
    const all = await call('GET', '/sandbox/refunds');
    expect(all.body.refundedTotal).toBe('1.00');
    expect((await call('GET', '/sandbox/refunds?transactionId=a&transactionId=b')).status).toBe(
      400,
    );
  });
});
