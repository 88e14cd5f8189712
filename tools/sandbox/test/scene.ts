import { expect } from 'vitest';
import type { Answer, Call } from '../core/client.ts';

/** Setting the scene through the control routes, shared by the dialect and fault tests. */

export const REFUND_PATH = '/receivables/v2/refund';

/** An NPP payment, made refundable at once by moving the sandbox clock past the 5 minutes. */
export async function refundablePayment(call: Call, amount = '100.00'): Promise<string> {
  const answer = await call('POST', '/sandbox/payments', {
    body: { event: 'NPPReceivePayment', amount },
  });
  expect(answer.status).toBe(200);
  await call('POST', '/sandbox/clock', { body: { seconds: 300 } });
  return String((answer.body.payment as Record<string, unknown>).TransactionId);
}

export const refund = (call: Call, body: unknown): Promise<Answer> =>
  call('POST', REFUND_PATH, { body });

export interface PaidOut {
  refunds: { uniqueReference: string | null; originalTransactionId: string; amount: string }[];
  refundedTotal: string;
}

/** What the platform really paid out for `transactionId` (GET /sandbox/refunds). */
export async function paidOut(call: Call, transactionId: string): Promise<PaidOut> {
  const answer = await call('GET', `/sandbox/refunds?transactionId=${transactionId}`, {
    auth: 'none',
  });
  expect(answer.status).toBe(200);
  return answer.body as unknown as PaidOut;
}

export async function newWallet(
  call: Call,
  body: Record<string, unknown> = {},
): Promise<{ accountNumber: string; pin: string } & Record<string, unknown>> {
  const answer = await call('POST', '/sandbox/wallets', {
    body: { name: 'Jane Citizen', email: 'jane@example.com', mobile: '0412345678', ...body },
  });
  expect(answer.status).toBe(200);
  return answer.body as { accountNumber: string; pin: string } & Record<string, unknown>;
}

export const PAYID = {
  payId: 'shop@sandbox.example',
  payIdName: 'Shop',
  bankAccountNumber: '419001918',
};

/** The 400 description a strict dialect gives, e.g. `Validation failed: pin: must be text`. */
export function expectRefusal(answer: Answer, description: string): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.statusDescription).toBe(description);
}

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
