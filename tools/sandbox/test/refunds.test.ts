import { describe, expect, it } from 'vitest';
import type { Call } from '../core/client.ts';
import { startTestSandbox } from './support.ts';

async function pay(call: Call, event = 'NPPReceivePayment', amount = '100.00') {
  const answer = await call('POST', '/sandbox/payments', { body: { event, amount } });
  expect(answer.status).toBe(200);
  const payment = answer.body.payment as Record<string, unknown>;
  // InboundDirectCredit answers the batch it sent: the payment is its one record.
  const records = payment.DirectCreditDetails as Record<string, string>[] | undefined;
  return records?.[0] ?? (payment as Record<string, string>);
}

const refund = (call: Call, body: Record<string, unknown>) =>
  call('POST', '/receivables/v2/refund', { body });
const later = (call: Call, seconds: number) =>
  call('POST', '/sandbox/clock', { body: { seconds } });

describe('refunds', () => {
  it('when an NPP payment is under 5 minutes old, then the refund is refused; at 5 minutes it is made', async () => {
    const { call } = await startTestSandbox();
    const payment = await pay(call);
    const body = {
      UniqueReference: 'r-1',
      originalTransactionId: payment.TransactionId,
      refundAmount: '10.00',
    };
    await later(call, 299);
    const early = await refund(call, body);
    expect(early.status).toBe(400);
    expect(String(early.body.statusDescription)).toContain('5 minutes');
    await later(call, 1);
    const made = await refund(call, body);
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      status: 'Ok',
      callerUniqueReference: 'r-1',
      feeAmountExcludingGst: 0.6,
      feeAmountIncludingGst: 0.66,
      feeAmountGstComponent: 0.06,
    });
    expect(Number.isInteger(made.body.transactionId)).toBe(true);
  });

  it('when refunds would exceed the amount still refundable, then the excess one is refused', async () => {
    const { call } = await startTestSandbox();
    const payment = await pay(call, 'NPPReceivePayment', '100.00');
    await later(call, 300);
    const id = payment.TransactionId;
    expect(
      (
        await refund(call, {
          UniqueReference: 'a',
          originalTransactionId: id,
          refundAmount: '60.00',
        })
      ).status,
    ).toBe(200);
    const excess = await refund(call, {
      UniqueReference: 'b',
      originalTransactionId: id,
      refundAmount: '40.01',
    });
    expect(excess.status).toBe(400);
    expect(String(excess.body.statusDescription)).toContain('40.00');
    expect(
      (
        await refund(call, {
          UniqueReference: 'c',
          originalTransactionId: id,
          refundAmount: '40.00',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await refund(call, {
          UniqueReference: 'd',
          originalTransactionId: id,
          refundAmount: '0.01',
        })
      ).status,
    ).toBe(400);
  });

  it('when a UniqueReference is repeated, then the first result comes back and nothing more is refunded', async () => {
    const { call } = await startTestSandbox();
    const payment = await pay(call, 'NPPReceivePayment', '50.00');
    await later(call, 300);
    const body = {
      UniqueReference: 'once',
      originalTransactionId: payment.TransactionId,
      refundAmount: '30.00',
    };
    const first = await refund(call, body);
    const second = await refund(call, body);
    expect(second.status).toBe(200);
    expect(second.body.transactionId).toBe(first.body.transactionId);
    // Only 30.00 was refunded: 20.00 remain, not -10.00.
    expect(
      (
        await refund(call, {
          uniqueReference: 'rest',
          originalTransactionId: payment.TransactionId,
          refundAmount: '20.01',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await refund(call, {
          uniqueReference: 'rest',
          originalTransactionId: payment.TransactionId,
          refundAmount: '20.00',
        })
      ).status,
    ).toBe(200);
  });

  it('when a direct-entry payment is refunded at once, then there is no wait', async () => {
    const { call } = await startTestSandbox();
    const payment = await pay(call, 'InboundDirectCredit', '15.00');
    const answer = await refund(call, {
      UniqueReference: 'de',
      originalTransactionId: payment.TransactionId,
      refundAmount: '15',
    });
    expect(answer.status).toBe(200);
  });

  it('when a PayTo payment is named by its paymentInitiationUid, then it is refunded after the wait', async () => {
    const { call } = await startTestSandbox();
    const payment = await pay(call, 'PayToReceivePayment', '19.99');
    await later(call, 300);
    const answer = await refund(call, {
      UniqueReference: 'p',
      paymentInitiationUid: payment.paymentInitiationUid,
      refundAmount: '19.99',
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    [
      'no transaction named',
      { UniqueReference: 'x', refundAmount: '1.00' },
      'originalTransactionId',
    ],
    ['no amount', { UniqueReference: 'x', originalTransactionId: 'SBX1' }, 'refundAmount'],
    [
      'an amount with 3 decimals',
      { originalTransactionId: 'SBX1', refundAmount: '1.001' },
      'refundAmount',
    ],
    [
      'a zero amount',
      { originalTransactionId: '__PAYMENT__', refundAmount: '0.00' },
      'more than 0',
    ],
    [
      'a refundReference over 18 characters',
      { originalTransactionId: 'SBX1', refundAmount: '1', refundReference: 'r'.repeat(19) },
      'refundReference',
    ],
    [
      'an unknown transaction',
      { originalTransactionId: 'SBX-nope', refundAmount: '1.00' },
      'not found',
    ],
  ])('when the request has %s, then 400 and nothing is refunded', async (_name, given, named) => {
    const body: Record<string, string> = given;
    const { call } = await startTestSandbox();
    const payment = await pay(call, 'InboundDirectCredit', '5.00');
    const request = {
      ...body,
      ...(body.originalTransactionId === '__PAYMENT__' && {
        originalTransactionId: payment.TransactionId,
      }),
    };
    const answer = await refund(call, request);
    expect(answer.status).toBe(400);
    expect(String(answer.body.statusDescription)).toContain(named);
    // The whole amount is still refundable.
    expect(
      (await refund(call, { originalTransactionId: payment.TransactionId, refundAmount: '5.00' }))
        .status,
    ).toBe(200);
  });
});
